// Issue 18 point 1, CLI side: memory that other processes hold on a GPU (an inventory's memoryUsed or
// its processes, NVML's reading on the host path) is taken memory for `gpualloc plan --inventory`,
// for a `--state FILE` created from the inventory, and for this host's GPUs read through NVML. It is
// shown as `in use by other processes`, never evicted, and a slot's own memory is not counted twice.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, dgxA100 } from '../fixtures/nvml-double/machines.js';
import { inTempDir } from '../support/cli.js';

const G = 2 ** 30;

/** A 4 × 80 GiB host: GPU 0 has 70 GiB in use (memoryUsed), GPU 1 30 GiB (only its processes say so), GPU 2 is idle, GPU 3 has 10 GiB in use. */
const BUSY = {
  version: 1,
  host: 'busy',
  source: 'file',
  gpus: [
    { index: 0, memoryTotal: 80 * G, memoryUsed: 70 * G, processes: [{ pid: 4242, usedMemory: 70 * G }] },
    {
      index: 1,
      memoryTotal: 80 * G,
      processes: [
        { pid: 17, usedMemory: 20 * G },
        { pid: 18, usedMemory: 10 * G },
      ],
    },
    { index: 2, memoryTotal: 80 * G, memoryUsed: 0 },
    { index: 3, memoryTotal: 80 * G, memoryUsed: 10 * G },
  ],
  links: [
    { a: 0, b: 1, nvlink: 4 },
    { a: 2, b: 3, nvlink: 4 },
  ],
};

type Plan = { options: Array<{ node?: string; gpus: number[]; memoryPerGpu: number; evict: string[] }>; rejected: Array<{ gpu: number; code: string; message: string }>; committed?: string };

async function run(cwd: string, argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t), env, cwd });
  return { code, out, err };
}

describe('gpualloc plan on a busy inventory', () => {
  it('--inventory: GPUs that other processes fill get no option, and the rejections say how much is in use by other processes', async () => {
    await inTempDir('gpualloc-busy-', async (dir) => {
      writeFileSync(join(dir, 'busy.json'), JSON.stringify(BUSY));
      const r = await run(dir, ['plan', '--inventory', 'busy.json', '--memory', '60GiB', '--tp', '1', '--json']);
      expect(r.code, r.err).toBe(0);
      const plan = JSON.parse(r.out) as Plan;
      // Only GPU 2 (80 GiB free) and GPU 3 (70 GiB free) can take 60 GiB; spread puts the emptier first.
      expect(plan.options.map((o) => o.gpus)).toEqual([[2], [3]]);
      const byGpu = new Map(plan.rejected.map((x) => [x.gpu, x]));
      expect([...byGpu.keys()].sort()).toEqual([0, 1]);
      expect(byGpu.get(0)!.code).toBe('INSUFFICIENT_MEMORY');
      expect(byGpu.get(0)!.message).toMatch(/70 GiB in use by other processes/);
      expect(byGpu.get(1)!.message).toMatch(/30 GiB in use by other processes/);
      // The table says the same to a person.
      const text = await run(dir, ['plan', '--inventory', 'busy.json', '--memory', '60GiB', '--tp', '1']);
      expect(text.out).toMatch(/^2 options for 60 GiB on busy:/);
      expect(text.out).toMatch(/GPU 0 on node busy: .*70 GiB in use by other processes/);
      // Every GPU with used memory is named, the ones that still take a share included.
      const busyLine = 'in use by other processes (counted as taken, never evicted): GPU 0 70 GiB, GPU 1 30 GiB, GPU 3 10 GiB\n';
      expect(text.out.endsWith(`\n\n${busyLine}`)).toBe(true);
      const small = await run(dir, ['plan', '--inventory', 'busy.json', '--memory', '5GiB', '--tp', '1']);
      expect(small.out).toMatch(/^4 options for 5 GiB on busy:/);
      expect(small.out).toContain(busyLine);
      const idle = await run(dir, ['plan', '--preset', 'dgx-a100', '--memory', '5GiB', '--tp', '1']);
      expect(idle.out).not.toContain('in use by other processes');
      // Nothing fits 75 GiB on one GPU but GPU 2: the used memory is never offered for eviction.
      const big = JSON.parse((await run(dir, ['plan', '--inventory', 'busy.json', '--memory', '75GiB', '--tp', '1', '--json'])).out) as Plan;
      expect(big.options.map((o) => [o.gpus, o.evict])).toEqual([[[2], []]]);
    });
  });

  it('--state FILE created from the inventory keeps the used memory: commits fill only the free memory, and releasing every slot frees none of it', async () => {
    await inTempDir('gpualloc-busy-', async (dir) => {
      writeFileSync(join(dir, 'busy.json'), JSON.stringify(BUSY));
      const commit = async (memory: string, model: string) =>
        run(dir, ['plan', '--inventory', 'busy.json', '--memory', memory, '--tp', '1', '--model', model, '--state', 'state.json', '--commit', '--json']);
      const first = await commit('60GiB', 'a');
      expect(first.code, first.err).toBe(0);
      expect((JSON.parse(first.out) as Plan).options[0].gpus).toEqual([2]);
      const saved = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
      expect(saved.nodes[0].gpus).toEqual([
        { index: 0, memoryTotal: 80 * G, memoryUsed: 70 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 30 * G },
        { index: 2, memoryTotal: 80 * G },
        { index: 3, memoryTotal: 80 * G, memoryUsed: 10 * G },
      ]);
      const second = await commit('60GiB', 'b');
      expect((JSON.parse(second.out) as Plan).options[0].gpus).toEqual([3]);
      // 80 GiB on GPU 0 and 1 minus the used memory leaves 10 and 50; GPU 2 and 3 keep 20 and 10.
      const third = await commit('60GiB', 'c');
      expect(third.code).toBe(1);
      const none = JSON.parse(third.out) as Plan;
      expect(none.options).toEqual([]);
      expect(none.rejected.find((x) => x.gpu === 0)!.message).toMatch(/in use by other processes/);
      // Mark both slots stale and plan for another model: only the slots are evicted, never the used memory.
      for (const slot of ['slot-1', 'slot-2']) expect((await run(dir, ['state', 'stale', slot, '--state', 'state.json'])).code).toBe(0);
      const evicting = JSON.parse((await run(dir, ['plan', '--memory', '75GiB', '--tp', '1', '--model', 'd', '--state', 'state.json', '--json'])).out) as Plan;
      expect(evicting.options.map((o) => [o.gpus, o.evict])).toEqual([[[2], ['slot-1']]]);
      for (const slot of ['slot-1', 'slot-2']) expect((await run(dir, ['state', 'release', slot, '--state', 'state.json'])).code).toBe(0);
      const listed = await run(dir, ['state', 'list', '--state', 'state.json']);
      expect(listed.out).toBe('no slots in state.json\nin use by other processes (counted as taken, never evicted): GPU 0 70 GiB, GPU 1 30 GiB, GPU 3 10 GiB\n');
      const empty = JSON.parse((await run(dir, ['plan', '--memory', '60GiB', '--tp', '1', '--state', 'state.json', '--json'])).out) as Plan;
      expect(empty.options.map((o) => o.gpus)).toEqual([[2], [3]]);
    });
  });
});

describe('gpualloc plan on this host through NVML (the test double)', () => {
  let h: DoubleHarness;
  beforeAll(() => {
    h = doubleHarness();
    const machine = dgxA100();
    // GPU 0: a 70 GiB training job; GPU 1: two processes holding 50 GiB.
    machine.gpus[0].used = 70 * G;
    machine.gpus[0].procs = [{ pid: 4242, used: 70 * G }];
    machine.gpus[1].used = 50 * G;
    machine.gpus[1].procs = [
      { pid: 31, used: 30 * G },
      { pid: 32, used: 20 * G },
    ];
    h.use(configText(machine));
  });

  it("NVML's used memory is taken memory: no option on GPU 0 or 1, each rejection names its used memory", async () => {
    const r = await run(h.dir, ['plan', '--memory', '60GiB', '--tp', '1', '--json'], { GPUALLOC_NVML_LIBRARY: h.current });
    expect(r.code, r.err).toBe(0);
    const plan = JSON.parse(r.out) as Plan;
    expect(plan.options.length).toBeGreaterThan(0);
    for (const o of plan.options)
      expect(
        o.gpus.some((g) => g === 0 || g === 1),
        JSON.stringify(o),
      ).toBe(false);
    const rejected = new Map(plan.rejected.map((x) => [x.gpu, x.message]));
    expect(rejected.get(0)).toMatch(/70 GiB in use by other processes/);
    expect(rejected.get(1)).toMatch(/50 GiB in use by other processes/);
    // A 20 GiB model still fits beside the 50 GiB job on GPU 1, but not beside the 70 GiB one on GPU 0.
    const small = JSON.parse((await run(h.dir, ['plan', '--memory', '20GiB', '--tp', '1', '--limit', '16', '--json'], { GPUALLOC_NVML_LIBRARY: h.current })).out) as Plan;
    const gpus = small.options.map((o) => o.gpus[0]);
    expect(gpus).toContain(1);
    expect(gpus).not.toContain(0);
  });

  it('--state FILE with a fresh --inventory reads the used memory again, less what the slots hold (never counted twice)', async () => {
    await inTempDir('gpualloc-busy-', async (dir) => {
      writeFileSync(join(dir, 'busy.json'), JSON.stringify(BUSY));
      const first = await run(dir, ['plan', '--inventory', 'busy.json', '--memory', '20GiB', '--tp', '1', '--model', 'a', '--state', 'state.json', '--commit', '--json']);
      expect((JSON.parse(first.out) as Plan).options[0].gpus).toEqual([2]);
      // Later: the job on GPU 0 is gone; NVML now counts slot-1's own 20 GiB process on GPU 2, plus 5 GiB of a newcomer.
      const later = structuredClone(BUSY);
      later.gpus[0] = { index: 0, memoryTotal: 80 * G, memoryUsed: 0, processes: [] };
      later.gpus[2] = {
        index: 2,
        memoryTotal: 80 * G,
        memoryUsed: 25 * G,
        processes: [
          { pid: 900, usedMemory: 20 * G },
          { pid: 901, usedMemory: 5 * G },
        ],
      };
      writeFileSync(join(dir, 'later.json'), JSON.stringify(later));
      const r = await run(dir, ['plan', '--inventory', 'later.json', '--memory', '70GiB', '--tp', '1', '--model', 'b', '--state', 'state.json', '--commit', '--json']);
      expect(r.code, r.err).toBe(0);
      expect((JSON.parse(r.out) as Plan).options[0].gpus).toEqual([0]);
      const saved = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
      expect(saved.nodes[0].gpus).toEqual([
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 30 * G },
        { index: 2, memoryTotal: 80 * G, memoryUsed: 5 * G },
        { index: 3, memoryTotal: 80 * G, memoryUsed: 10 * G },
      ]);
      // GPU 2: 80 − 20 (slot-1) − 5 (the newcomer) = 55 GiB free, not 35.
      const fit = JSON.parse((await run(dir, ['plan', '--memory', '55GiB', '--tp', '1', '--state', 'state.json', '--json'])).out) as Plan;
      expect(fit.options.map((o) => o.gpus)).toContainEqual([2]);
      // An inventory of other hardware is refused and changes nothing.
      const text = readFileSync(join(dir, 'state.json'), 'utf8');
      const other = structuredClone(BUSY);
      other.gpus[3].memoryTotal = 40 * G;
      writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
      const refused = await run(dir, ['plan', '--inventory', 'other.json', '--memory', '1GiB', '--state', 'state.json', '--commit']);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/--inventory other\.json: the GPUs of node "busy" .* are not those in state\.json/);
      writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ ...BUSY, host: 'elsewhere' }));
      expect((await run(dir, ['plan', '--inventory', 'elsewhere.json', '--memory', '1GiB', '--state', 'state.json', '--commit'])).err).toMatch(
        /describes node "elsewhere", which is not in state\.json \(its nodes: busy\)/,
      );
      expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe(text);
    });
  });
});
