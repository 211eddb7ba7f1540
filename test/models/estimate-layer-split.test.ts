// Layer placement across two GPUs with room for (a, b) layers, as Ollama's EstimateGPULayers places them.
import { describe, expect, test } from 'vitest';
import { estimateMemory } from '../../src/models/estimate.js';
import { type TensorSpec, writeGguf } from '../fixtures/gguf-writer.js';

// 'qwen3' has no GraphSize formula in v0.11.4, so the graph is the fallback (heads / KV heads) × KV / 6.
const blocks = 8;
const context = 1536;
const kvLayer = context * (16 + 16) * 2 * 2; // head dim 64/4 = 16, 2 KV heads, f16 → 196608
const graph = Math.floor(((4 / 2) * (blocks * kvLayer)) / 6); // 524288
const blockWeights = 256 * 256 * 4; // one F32 tensor per block
const L = blockWeights + kvLayer; // 458752
const vocab = 1791; // output_norm (64 F32) + output (64 × 1791 F32) = 458752 = L: the output layer takes one slot
const O = 64 * 4 + 64 * vocab * 4;
const M = 457 * 2 ** 20;

const tensors: TensorSpec[] = [];
for (let i = 0; i < blocks; i++) tensors.push({ name: `blk.${i}.attn_q.weight`, shape: [256, 256], dtype: 0 });
tensors.push({ name: 'output_norm.weight', shape: [64], dtype: 0 }, { name: 'output.weight', shape: [64, vocab], dtype: 0 });
const file = writeGguf({
  metadata: {
    'general.architecture': 'qwen3',
    'qwen3.block_count': blocks,
    'qwen3.embedding_length': 64,
    'qwen3.attention.head_count': 4,
    'qwen3.attention.head_count_kv': 2,
    'qwen3.context_length': 32768,
    'tokenizer.ggml.tokens': Array.from({ length: vocab }, (_, i) => `tok${i}`),
  },
  tensors,
});

/** Free memory for exactly `k` slots: minimum + graph + spare layer + k layers, plus one byte (Ollama compares with >). */
const room = (k: number) => M + graph + (k + 1) * L + 1;

describe('two GPUs, room for (a, b) layers; 8 blocks + output', () => {
  test('fixture sizes', () => {
    expect(kvLayer).toBe(196_608);
    expect(graph).toBe(524_288);
    expect(L).toBe(458_752);
    expect(O).toBe(L);
  });

  // Layers go last first: block i tries GPU (i mod j) of the GPUs still in the rotation (7 → GPU 1, 6 → GPU 0, …);
  // a full GPU leaves the rotation. The output tries GPU (layers placed mod j), without dropping GPUs.
  test.each([
    { a: 1, b: 1, split: [1, 1], layers: 2 },
    { a: 2, b: 1, split: [2, 1], layers: 3 },
    { a: 2, b: 2, split: [2, 2], layers: 4 },
    { a: 3, b: 3, split: [3, 3], layers: 6 },
    // all 8 blocks fit; the output then tries GPU 8 mod 2 = 0 (full), then 8 mod 1 = 0 again: it overflows
    { a: 4, b: 4, split: [4, 4], layers: 8 },
    // GPU 0 cannot hold minimum + graph + 2 layers: it never joins the rotation
    { a: 0, b: 3, split: [0, 3], layers: 3 },
    { a: 5, b: 5, split: [5, 4], layers: 9 },
  ])('room ($a, $b) → split $split', async ({ a, b, split, layers }) => {
    const e = await estimateMemory(file, { contextLength: context, gpus: [room(a), room(b)] });
    expect(e.layersPerGpu).toEqual(split);
    expect(e.layers).toBe(layers);
    expect(e.fits).toBe(layers === blocks + 1);
    expect(e.graph).toBe(graph);
    const joined = [a, b].map((k) => k >= 1);
    const perGpu = split.map((n, i) => (joined[i] ? M + L + n * L + (n > 0 ? graph : 0) : 0));
    expect(e.perGpu).toEqual(perGpu);
    const vram = perGpu[0] + perGpu[1];
    expect(e.vram).toBe(vram);
    const overflowSlots = blocks + 1 - layers; // every slot (block or output) is L bytes here
    expect(e.total).toBe(vram + overflowSlots * L);
  });

  test('weights and KV', async () => {
    const e = await estimateMemory(file, { contextLength: context });
    expect(e.weights).toBe(blocks * blockWeights + O);
    expect(e.kvCache).toBe(blocks * kvLayer);
    expect(e.graph).toBe(graph);
    expect(e.total).toBe(M + L + blocks * L + O + graph);
  });
});
