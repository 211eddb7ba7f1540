// Each command declares its options once (src/cli/lib/options.ts): the help's option list, the
// flags parseArgs accepts and the flag of each API field all come from that one table.
import { describe, expect, it } from 'vitest';
import { parsePositiveInt } from '../../src/cli/lib/common.js';
import { flagsOf, option, optionsHelp, readOptions } from '../../src/cli/lib/options.js';
import { COMMANDS } from '../../src/cli/main.js';

/** The flags the help's Options section lists at the start of its lines. */
function listedFlags(help: string): string[] {
  const section = help.slice(help.indexOf('\nOptions:\n'));
  return [...section.matchAll(/^ {2}(--[a-z-]+|-h, --help)/gm)].map((m) => m[1]);
}

describe('one option table per command', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: the help lists exactly the options the command accepts', (_name, command) => {
    const listed = listedFlags(command.help);
    const table = Object.entries(command.options);
    // Each listed option is one the table declares (an option listed with another's label is covered by it).
    for (const flag of listed) if (flag !== '-h, --help') expect(command.options[flag.slice(2)], flag).toBeDefined();
    for (const [name, spec] of table) {
      if (spec.help === undefined) {
        expect(
          table.some(([, other]) => other.label?.includes(`--${name}`)),
          name,
        ).toBe(true);
        continue;
      }
      expect(command.help, name).toContain(spec.label ?? `--${name}`);
      if (name === 'help') continue;
      // And parseArgs accepts it.
      const argv = spec.type === 'boolean' ? [`--${name}`] : [`--${name}=x`];
      expect(() => readOptions({ [name]: { type: spec.type } }, argv)).not.toThrow();
    }
  });

  it('flagsOf: every API field an option sets names that option', () => {
    const plan = COMMANDS.find((c) => c.name === 'plan')!;
    expect(flagsOf(plan.options)).toMatchObject({ memory: '--memory', tensorParallelSizes: '--tp', allowEviction: '--no-evict', limit: '--limit', 'options.contextLength': '--context' });
  });

  it('readOptions parses every given option before anything runs, naming the flag', () => {
    const table = { size: option({ type: 'string', value: 'N', help: 'n', parse: parsePositiveInt }), json: option({ type: 'boolean', help: 'j' }) };
    expect(readOptions(table, ['--size', '4', '--json']).values).toEqual({ size: 4, json: true });
    expect(() => readOptions(table, ['--size', 'four'])).toThrow('--size: expected a positive integer, got "four"');
    expect(readOptions(table, []).values).toEqual({});
  });

  it('optionsHelp: the label padded to the column, further lines indented to it', () => {
    const table = {
      memory: option({ type: 'string', value: 'SIZE', help: 'first\nsecond' }),
      x: option({ type: 'boolean', label: '--a-very-long-label X', help: 'h' }),
      hidden: option({ type: 'boolean' }),
    };
    expect(optionsHelp(table, 16)).toBe('  --memory SIZE first\n                second\n  --a-very-long-label X   h\n');
  });
});
