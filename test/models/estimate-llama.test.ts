// Llama-3-8B shape (32 blocks, 32 heads, 8 KV heads, head dim 128, vocab 128256, Q4_0): every number by hand.
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const file = writeGguf(llamaSpec({ blocks: 32, embedding: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 128256, contextLength: 8192 }));

// Q4_0 stores 32 elements in 18 bytes; norms are F32.
const q4 = (elements: number) => (elements * 18) / 32;
const block = 2 * q4(4096 * 4096) + 2 * q4(4096 * 1024) + 3 * q4(4096 * 14336) + 2 * 4096 * 4;
const output = 4096 * 4 + q4(4096 * 128256); // output_norm + output (token_embd is not counted when output exists)
const kvLayer = 8192 * (128 + 128) * 8 * 2; // context × (key + value head dim) × KV heads × f16
const minimum = 457 * MiB;
// GraphSize for llama at context 8192, batch 512 (e 4096, heads 32, KV heads 8, embedding heads 128, vocab 128256)
const graphFull = Math.max(4 * 512 * (1 + 4 * 4096 + 8192 * (1 + 32)), 4 * 512 * (4096 + 128256));
const graphPartial =
  4 * 512 * 4096 + Math.max(4 * 512 * (1 + 4096 + 8192) + Math.floor((4096 * 4096 * 9) / 16) + 4 * 8192 * (512 * 32 + 128 * 8), 4 * 512 * (4096 + 128256) + Math.floor((4096 * 128256 * 105) / 128));

describe('llama-3-8B shape', () => {
  test('block and KV sizes are the textbook ones', () => {
    expect(block).toBe(122_716_160);
    expect(kvLayer).toBe(32 * MiB);
    expect(graphFull).toBe(587_204_608);
    expect(graphPartial).toBe(710_385_664);
  });

  test('context 8192, f16: KV exactly 1 GiB; weights, graph and total on one GPU', async () => {
    const e = await estimateMemory(file, { contextLength: 8192 });
    expect(e.kvCache).toBe(GiB);
    expect(e.weights).toBe(32 * block + output);
    expect(e.graph).toBe(graphFull);
    // one GPU: CUDA minimum + one spare layer (blk.0 + its KV) + all layers + output + full graph
    expect(e.total).toBe(minimum + (block + kvLayer) + 32 * (block + kvLayer) + output + graphFull);
    expect(e.warnings).toBeUndefined();
    expect(e.perGpu).toBeUndefined();
  });

  test('default context is 4096: KV 512 MiB', async () => {
    const e = await estimateMemory(file);
    expect(e.kvCache).toBe(512 * MiB);
  });

  test('two 24 GiB GPUs: partial graph on both, last layer first, output on GPU 0', async () => {
    const free = 24 * GiB;
    const e = await estimateMemory(file, { contextLength: 8192, gpus: [free, free] });
    // layers 31, 29, … go to GPU 1 (odd), 30, 28, … to GPU 0; output: layerCount 32 % 2 = 0 → GPU 0
    expect(e.layersPerGpu).toEqual([17, 16]);
    expect(e.layers).toBe(33);
    expect(e.fits).toBe(true);
    expect(e.graph).toBe(graphPartial);
    const gpu0 = minimum + (block + kvLayer) + 16 * (block + kvLayer) + output + graphPartial;
    const gpu1 = minimum + (block + kvLayer) + 16 * (block + kvLayer) + graphPartial;
    expect(e.perGpu).toEqual([gpu0, gpu1]);
    expect(e.vram).toBe(gpu0 + gpu1);
    expect(e.total).toBe(gpu0 + gpu1);
  });

  test('one GPU too small for all layers: partial graph, overflow counted in total', async () => {
    // room for the larger graph (partial here), minimum, spare layer and exactly 10 layers
    const free = minimum + Math.max(graphPartial, graphFull) + 11 * (block + kvLayer) + 1;
    const e = await estimateMemory(file, { contextLength: 8192, gpus: [free] });
    expect(e.layers).toBe(10);
    expect(e.layersPerGpu).toEqual([10]);
    expect(e.fits).toBe(false);
    expect(e.graph).toBe(graphPartial);
    const gpu = minimum + 11 * (block + kvLayer) + graphPartial;
    expect(e.perGpu).toEqual([gpu]);
    expect(e.total).toBe(gpu + 22 * (block + kvLayer) + output);
  });

  test('a GPU with no room for anything: no layers, zero per GPU, not fitting', async () => {
    const e = await estimateMemory(file, { contextLength: 8192, gpus: [GiB] });
    expect(e.layers).toBe(0);
    expect(e.perGpu).toEqual([0]);
    expect(e.vram).toBe(0);
    expect(e.fits).toBe(false);
    expect(e.total).toBe(32 * (block + kvLayer) + output);
  });
});
