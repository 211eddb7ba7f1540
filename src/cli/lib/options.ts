// A command's options, declared once: each option's flag, type, parser, the API field it sets and its
// help line live in one table, from which come the help text's option list, node:util parseArgs'
// options, the values (parsed before any work: a bad size or count is a usage error naming its flag)
// and the flag → API field map that errors are told with (error-words.ts).
import { parseArgs } from 'node:util';
import type { Backend } from '../../index.js';
import { closestName } from '../../shared/suggest.js';
import type { FlagsOfFields } from './error-words.js';
import { UsageError } from './usage-error.js';

/** One option of a command. */
export type Option<T = unknown> = {
  /** string: takes a value (`--memory 80GiB`); boolean: a switch (`--json`). */
  type: 'string' | 'boolean';
  /** The value's name in the help (`SIZE`, `FILE`); string options only. */
  value?: string;
  /** The help text ('\n' between its lines); absent: not listed (another option's `label` covers it). */
  help?: string;
  /** What the help lists on the left, when not `--NAME VALUE` (`-h, --help`; several options at once). */
  label?: string;
  /** The API field (or fields) this option sets: errors about them name the flag instead. */
  field?: string | readonly string[];
  /** Turns the text into the option's value; throws UsageError (or AllocationError) naming `flag`. */
  parse?: (text: string, flag: string) => T;
  /** One-letter alias (`-h`). */
  short?: string;
  /** The flag may be given several times; its value is then the list of what each gave, in order. */
  multiple?: boolean;
  /** Other names users try for this flag (`tensor-parallel` for `tp`), for "did you mean" only. */
  suggestFor?: readonly string[];
};

/** A command's options by flag name (without `--`), in the order the help lists them. */
export type OptionTable = Readonly<Record<string, Option>>;

/** An option, with its value's type taken from its parser. */
export function option<T = string>(spec: Option<T> & { type: 'string' }): Option<T> & { type: 'string' };
export function option(spec: Option<boolean> & { type: 'boolean' }): Option<boolean> & { type: 'boolean' };
export function option<T>(spec: Option<T>): Option<T> {
  return spec;
}

/** The value an option yields: its parser's result, a string, or true for a switch. */
type _ValueOf<O> = O extends { type: 'boolean' } ? boolean : O extends Option<infer T> ? T : string;

/** The parsed values of a table: each option's value, undefined when not given. */
export type OptionValues<O extends OptionTable> = { -readonly [K in keyof O]?: _ValueOf<O[K]> };

/** The flag → API field map of a table, for errors told with flags. */
export function flagsOf(table: OptionTable): FlagsOfFields {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(table)) {
    if (spec.field === undefined) continue;
    for (const field of typeof spec.field === 'string' ? [spec.field] : spec.field) out[field] = `--${name}`;
  }
  return out;
}

/** The left column of an option in the help. */
function _label(name: string, spec: Option): string {
  return spec.label ?? `--${name}${spec.type === 'string' && spec.value !== undefined ? ` ${spec.value}` : ''}`;
}

/**
 * The help's list of options: `  LABEL` padded to `column`, then the help text, its further lines
 * indented to `column` (each line trimmed of trailing spaces).
 */
export function optionsHelp(table: OptionTable, column: number): string {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    if (spec.help === undefined) continue;
    const [first, ...more] = spec.help.split('\n');
    const left = `  ${_label(name, spec)}`;
    lines.push(`${left.length + 1 > column ? `${left}   ` : left.padEnd(column)}${first}`.trimEnd());
    for (const line of more) lines.push(`${' '.repeat(column)}${line}`.trimEnd());
  }
  return lines.join('\n') + '\n';
}

/** " (did you mean --NAME?)" for a mistyped flag: a flag it starts, one users try for it, else the closest by spelling. */
export function suggestFlag(typed: string, table: OptionTable): string {
  const name = typed.replace(/^-+/, '').split('=')[0]!; // split returns at least one part
  const names = Object.entries(table)
    .filter(([, spec]) => spec.help !== undefined || spec.label === undefined)
    .map(([n]) => n);
  const match = (name.length >= 2 ? names.find((n) => n.startsWith(name)) : undefined) ?? names.find((n) => (table[n]?.suggestFor ?? []).includes(name)) ?? closestName(name, names);
  return match === undefined ? '' : ` (did you mean --${match}?)`;
}

/** A number-like value (`-5GiB`, `-1`, `-.5`): the value of the option before it, never a flag. */
const _NEGATIVE = /^-\.?[0-9]/;

/**
 * The first token of `argv` that is not an option of `table` (a value after a string option is
 * skipped), or undefined.
 */
function _unknownFlag(argv: readonly string[], table: OptionTable): string | undefined {
  for (let k = 0; k < argv.length; k++) {
    const token = argv[k]!; // k < argv.length
    if (token === '--') return undefined;
    if (!token.startsWith('-') || token === '-') continue;
    const long = token.startsWith('--');
    const name = long ? token.slice(2).split('=')[0]! : token.slice(1, 2);
    const found = long ? table[name] : Object.values(table).find((s) => s.short === name);
    if (found === undefined) return token.split('=')[0]!;
    if (found.type === 'string' && !token.includes('=')) k++;
  }
  return undefined;
}

/**
 * Reads `argv` by `table` through node:util parseArgs (strict): an unknown flag is a usage error
 * that suggests the flag meant; `--memory -5GiB` gives `-5GiB` to --memory's parser (parseArgs
 * alone would call it ambiguous). Every given option is parsed here, before the command does any work.
 */
export function readOptions<O extends OptionTable>(table: O, argv: readonly string[], settings: { positionals?: boolean } = {}): { values: OptionValues<O>; positionals: string[] } {
  const args: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const token = argv[k]!; // k < argv.length
    const spec = token.startsWith('--') && !token.includes('=') ? table[token.slice(2)] : undefined;
    const next = argv[k + 1];
    if (spec?.type === 'string' && next !== undefined && _NEGATIVE.test(next)) {
      args.push(`${token}=${next}`);
      k++;
    } else args.push(token);
  }
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(table))
    options[name] = { type: spec.type, ...(spec.short !== undefined ? { short: spec.short } : {}), ...(spec.multiple === true ? { multiple: true } : {}) };
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: settings.positionals === true }) as typeof parsed;
  } catch (error) {
    const unknown = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? _unknownFlag(args, table) : undefined;
    if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}${suggestFlag(unknown, table)}`);
    throw error;
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const given = parsed.values[name];
    if (given === undefined) continue;
    const parse = spec.parse;
    if (Array.isArray(given)) values[name] = parse === undefined ? given : given.map((g: string) => parse(g, `--${name}`));
    else values[name] = typeof given === 'string' && parse !== undefined ? parse(given, `--${name}`) : given;
  }
  return { values: values as OptionValues<O>, positionals: parsed.positionals };
}

/** 'a', 'a or b', 'a, b or c'. */
function _orList(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** A parser for one of `values`: anything else is a usage error naming the flag and listing them. */
export function oneOf<T extends string>(values: readonly T[]): (text: string, flag: string) => T {
  return (text, flag) => {
    if (!(values as readonly string[]).includes(text)) throw new UsageError(`${flag}: expected ${_orList(values)}, got ${JSON.stringify(text)}`);
    return text as T;
  };
}

/** A parser for comma-separated names among `values`, none given twice (a repeated name would count one run twice). */
export function namesAmong(values: readonly string[]): (text: string, flag: string) => string[] {
  return (text, flag) => {
    const names = text.split(',').map((p) => p.trim());
    const unknown = names.find((p) => !values.includes(p));
    if (unknown !== undefined) throw new UsageError(`${flag}: expected names among ${values.join(', ')}, got ${JSON.stringify(unknown)}`);
    const twice = names.find((p, i) => names.indexOf(p) !== i);
    if (twice !== undefined) throw new UsageError(`${flag}: ${JSON.stringify(twice)} is given twice in ${JSON.stringify(text)}`);
    return names;
  };
}

/** Comma-separated IDs (device IDs, empty parts dropped). */
export function parseIdList(text: string, flag: string): string[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ids.length === 0 && text.trim() !== '') throw new UsageError(`${flag}: expected comma-separated device IDs, got ${JSON.stringify(text)}`);
  return ids;
}

/** A parser for an integer min..max written in digits. */
export function integerIn(min: number, max: number): (text: string, flag: string) => number {
  return (text, flag) => {
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || !(n >= min && n <= max)) throw new UsageError(`${flag}: expected an integer ${min}..${max}, got ${JSON.stringify(text)}`);
    return n;
  };
}

/** A parser for a decimal number in (0, max] written in digits. */
export function positiveUpTo(max: number): (text: string, flag: string) => number {
  return (text, flag) => {
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0 && n <= max)) throw new UsageError(`${flag}: expected a number in (0, ${max}], got ${JSON.stringify(text)}`);
    return n;
  };
}

/** The --backend option's value: wasm or ts. */
export const parseBackend: (text: string, flag: string) => Backend = oneOf<Backend>(['wasm', 'ts']);

/** `--inventory FILE`: where the GPUs come from (the help line is the command's own). */
export function inventoryOption(help: string): Option<string> & { type: 'string' } {
  return option({ type: 'string', value: 'FILE', help, field: 'inventory' });
}

/** `--preset NAME`: a built-in machine instead. */
export function presetOption(help: string): Option<string> & { type: 'string' } {
  return option({ type: 'string', value: 'NAME', help, field: 'preset' });
}

/** `--backend NAME`: wasm (default) or ts. */
export function backendOption(help = 'wasm (default) or ts'): Option<Backend> & { type: 'string' } {
  return option({ type: 'string', value: 'NAME', help, parse: parseBackend });
}

/** `--json`: the result as JSON on stdout. */
export function jsonOption(help: string): Option<boolean> & { type: 'boolean' } {
  return option({ type: 'boolean', help });
}

/** `-h, --help` in the list (main answers it before a command runs). */
export function helpOption(): Option<boolean> & { type: 'boolean' } {
  return option({ type: 'boolean', short: 'h', label: '-h, --help', help: 'this help' });
}
