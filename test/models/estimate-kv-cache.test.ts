// KV cache options: type, flash attention, parallel, context cap, head sizes from metadata.
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
// llama-3-8B attention shape, 2 blocks only (KV scales per block: 32 MiB per block at 8192 f16)
const small = writeGguf(llamaSpec({ blocks: 2, embedding: 4096, heads: 32, kvHeads: 8, ffn: 64, vocab: 16, contextLength: 8192 }));
const perBlock8k = 8192 * (128 + 128) * 8 * 2;

describe('KV cache', () => {
  test('f16 at 8192 is 32 MiB per block', async () => {
    expect((await estimateMemory(small, { contextLength: 8192 })).kvCache).toBe(2 * 32 * MiB);
    expect(perBlock8k).toBe(32 * MiB);
  });

  test('q8_0 and q4_0 take effect with flash attention: 1 and 0.5 bytes per element', async () => {
    const q8 = await estimateMemory(small, { contextLength: 8192, kvCacheType: 'q8_0', flashAttention: true });
    expect(q8.kvCache).toBe(2 * 8192 * 256 * 8 * 1);
    expect(q8.warnings).toBeUndefined();
    const q4 = await estimateMemory(small, { contextLength: 8192, kvCacheType: 'q4_0', flashAttention: true });
    expect(q4.kvCache).toBe(2 * 8192 * 256 * 8 * 0.5);
  });

  test('a quantised type without flash attention is estimated as f16, with a warning', async () => {
    const e = await estimateMemory(small, { contextLength: 8192, kvCacheType: 'q8_0' });
    expect(e.kvCache).toBe(2 * 32 * MiB);
    expect(e.warnings).toHaveLength(1);
    expect(e.warnings?.[0]).toMatch(/q8_0.*flash attention.*f16/);
  });

  test('parallel multiplies the context: 4096 × 2 equals 8192 × 1', async () => {
    const e = await estimateMemory(small, { contextLength: 4096, parallel: 2 });
    expect(e.kvCache).toBe(2 * 32 * MiB);
    const four = await estimateMemory(small, { contextLength: 8192, parallel: 4 });
    expect(four.kvCache).toBe(2 * 4 * 32 * MiB);
  });

  test("context above the model's is capped to it, with a warning", async () => {
    const e = await estimateMemory(small, { contextLength: 131072 });
    expect(e.kvCache).toBe(2 * 32 * MiB);
    expect(e.warnings?.[0]).toMatch(/131072.*8192/);
  });

  test('explicit key and value lengths replace embedding / heads', async () => {
    // gemma-like: 8 heads of 256 over an embedding of 1024 (1024/8 = 128 would be wrong)
    const spec = llamaSpec({ arch: 'qwen3', blocks: 3, embedding: 1024, heads: 8, kvHeads: 4, keyLength: 256, valueLength: 256, ffn: 64, vocab: 16 });
    const e = await estimateMemory(writeGguf(spec), { contextLength: 2048 });
    expect(e.kvCache).toBe(3 * 2048 * (256 + 256) * 4 * 2);
    // fallback graph: (heads / KV heads) × KV / 6
    expect(e.graph).toBe(Math.floor((2 * 3 * 2048 * 512 * 4 * 2) / 6));
  });

  test('different key and value lengths: no flash attention, so f16 and a warning', async () => {
    const spec = llamaSpec({ arch: 'qwen3', blocks: 1, embedding: 1024, heads: 8, kvHeads: 4, keyLength: 192, valueLength: 128, ffn: 64, vocab: 16 });
    const e = await estimateMemory(writeGguf(spec), { contextLength: 1024, kvCacheType: 'q4_0', flashAttention: true });
    expect(e.kvCache).toBe(1024 * (192 + 128) * 4 * 2);
    expect(e.warnings?.[0]).toMatch(/does not support flash attention/);
  });

  test('llama-3-8B at 8192: 1 GiB f16, 512 MiB q8_0, 256 MiB q4_0', async () => {
    const big = { metadata: (await import('../fixtures/gguf-writer.js')).llamaSpec({ blocks: 32, embedding: 4096, heads: 32, kvHeads: 8, ffn: 64, vocab: 4 }).metadata };
    const metadata = Object.fromEntries(big.metadata as Array<[string, unknown]>);
    const parsed = { metadata, tensorInfos: [] };
    expect((await estimateMemory(parsed, { contextLength: 8192 })).kvCache).toBe(GiB);
    expect((await estimateMemory(parsed, { contextLength: 8192, kvCacheType: 'q8_0', flashAttention: true })).kvCache).toBe(GiB / 2);
    expect((await estimateMemory(parsed, { contextLength: 8192, kvCacheType: 'q4_0', flashAttention: true })).kvCache).toBe(GiB / 4);
  });
});
