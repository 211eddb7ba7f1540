// Every kind of source gives the same estimate: a path, bytes (whole or head), an ArrayBuffer, parsed metadata;
// GGUF v1/v2/v3, both byte orders, every metadata value type.
import { mkdtemp, open, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { readGgufHeaderFromBytes } from '../../src/models/gguf.js';
import { type GgufSpec, llamaSpec, typed, typedArray, writeGguf } from '../fixtures/gguf-writer.js';

const spec = llamaSpec({ blocks: 4, embedding: 512, heads: 8, kvHeads: 4, ffn: 1024, vocab: 1000, contextLength: 4096, dtype: 8 });
const bytes = writeGguf(spec);
// Q8_0: 32 elements in 34 bytes
const q8 = (n: number) => (n * 34) / 32;
const block = 2 * q8(512 * 512) + 2 * q8(512 * 256) + 3 * q8(512 * 1024) + 2 * 512 * 4;
const output = 512 * 4 + q8(512 * 1000);
const expectedWeights = 4 * block + output;
const expectedKv = 4 * 2048 * (64 + 64) * 4 * 2;

describe('sources', () => {
  test('bytes: weights and KV by hand', async () => {
    const e = await estimateMemory(bytes, { contextLength: 2048 });
    expect(e.weights).toBe(expectedWeights);
    expect(e.kvCache).toBe(expectedKv);
  });

  test('an ArrayBuffer and a Uint8Array view with an offset give the same', async () => {
    const reference = await estimateMemory(bytes, { contextLength: 2048 });
    expect(await estimateMemory(bytes.slice().buffer, { contextLength: 2048 })).toEqual(reference);
    const padded = new Uint8Array(bytes.length + 16);
    padded.set(bytes, 16);
    expect(await estimateMemory(padded.subarray(16), { contextLength: 2048 })).toEqual(reference);
  });

  test('a path to an 8 GiB sparse file: only the head is read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gpualloc-est-'));
    const path = join(dir, 'model.gguf');
    await writeFile(path, bytes);
    const handle = await open(path, 'r+');
    await handle.truncate(8 * 2 ** 30);
    await handle.close();
    const e = await estimateMemory(path, { contextLength: 2048 });
    expect(e.weights).toBe(expectedWeights);
    expect(e.kvCache).toBe(expectedKv);
  });

  test('the head of a file with data: header plus a cut of the weights', async () => {
    const withData = writeGguf({ ...spec, dataBytes: 3 * 2 ** 20 });
    const head = withData.subarray(0, bytes.length + 2 ** 20);
    const e = await estimateMemory(head, { contextLength: 2048 });
    expect(e.weights).toBe(expectedWeights);
  });

  test('a header larger than the parser chunk (2 MB): 200k-token vocabulary', async () => {
    const big = writeGguf(llamaSpec({ blocks: 1, embedding: 64, heads: 4, kvHeads: 4, ffn: 64, vocab: 200_000, dtype: 0 }));
    expect(big.length).toBeGreaterThan(2_500_000);
    const e = await estimateMemory(big, { contextLength: 1024 });
    // output_norm (64 F32) + output (64 × 200000 F32)
    const blk = 4 * (64 * 64 * 4) + 3 * 64 * 64 * 4 + 2 * 64 * 4;
    expect(e.weights).toBe(blk + 64 * 4 + 64 * 200_000 * 4);
    await expect(estimateMemory(big.subarray(0, 2_200_000))).rejects.toThrow(/truncated header/);
  });

  test('parsed metadata (as the header reader returns it, every array read) gives the same', async () => {
    const parsed = await readGgufHeaderFromBytes(bytes);
    expect(await estimateMemory(parsed, { contextLength: 2048 })).toEqual(await estimateMemory(bytes, { contextLength: 2048 }));
  });

  test.each([
    { version: 1 as const, littleEndian: true },
    { version: 2 as const, littleEndian: true },
    { version: 3 as const, littleEndian: false },
    { version: 2 as const, littleEndian: false },
  ])('GGUF v$version littleEndian=$littleEndian', async ({ version, littleEndian }) => {
    const e = await estimateMemory(writeGguf({ ...spec, version, littleEndian }), { contextLength: 2048 });
    expect(e.weights).toBe(expectedWeights);
    expect(e.kvCache).toBe(expectedKv);
  });

  test('every metadata value type parses; u64 and i32 arrays count as integers', async () => {
    const metadata = [...(spec.metadata as Array<[string, never]>)].filter(([k]) => k !== 'llama.block_count' && k !== 'llama.attention.head_count_kv');
    const full: GgufSpec = {
      ...spec,
      metadata: [
        ...metadata,
        ['llama.block_count', typed('u64', 4n)],
        // per-layer KV heads as an i32 array: Ollama takes the max (4) for the KV cache
        ['llama.attention.head_count_kv', typedArray('i32', [2, 4, 4, 2])],
        ['x.u8', typed('u8', 255)],
        ['x.i8', typed('i8', -128)],
        ['x.u16', typed('u16', 65535)],
        ['x.i16', typed('i16', -32768)],
        ['x.i32', typed('i32', -1)],
        ['x.f32', typed('f32', 0.5)],
        ['x.f64', typed('f64', 1e300)],
        ['x.i64', typed('i64', -5n)],
        ['x.bool', true],
        ['x.arr.f32', typedArray('f32', [1.5, 2.5])],
        ['x.arr.bool', typedArray('bool', [true, false])],
        ['x.arr.nested', typedArray('array', [['a', 'b'], ['c']])],
      ],
    };
    const parsed = await readGgufHeaderFromBytes(writeGguf(full));
    expect(parsed.metadata['x.i8']).toBe(-128);
    expect(parsed.metadata['x.i64']).toBe(-5n);
    expect(parsed.metadata['x.arr.nested']).toEqual([['a', 'b'], ['c']]);
    const e = await estimateMemory(parsed, { contextLength: 2048 });
    expect(e.kvCache).toBe(expectedKv);
  });

  test('tied embeddings: token_embd counts as the output layer', async () => {
    const tied = writeGguf(llamaSpec({ blocks: 4, embedding: 512, heads: 8, kvHeads: 4, ffn: 1024, vocab: 1000, dtype: 8, tiedEmbeddings: true }));
    const e = await estimateMemory(tied, { contextLength: 2048 });
    expect(e.weights).toBe(4 * block + 512 * 4 + q8(512 * 1000));
  });
});
