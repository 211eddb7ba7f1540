// `gpualloc state list|show` on a state holding pods (issue 20): a slot's share, CPU and host memory
// show as extra table columns and show rows, and in --json as milli / cpu / hostMemory; nodes that
// track CPU, host memory or a GPU model get a line each (and "nodes" in --json) with what their slots
// hold; a slot without GPUs shows "-" / "none". Slots and nodes without pod fields print as before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;
const MIB = 2 ** 20;

/** A share pod, a CPU-only pod and a model slot on a node that tracks pods, and a plain node with a model. */
function podState(): string {
  const state = ts.createClusterState({
    nodes: [
      { id: 'a100', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'A100' },
      { id: 'plain', gpus: [{ index: 0, memoryTotal: 16 * G }] },
    ],
  });
  state.commit({ node: 'a100', gpus: [1], memoryPerGpu: Math.floor((250 * 80 * G) / 1000), milli: 250, cpu: 4000, hostMemory: 8 * G, evict: [], score: 0 }, { id: 'share' });
  state.commit({ node: 'a100', gpus: [], memoryPerGpu: 0, cpu: 2500, hostMemory: 512 * MIB, evict: [], score: 0 }, { id: 'cpu-only' });
  state.commit({ node: 'a100', gpus: [0], memoryPerGpu: 40 * G, model: 'llama', evict: [], score: 0 }, { id: 'llm' });
  state.commit({ node: 'plain', gpus: [0], memoryPerGpu: 8 * G, model: 'embed', evict: [], score: 0 }, { id: 'emb' });
  return JSON.stringify(state.toJSON(), null, 2);
}

describe('gpualloc state list / show with pods', () => {
  it('the table adds SHARE, CPU and HOST MEMORY columns, and a line per node that tracks pods', async () => {
    await inTempDir('gpualloc-state-pods-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, podState());
      const r = await cli(['state', 'list', '--state', file]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(`4 slots in ${file}:`);
      expect(lines[1].split(/\s{2,}/)).toEqual(['ID', 'NODE', 'GPUS', 'MEMORY/GPU', 'MODEL', 'IDLE', 'STALE', 'SHARE', 'CPU', 'HOST MEMORY']);
      expect(lines.slice(3, 7).map((l) => l.split(/\s{2,}/))).toEqual([
        ['share', 'a100', '1', '20 GiB', '-', '?', '-', '0.25', '4', '8 GiB'],
        ['cpu-only', 'a100', '-', '-', '-', '?', '-', '-', '2500m', '512 MiB'],
        ['llm', 'a100', '0', '40 GiB', 'llama', '?', '-', '-', '-', '-'],
        ['emb', 'plain', '0', '8 GiB', 'embed', '?', '-', '-', '-', '-'],
      ]);
      expect(lines.slice(7)).toEqual(['node a100: 6.5 of 16 CPUs held, 8.5 GiB of 64 GiB host memory held, GPU model A100']);
    });
  });

  it('--json adds milli / cpu / hostMemory to pod slots only, and "nodes" for the nodes that track pods', async () => {
    await inTempDir('gpualloc-state-pods-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, podState());
      const r = await cli(['state', 'list', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toStrictEqual({
        slots: [
          { id: 'share', node: 'a100', gpus: [1], memoryPerGpu: Math.floor((250 * 80 * G) / 1000), model: null, lastActivity: null, stale: false, milli: 250, cpu: 4000, hostMemory: 8 * G },
          { id: 'cpu-only', node: 'a100', gpus: [], memoryPerGpu: 0, model: null, lastActivity: null, stale: false, cpu: 2500, hostMemory: 512 * MIB },
          { id: 'llm', node: 'a100', gpus: [0], memoryPerGpu: 40 * G, model: 'llama', lastActivity: null, stale: false },
          { id: 'emb', node: 'plain', gpus: [0], memoryPerGpu: 8 * G, model: 'embed', lastActivity: null, stale: false },
        ],
        nodes: [{ id: 'a100', cpu: 16_000, cpuHeld: 6500, hostMemory: 64 * G, hostMemoryHeld: 8 * G + 512 * MIB, gpuModel: 'A100' }],
      });
    });
  });

  it("show prints a pod's share, CPU, host memory and its node's figures; a model slot on a plain node as before", async () => {
    await inTempDir('gpualloc-state-pods-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, podState());
      const share = await cli(['state', 'show', 'share', '--state', file]);
      expect(share.stdout).toBe(
        [
          'slot share',
          '  node          a100',
          '  gpus          1',
          '  memory/gpu    20 GiB (20 GiB in all)',
          '  model         -',
          '  last activity unknown',
          '  stale         no',
          '  share         0.25 of each GPU (250 milli)',
          '  cpu           4 (4000 milli-CPU)',
          '  host memory   8 GiB',
          '  on node       6.5 of 16 CPUs held, 8.5 GiB of 64 GiB host memory held, GPU model A100',
          '',
        ].join('\n'),
      );
      const cpuOnly = await cli(['state', 'show', 'cpu-only', '--state', file]);
      expect(cpuOnly.stdout).toMatch(/^slot cpu-only\n  node +a100\n  gpus +none\n  memory\/gpu +-\n/);
      expect(cpuOnly.stdout).toContain('\n  cpu           2500m (2500 milli-CPU)\n  host memory   512 MiB\n');
      const json = JSON.parse((await cli(['state', 'show', 'cpu-only', '--state', file, '--json'])).stdout);
      expect(json).toStrictEqual({
        slot: { id: 'cpu-only', node: 'a100', gpus: [], memoryPerGpu: 0, model: null, lastActivity: null, stale: false, cpu: 2500, hostMemory: 512 * MIB },
        node: { id: 'a100', cpu: 16_000, cpuHeld: 6500, hostMemory: 64 * G, hostMemoryHeld: 8 * G + 512 * MIB, gpuModel: 'A100' },
      });
      const plain = await cli(['state', 'show', 'emb', '--state', file]);
      expect(plain.stdout).toBe('slot emb\n  node          plain\n  gpus          0\n  memory/gpu    8 GiB (8 GiB in all)\n  model         embed\n  last activity unknown\n  stale         no\n');
      expect(JSON.parse((await cli(['state', 'show', 'emb', '--state', file, '--json'])).stdout)).toStrictEqual({
        slot: { id: 'emb', node: 'plain', gpus: [0], memoryPerGpu: 8 * G, model: 'embed', lastActivity: null, stale: false },
      });
      // Releasing a CPU-only pod names what it held.
      const released = await cli(['state', 'release', 'cpu-only', '--state', file]);
      expect(released.stdout).toBe('released slot cpu-only (2500m CPU, 512 MiB host memory on a100)\n');
    });
  });

  it('--help says what list shows of pods and what release frees', async () => {
    const help = (await cli(['state', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('with pods, their share, CPU and host memory, and a line per node that tracks CPU, host memory or a GPU model');
    expect(help).toContain("(and a pod's CPU and host memory on its node)");
  });

  it('a CPU-only pod of whole CPUs is released as "N CPUs" ("1 CPU" for one)', async () => {
    await inTempDir('gpualloc-state-pods-', async (dir) => {
      const file = join(dir, 'state.json');
      const state = ts.createClusterState({ nodes: [{ id: 'box', gpus: [], cpu: 8000 }] });
      state.commit({ node: 'box', gpus: [], memoryPerGpu: 0, cpu: 2000, evict: [], score: 0 }, { id: 'two' });
      state.commit({ node: 'box', gpus: [], memoryPerGpu: 0, cpu: 1000, evict: [], score: 0 }, { id: 'one' });
      writeFileSync(file, JSON.stringify(state.toJSON()));
      expect((await cli(['state', 'release', 'two', '--state', file])).stdout).toBe('released slot two (2 CPUs on box)\n');
      expect((await cli(['state', 'release', 'one', '--state', file])).stdout).toBe('released slot one (1 CPU on box)\n');
    });
  });
});
