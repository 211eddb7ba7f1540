// Every command's errors name its flags, not the API fields behind them (issue 18, point 9).
import { describe, expect, it } from 'vitest';
import { sayWithFlags as inFlagWords } from '../../src/cli/lib/error-words.js';
import { AllocationError } from '../../src/shared/errors.js';
import { cli } from '../support/cli.js';

describe('errors in the CLI words', () => {
  it.each([
    [['aligned', '--preset', 'dgx-a100', '--size', '99'], 'gpualloc: --size: expected an integer in [1, 64], got 99'],
    [['aligned', '--preset', 'dgx-a100', '--size', '2', '--available', '0,0'], 'gpualloc: --available (item 2): GPU index 0 appears twice in --available'],
    [['replicas', '--preset', 'dgx-a100', '--size', '2', '--required', 'nope'], 'gpualloc: --required (item 1): expected an ID listed in devices, got "nope"'],
    [['estimate', 'test/fixtures/no-such.gguf', '--context', '99999999999'], 'gpualloc: --context: expected an integer in [1, 1073741824], got 99999999999'],
    [['topo', '--preset', 'nope'], /^gpualloc: --preset: expected one of .*, got "nope"$/],
    [
      ['replicas', '--preset', 'dgx-a100', '--size', '2', '--policy', 'packed'],
      "gpualloc: --policy: expected one of 'distributed', 'pack', 'spread', got \"packed\" (did you mean pack? 'packed' is the device plugin's spelling, accepted in its config file)",
    ],
  ])('%j', async (argv, message) => {
    const r = await cli(argv as string[]);
    expect(r.code).toBe(2);
    const line = r.stderr.trimEnd().split('\n').pop()!;
    if (typeof message === 'string') expect(line).toBe(message);
    else expect(line).toMatch(message);
    expect(line).not.toMatch(/(^|\s)(size|available|required|preset|options\.\w+|tensorParallelSizes|model)(\[\d+\])?:/);
  });

  it('inFlagWords leaves errors about other fields, and other errors, as they are', () => {
    const other = new AllocationError('INVALID_ARGUMENT', 'topology.gpus: expected an integer', { field: 'topology.gpus' });
    expect(inFlagWords(other, { size: '--size' })).toBe(other);
    const plain = new Error('boom');
    expect(inFlagWords(plain, { size: '--size' })).toBe(plain);
    const said = inFlagWords(new AllocationError('INVALID_ARGUMENT', 'sizes[3]: bad', { field: 'sizes[3]' }), { size: '--size' });
    expect((said as AllocationError).message).toBe('sizes[3]: bad'); // `sizes` is not `size`
  });
});

describe('the renderer works from the error parts', () => {
  it('flagOf: the longest field that starts the path; an item as (item k+1), a key path after a space', async () => {
    const { flagOf } = await import('../../src/cli/lib/error-words.js');
    const flags = { options: '--opts', 'options.contextLength': '--context', size: '--size' };
    expect(flagOf(['options', 'contextLength'], flags)).toBe('--context');
    expect(flagOf(['options', 'batch'], flags)).toBe('--opts batch');
    expect(flagOf(['size', 2], flags)).toBe('--size (item 3)');
    expect(flagOf(['sizes', 2], flags)).toBeUndefined();
  });

  it('sayWithFlags leaves the message alone when the field names itself in it', async () => {
    const { unknownKeyError } = await import('../../src/shared/validate.js');
    const named = unknownKeyError('INVALID_CONFIG', { path: ['size'], key: 'size', known: ['a'] });
    expect(inFlagWords(named, { size: '--size' })).toBe(named);
  });

  it('sayInFile: the label, and the line and column of the field (less the root) in the text', async () => {
    const { sayInFile } = await import('../../src/cli/lib/error-words.js');
    const { jsonPosition } = await import('../../src/shared/file-positions.js');
    const text = '{\n  "version": 1,\n  "nextSlot": 0\n}\n';
    const error = AllocationError.at('INVALID_STATE', 'state.nextSlot', 'expected an integer', { origin: 'state' });
    const said = sayInFile(error, { origin: 'state', label: '--state s.json', text, position: jsonPosition, root: ['state'] }, ['the file was left untouched']) as AllocationError;
    expect(said.message).toBe('--state s.json:3:3: state.nextSlot: expected an integer (the file was left untouched)');
    // Another origin (an error the file did not cause) is left as it is.
    const other = AllocationError.at('INVALID_ARGUMENT', 'x', 'bad', { origin: 'elsewhere' });
    expect(sayInFile(other, { origin: 'state', label: '--state s.json', text, position: jsonPosition })).toBe(other);
  });
});
