// gpualloc plan's default tensor-parallel sizes (issue 18, point 4): powers of two up to the GPU count;
// with --gguf only those the attention heads allow (vLLM's rule), the dropped ones named with the
// reason; an explicit --tp wins.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { defaultTensorParallelSizes, tensorParallelProblem } from '../../src/models/tensor-parallel.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-tp-'));
  // 12 attention heads, 4 KV heads: 8 does not divide 12.
  await writeFile(join(dir, 'heads12.gguf'), writeGguf(llamaSpec({ blocks: 4, embedding: 768, heads: 12, kvHeads: 4, ffn: 1024, vocab: 1000, dtype: 8 })));
  // 24 attention heads, 3 KV heads: 2 and 4 cannot share 3 KV heads, 8 is no multiple of 3.
  await writeFile(join(dir, 'kv3.gguf'), writeGguf(llamaSpec({ blocks: 4, embedding: 768, heads: 24, kvHeads: 3, ffn: 1024, vocab: 1000, dtype: 8 })));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function plan(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['plan', '--preset', 'dgx-a100', ...argv], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

type Json = { options: Array<{ gpus: number[] }>; optionCount: number; tensorParallel: { sizes: number[]; dropped: Array<{ size: number; reason: string }> } };

describe('default tensor-parallel sizes', () => {
  it('8 GPUs, --memory: only 1, 2, 4 and 8 GPU options, never 3, 5, 6 or 7', async () => {
    const r = await plan('--memory', '10GiB', '--limit', '10000', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as Json;
    expect(json.tensorParallel).toEqual({ sizes: [1, 2, 4, 8], dropped: [] });
    expect(new Set(json.options.map((o) => o.gpus.length))).toEqual(new Set([1, 2, 4, 8]));
    // C(8,1) + C(8,2) + C(8,4) + C(8,8): every subset of those sizes fits 10 GiB on an empty 8 × 80 GB node.
    expect(json.options).toHaveLength(8 + 28 + 70 + 1);
  });

  it('--gguf with 12 attention heads: 8 is dropped, and stderr says why', async () => {
    const r = await plan('--gguf', 'heads12.gguf', '--limit', '10000');
    expect(r.code).toBe(0);
    expect(r.err).toContain('gpualloc: tensor-parallel sizes 1, 2, 4 (default: powers of two up to 8 GPUs, as the model allows); dropped 8: 8 does not divide the 12 attention heads\n');
    const json = JSON.parse((await plan('--gguf', 'heads12.gguf', '--limit', '10000', '--json')).out) as Json;
    expect(json.tensorParallel.sizes).toEqual([1, 2, 4]);
    expect(json.tensorParallel.dropped).toEqual([{ size: 8, reason: '8 does not divide the 12 attention heads' }]);
    expect(new Set(json.options.map((o) => o.gpus.length))).toEqual(new Set([1, 2, 4]));
  });

  it('--gguf with 3 KV heads: sizes that can neither split nor replicate them are dropped', async () => {
    const json = JSON.parse((await plan('--gguf', 'kv3.gguf', '--json')).out) as Json;
    expect(json.tensorParallel.sizes).toEqual([1]);
    expect(json.tensorParallel.dropped.map((d) => d.size)).toEqual([2, 4, 8]);
    expect(json.tensorParallel.dropped[0].reason).toBe('2 GPUs cannot share 3 KV heads (they must divide them, or be a multiple of them)');
  });

  it('an explicit --tp wins, even a size the heads do not allow (with a warning)', async () => {
    const json = JSON.parse((await plan('--gguf', 'heads12.gguf', '--tp', '3,8', '--limit', '10000', '--json')).out) as Json & { tensorParallel: { warnings: string[] } };
    expect(json.tensorParallel.sizes).toEqual([3, 8]);
    expect(new Set(json.options.map((o) => o.gpus.length))).toEqual(new Set([3, 8]));
    expect(json.tensorParallel.warnings).toEqual([
      '--tp 3: 3 GPUs cannot share 4 KV heads (they must divide them, or be a multiple of them); planned anyway, as given',
      '--tp 8: 8 does not divide the 12 attention heads; planned anyway, as given',
    ]);
    const total = JSON.parse((await plan('--memory', '10GiB', '--tp', '3', '--json')).out) as Json;
    expect(total.options.every((o) => o.gpus.length === 3)).toBe(true);
  });

  it('a state of no nodes: the sizes line says the one size tried, up to 1 GPU (was "up to -Infinity GPUs")', async () => {
    await writeFile(join(dir, 'no-nodes.json'), JSON.stringify({ version: 1, nextSlot: 1, nodes: [] }));
    const r = await plan('--memory', '10GB', '--state', 'no-nodes.json');
    expect(r.code).toBe(1);
    expect(r.err).toContain('gpualloc: tensor-parallel sizes 1 (default: powers of two up to 1 GPU)\n');
  });
});

describe('the rule (vLLM)', () => {
  it('powers of two up to the GPU count', () => {
    expect(defaultTensorParallelSizes(8)).toEqual({ sizes: [1, 2, 4, 8], dropped: [] });
    expect(defaultTensorParallelSizes(6)).toEqual({ sizes: [1, 2, 4], dropped: [] });
    expect(defaultTensorParallelSizes(1)).toEqual({ sizes: [1], dropped: [] });
  });

  it('heads must divide; KV heads split when at least TP of them, else TP is a multiple of them', () => {
    expect(tensorParallelProblem(8, { heads: 64, kvHeads: 8 })).toBeUndefined();
    expect(tensorParallelProblem(8, { heads: 32, kvHeads: 2 })).toBeUndefined(); // 4 copies of each KV head
    expect(tensorParallelProblem(4, { heads: 32, kvHeads: 6 })).toMatch(/cannot share 6 KV heads/);
    expect(tensorParallelProblem(4, { heads: 30, kvHeads: 2 })).toBe('4 does not divide the 30 attention heads');
    expect(defaultTensorParallelSizes(16, { heads: 40, kvHeads: 8 }).sizes).toEqual([1, 2, 4, 8]);
  });
});
