// `gpualloc plan` as a user runs it: inventory in a temp dir, a state file, --commit, --gguf.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { estimateMemory } from '../../src/models/estimate.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';

const G = 2 ** 30;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-plan-'));
  await writeFile(
    join(dir, 'box.json'),
    JSON.stringify({
      version: 1,
      host: 'box',
      gpus: [
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 80 * G },
      ],
      links: [{ a: 0, b: 1, nvlink: 4 }],
    }),
  );
  await writeFile(join(dir, 'llama.gguf'), writeGguf(llamaSpec({ blocks: 32, embedding: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 128256, contextLength: 8192 })));
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['plan', ...argv], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

describe('gpualloc plan', () => {
  test('prints the ranked options as a table', async () => {
    const r = await run('--inventory', 'box.json', '--memory', '30GiB');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        '3 options for 30 GiB on box:',
        '#  GPUS  MEMORY/GPU  EVICT  SCORE',
        '-  ----  ----------  -----  -----',
        '1  0     30 GiB      -      0',
        '2  1     30 GiB      -      0',
        '3  0,1   15 GiB      -      400',
        '',
      ].join('\n'),
    );
  });

  test('nothing fits: exit 1 with per-GPU reasons', async () => {
    const r = await run('--inventory', 'box.json', '--memory', '200GiB');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/no option for 200 GiB/);
    expect(r.out).toMatch(/rejected GPUs \(2 GPU_TOO_SMALL\)/);
    expect(r.out).toMatch(/GPU 1 on node box: has 80 GiB in all, less than its share 100 GiB/);
  });

  test('--commit applies the best option to the state file; the next plan sees it', async () => {
    const state = join(dir, 'state.json');
    const a = await run('--inventory', 'box.json', '--memory', '70GiB', '--model', 'a', '--state', 'state.json', '--commit', '--json');
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out).committed).toBe('slot-1');
    const b = await run('--memory', '70GiB', '--model', 'b', '--state', 'state.json', '--commit', '--json');
    const plan = JSON.parse(b.out);
    expect(plan.options[0]).toEqual({ node: 'box', model: 'b', gpus: [1], memoryPerGpu: 70 * G, evict: [], score: 0 });
    expect(plan.rejected).toMatchObject([{ node: 'box', gpu: 0, code: 'INSUFFICIENT_MEMORY', shortBy: 25 * G }]);
    const saved = JSON.parse(await readFile(state, 'utf8'));
    expect(saved.nodes[0].slots.map((s: { id: string; gpus: number[] }) => [s.id, s.gpus])).toEqual([
      ['slot-1', [0]],
      ['slot-2', [1]],
    ]);
    const c = await run('--memory', '70GiB', '--state', 'state.json', '--commit');
    expect(c.code).toBe(1);
    expect(await readFile(state, 'utf8')).toBe(JSON.stringify(saved, null, 2) + '\n');
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('a truncated state file is a clear error and is left untouched', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"version":1,"nextSlot":1,"nodes":[{"id":"box","gpus":[{"ind');
    const r = await run('--memory', '10GiB', '--state', 'broken.json', '--commit');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--state broken\.json:\d+:\d+: .*(JSON|truncated)/);
    expect(await readFile(path, 'utf8')).toBe('{"version":1,"nextSlot":1,"nodes":[{"id":"box","gpus":[{"ind');
  });

  test('--gguf plans with estimateMemory(...).total', async () => {
    const { total } = await estimateMemory(join(dir, 'llama.gguf'), { contextLength: 8192 });
    const r = await run('--inventory', 'box.json', '--gguf', 'llama.gguf', '--context', '8192', '--tp', '1', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).options[0]).toMatchObject({ gpus: [0], memoryPerGpu: total });
  });

  test('usage errors exit 2', async () => {
    expect((await run('--inventory', 'box.json')).code).toBe(2);
    expect((await run('--inventory', 'box.json', '--memory', '10 parsecs')).code).toBe(2);
    expect((await run('--inventory', 'box.json', '--memory', '10GiB', '--commit')).code).toBe(2);
    expect((await run('--inventory', 'box.json', '--memory', '10GiB', '--policy', 'best')).code).toBe(2);
  });
});
