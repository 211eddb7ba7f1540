// gpualloc plan --gguf computes each GPU's memory per tensor-parallel size from the estimate's parts
// (issue 18, point 5): weights and KV cache split (KV heads replicated past their count), the graph
// and the per-GPU reserve on every GPU; one default context length for the API, the CLI and the page.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { CUDA_MINIMUM_MEMORY, DEFAULT_CONTEXT_LENGTH, estimateMemory } from '../../src/models/estimate.js';
import { perGpuMemory } from '../../src/models/tensor-parallel.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';
import { ROOT } from '../support/cli.js';

let dir = '';
// 32 heads, 2 KV heads: TP 4 and 8 keep a copy of a KV head on each of 2 or 4 GPUs.
const spec = llamaSpec({ blocks: 8, embedding: 2048, heads: 32, kvHeads: 2, ffn: 4096, vocab: 32000, contextLength: 32768, dtype: 8 });
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-ggufgpu-'));
  await writeFile(join(dir, 'm.gguf'), writeGguf(spec));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function plan(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['plan', '--preset', 'dgx-a100', '--gguf', 'm.gguf', ...argv], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

type Json = { options: Array<{ gpus: number[]; memoryPerGpu: number }>; tensorParallel: { sizes: number[]; memoryPerGpu: Record<string, number> } };

describe('per-GPU memory of a GGUF model per tensor-parallel size', () => {
  it('each option holds weights/TP + KV/min(TP, KV heads) + graph + reserve per GPU, more than an even split of the total', async () => {
    const e = await estimateMemory(join(dir, 'm.gguf'), { contextLength: DEFAULT_CONTEXT_LENGTH });
    expect([e.heads, e.kvHeads]).toEqual([32, 2]);
    const reserve = e.total - e.weights - e.kvCache - e.graph;
    expect(reserve).toBeGreaterThanOrEqual(CUDA_MINIMUM_MEMORY); // the runtime minimum and a spare layer
    const r = await plan('--limit', '10000', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as Json;
    expect(json.tensorParallel.sizes).toEqual([1, 2, 4, 8]);
    const expected: Record<number, number> = {
      1: e.total,
      2: Math.ceil(e.weights / 2) + Math.ceil(e.kvCache / 2) + e.graph + reserve,
      4: Math.ceil(e.weights / 4) + Math.ceil(e.kvCache / 2) + e.graph + reserve, // 2 KV heads: each kept by 2 GPUs
      8: Math.ceil(e.weights / 8) + Math.ceil(e.kvCache / 2) + e.graph + reserve,
    };
    expect(json.tensorParallel.memoryPerGpu).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v])));
    for (const o of json.options) expect(o.memoryPerGpu, `TP ${o.gpus.length}`).toBe(expected[o.gpus.length]);
    for (const tp of [2, 4, 8]) expect(expected[tp]).toBeGreaterThan(Math.ceil(e.total / tp));
  });

  it('ranked as the placement ranks: fewer GPUs first when nothing is evicted', async () => {
    const json = JSON.parse((await plan('--limit', '10000', '--json')).out) as Json;
    const sizes = json.options.map((o) => o.gpus.length);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    expect(json.options.slice(0, 8).map((o) => o.gpus)).toEqual([[0], [1], [2], [3], [4], [5], [6], [7]]);
  });

  it('stderr gives the parts and the memory per GPU of each size', async () => {
    const r = await plan();
    expect(r.err).toMatch(/m\.gguf at context 4096: weights .*, KV cache .* \(2 KV heads\), graph .* per GPU, .* reserve per GPU; .* on one GPU\n/);
    expect(r.err).toMatch(/memory per GPU: TP 1 .*, TP 2 .*, TP 4 .*, TP 8 .*\n/);
  });

  it('perGpuMemory at TP 1 is the one-GPU total', async () => {
    const e = await estimateMemory(join(dir, 'm.gguf'));
    expect(perGpuMemory(e, 1)).toBe(e.total);
  });
});

describe('one default context length', () => {
  it('the API, gpualloc estimate, gpualloc plan and the page use DEFAULT_CONTEXT_LENGTH (4096)', async () => {
    expect(DEFAULT_CONTEXT_LENGTH).toBe(4096);
    const path = join(dir, 'm.gguf');
    const api = await estimateMemory(path);
    expect(api).toEqual(await estimateMemory(path, { contextLength: DEFAULT_CONTEXT_LENGTH }));
    expect(api).not.toEqual(await estimateMemory(path, { contextLength: 8192 }));
    let out = '';
    await main(['estimate', 'm.gguf', '--json'], { out: (t) => void (out += t), err: () => undefined, env: {}, cwd: dir });
    expect(JSON.parse(out).total).toBe(api.total);
    const planned = JSON.parse((await plan('--tp', '1', '--json')).out) as Json;
    expect(planned.tensorParallel.memoryPerGpu['1']).toBe(api.total);
    const html = await readFile(join(ROOT, 'web', 'index.html'), 'utf8');
    expect(/data-testid="gguf-context" value="(\d+)"/.exec(html)?.[1]).toBe(String(DEFAULT_CONTEXT_LENGTH));
    expect(await readFile(join(ROOT, 'web', 'planner', 'main.ts'), 'utf8')).toContain("input('gguf-context').value = String(DEFAULT_CONTEXT_LENGTH)");
  });
});
