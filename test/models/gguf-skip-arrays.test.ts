// The GGUF header reader steps over array payloads the caller does not need (issue 18, point 7): it
// reads each skipped array's length and seeks past it, keeps the length, and reads the rest the same.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { readGgufHeaderFromBytes, readGgufHeaderFromFile } from '../../src/models/gguf.js';
import { AllocationError } from '../../src/shared/errors.js';
import { type GgufValue, llamaSpec, typed, typedArray, writeGguf } from '../fixtures/gguf-writer.js';

const base = llamaSpec({ blocks: 2, embedding: 256, heads: 4, kvHeads: 2, ffn: 64, vocab: 3000 });
const metadata: Array<[string, GgufValue]> = [
  ...(base.metadata as Array<[string, GgufValue]>),
  [
    'tokenizer.ggml.scores',
    typedArray(
      'f32',
      Array.from({ length: 3000 }, (_, i) => i / 2),
    ),
  ],
  [
    'tokenizer.ggml.token_type',
    typedArray(
      'i32',
      Array.from({ length: 3000 }, (_, i) => i % 6),
    ),
  ],
  ['tokenizer.ggml.merges', ['a b', 'c d', 'e f']],
  ['tokenizer.nested', typedArray('array', [['x', 'yy'], ['zzz']])],
  ['tokenizer.flags', typedArray('bool', [true, false, true])],
  ['x.after', typed('u64', 12345678901234n)],
  ['x.per_layer', typedArray('u32', [1, 2])],
];
const bytes = writeGguf({ ...base, metadata });
const skipTokenizer = { skipArray: (key: string) => key.startsWith('tokenizer.') };

describe('skipping arrays in the GGUF header', () => {
  test('skipped arrays leave metadata with their lengths kept; every other key and tensor reads the same', async () => {
    const full = await readGgufHeaderFromBytes(bytes);
    const skipped = await readGgufHeaderFromBytes(bytes, 'source', skipTokenizer);
    const arrays = Object.keys(full.metadata).filter((k) => k.startsWith('tokenizer.') && Array.isArray(full.metadata[k]));
    expect(arrays.sort()).toEqual(['tokenizer.flags', 'tokenizer.ggml.merges', 'tokenizer.ggml.scores', 'tokenizer.ggml.token_type', 'tokenizer.ggml.tokens', 'tokenizer.nested']);
    expect(skipped.arrayLengths).toEqual(Object.fromEntries(arrays.map((k) => [k, (full.metadata[k] as unknown[]).length])));
    expect(skipped.arrayLengths!['tokenizer.ggml.tokens']).toBe(3000);
    const rest = Object.fromEntries(Object.entries(full.metadata).filter(([k]) => !arrays.includes(k)));
    expect(skipped.metadata).toEqual(rest);
    expect(skipped.metadata['tokenizer.ggml.model']).toBe('gpt2'); // a tokenizer string, not an array: kept
    expect(skipped.metadata['x.after']).toBe(12345678901234n);
    expect(skipped.metadata['x.per_layer']).toEqual([1, 2]);
    expect(skipped.tensorInfos).toEqual(full.tensorInfos);
    expect(full.arrayLengths).toBeUndefined();
  });

  test('the estimate from bytes (tokenizer arrays skipped) equals the estimate from the fully parsed header', async () => {
    const full = await readGgufHeaderFromBytes(bytes);
    expect(await estimateMemory(bytes, { contextLength: 1024 })).toEqual(await estimateMemory(full, { contextLength: 1024 }));
  });

  test('a file whose header is larger than one read (1 MiB): read again, same header as from bytes', async () => {
    const big = writeGguf(llamaSpec({ blocks: 1, embedding: 64, heads: 4, kvHeads: 4, ffn: 64, vocab: 200_000, dtype: 0 }));
    expect(big.length).toBeGreaterThan(2 ** 21);
    const dir = await mkdtemp(join(tmpdir(), 'gpualloc-gguf-'));
    try {
      const path = join(dir, 'big.gguf');
      await writeFile(path, big);
      expect(await readGgufHeaderFromFile(path, skipTokenizer)).toEqual(await readGgufHeaderFromBytes(big, 'source', skipTokenizer));
      expect((await readGgufHeaderFromFile(path, skipTokenizer)).arrayLengths).toEqual({ 'tokenizer.ggml.tokens': 200_000 });
      await writeFile(path, big.subarray(0, 1_500_000));
      await expect(readGgufHeaderFromFile(path, skipTokenizer)).rejects.toThrow(/truncated header: it runs past the 1500000 bytes given/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('cut inside a skipped string array or numeric array: truncated, naming the bytes given', async () => {
    const scoresAt = Buffer.from(bytes).indexOf('tokenizer.ggml.scores');
    for (const cut of [scoresAt - 100, scoresAt + 5000]) {
      const e = await readGgufHeaderFromBytes(bytes.subarray(0, cut), 'source', skipTokenizer).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(AllocationError);
      expect((e as AllocationError).message).toBe(`source: truncated header: it runs past the ${cut} bytes given`);
    }
  });

  test('an array count past the file (a corrupt length) is a truncated header, not a long loop', async () => {
    const corrupt = bytes.slice();
    const at = Buffer.from(corrupt).indexOf('tokenizer.ggml.tokens') + 'tokenizer.ggml.tokens'.length + 8; // after the value type and the item type
    new DataView(corrupt.buffer).setBigUint64(at, 2n ** 52n, true);
    await expect(readGgufHeaderFromBytes(corrupt, 'source', skipTokenizer)).rejects.toThrow(/truncated header/);
  });
});
