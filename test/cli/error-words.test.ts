// Every command's errors name its flags, not the API fields behind them (issue 18, point 9).
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { sayWithFlags as inFlagWords } from '../../src/cli/lib/error-words.js';
import { AllocationError } from '../../src/shared/errors.js';

describe('errors in the CLI words', () => {
  it.each([
    [['aligned', '--preset', 'dgx-a100', '--size', '99'], 'gpualloc: --size: expected an integer in [1, 64], got 99'],
    [['aligned', '--preset', 'dgx-a100', '--size', '2', '--available', '0,0'], 'gpualloc: --available (item 2): GPU index 0 appears twice in --available'],
    [['replicas', '--preset', 'dgx-a100', '--size', '2', '--required', 'nope'], 'gpualloc: --required (item 1): expected an ID listed in devices, got "nope"'],
    [['estimate', 'test/fixtures/no-such.gguf', '--context', '99999999999'], 'gpualloc: --context: expected an integer in [1, 1073741824], got 99999999999'],
    [['topo', '--preset', 'nope'], /^gpualloc: --preset: expected one of .*, got "nope"$/],
    [['replicas', '--preset', 'dgx-a100', '--size', '2', '--policy', 'packed'], "gpualloc: --policy: expected one of 'distributed', 'pack', 'spread', got \"packed\" (did you mean pack? 'packed' is the device plugin's spelling, accepted in its config file)"],
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
