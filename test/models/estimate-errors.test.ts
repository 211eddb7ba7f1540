// Bad files and bad options: AllocationError with a code and a message naming what is wrong.
import { describe, expect, test } from 'vitest';
import { type EstimateOptions, estimateMemory } from '../../src/models/estimate.js';
import { AllocationError } from '../../src/shared/errors.js';
import { type GgufValue, llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

const good = llamaSpec({ blocks: 2, embedding: 256, heads: 4, kvHeads: 2, ffn: 64, vocab: 300 });
const goodBytes = writeGguf(good);
const entries = good.metadata as Array<[string, GgufValue]>;

async function rejects(source: Parameters<typeof estimateMemory>[0], code: string, message: RegExp, options: EstimateOptions = {}): Promise<void> {
  const error = await estimateMemory(source, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AllocationError);
  expect((error as AllocationError).code).toBe(code);
  expect((error as AllocationError).message).toMatch(message);
}

function without(key: string): Uint8Array {
  return writeGguf({ ...good, metadata: entries.filter(([k]) => k !== key) });
}

describe('bad files → INVALID_GGUF', () => {
  test('not GGUF: shows the first bytes', async () => {
    await rejects(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 'INVALID_GGUF', /not a GGUF file.*89 50 4e 47/);
  });
  test('empty and 3-byte inputs', async () => {
    await rejects(new Uint8Array(0), 'INVALID_GGUF', /only 0 bytes/);
    await rejects(new Uint8Array([0x47, 0x47, 0x55]), 'INVALID_GGUF', /only 3 bytes/);
  });
  test('truncated inside the fixed header', async () => {
    await rejects(goodBytes.slice(0, 6), 'INVALID_GGUF', /truncated header.*6 bytes/);
    await rejects(goodBytes.slice(0, 20), 'INVALID_GGUF', /truncated header.*20 bytes.*24/);
  });
  test('truncated inside the metadata, the token list and the tensor infos', async () => {
    for (const cut of [40, Math.floor(goodBytes.length / 2), goodBytes.length - 40]) {
      await rejects(goodBytes.slice(0, cut), 'INVALID_GGUF', new RegExp(`truncated header.*${cut}`));
    }
  });
  test('unsupported versions', async () => {
    const v4 = goodBytes.slice();
    new DataView(v4.buffer).setUint32(4, 4, true);
    await rejects(v4, 'INVALID_GGUF', /unsupported GGUF version 4/);
    const v0 = goodBytes.slice();
    new DataView(v0.buffer).setUint32(4, 0x00070000, true); // reads as big-endian 0x700 … still not 1-3
    await rejects(v0, 'INVALID_GGUF', /unsupported GGUF version/);
  });
  test.each([
    ['general.architecture', /missing metadata key general\.architecture/],
    ['llama.block_count', /missing metadata key llama\.block_count/],
    ['llama.embedding_length', /missing metadata key llama\.embedding_length/],
    ['llama.attention.head_count', /missing metadata key llama\.attention\.head_count/],
  ])('missing %s', async (key, message) => {
    await rejects(without(key), 'INVALID_GGUF', message);
  });
  test('a key of the wrong type', async () => {
    const bytes = writeGguf({ ...good, metadata: entries.map(([k, v]) => (k === 'llama.block_count' ? [k, 'thirty-two'] : [k, v])) });
    await rejects(bytes, 'INVALID_GGUF', /llama\.block_count: expected an unsigned integer, got "thirty-two"/);
  });
  test('block_count 0', async () => {
    const bytes = writeGguf({ ...good, metadata: entries.map(([k, v]) => (k === 'llama.block_count' ? [k, 0] : [k, v])) });
    await rejects(bytes, 'INVALID_GGUF', /llama\.block_count: expected a positive integer, got 0/);
  });
  test('a file that is not GGUF, by path', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'gpualloc-est-'));
    const path = join(dir, 'model.gguf');
    await writeFile(path, 'hello, not a model');
    await rejects(path, 'INVALID_GGUF', /model\.gguf: not a GGUF file/);
    await writeFile(path, goodBytes.slice(0, 100));
    await rejects(path, 'INVALID_GGUF', /truncated header/);
  });
});

describe('bad arguments → INVALID_ARGUMENT', () => {
  test('a missing file', async () => {
    await rejects('/nonexistent-dir-gpualloc/model.gguf', 'INVALID_ARGUMENT', /cannot open .*model\.gguf.*ENOENT/);
  });
  test('a source of the wrong kind', async () => {
    await rejects(42 as never, 'INVALID_ARGUMENT', /source: expected a file path.*got 42/);
    await rejects('' as never, 'INVALID_ARGUMENT', /source/);
    await rejects({ metadata: {}, tensorInfos: 'x' } as never, 'INVALID_ARGUMENT', /source\.tensorInfos: expected an array/);
    await rejects({ metadata: {}, tensorInfos: [{ name: 'a', shape: [-1], dtype: 0 }] } as never, 'INVALID_ARGUMENT', /tensorInfos\[0\]\.shape\[0\]/);
  });
  test.each([
    [{ contextLength: 0 }, /options\.contextLength/],
    [{ contextLength: 1.5 }, /options\.contextLength/],
    [{ parallel: -1 }, /options\.parallel/],
    [{ batch: Number.NaN }, /options\.batch/],
    [{ kvCacheType: 'q5_1' }, /options\.kvCacheType: expected one of 'f16', 'q8_0', 'q4_0', got "q5_1"/],
    [{ flashAttention: 'yes' }, /options\.flashAttention: expected a boolean/],
    [{ gpus: [80e9, -1] }, /options\.gpus\[1\]/],
    [{ gpus: '80GiB' }, /options\.gpus: expected an array/],
    [{ context: 8192 }, /options\.context/],
  ])('options %o', async (options, message) => {
    await rejects(goodBytes, 'INVALID_ARGUMENT', message, options as EstimateOptions);
  });
});
