// `gpualloc state list|show|release --store URL` on a state holding pods prints exactly what the same
// commands print for the same state in a file: the share, CPU and host memory columns and rows, the
// node lines, and the JSON's milli / cpu / hostMemory and "nodes" (issue 20, through migration 2).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { cli, inTempDir } from '../support/cli.js';
import { freshSchema, noPg, pgUrl } from './pg-context.js';

const G = 2 ** 30;

describe.skipIf(noPg)('gpualloc state --store URL with pods', () => {
  it('list, show and release print what they print for a state file', async () => {
    const engine = await openEngine({ backend: 'ts' });
    const state = engine.createClusterState({
      nodes: [
        { id: 'a100', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'A100' },
        { id: 'cpu-box', gpus: [], cpu: 8000 },
        { id: 'plain', gpus: [{ index: 0, memoryTotal: 16 * G }] },
      ],
    });
    state.commit({ node: 'a100', gpus: [1], memoryPerGpu: Math.floor((250 * 80 * G) / 1000), milli: 250, cpu: 4000, hostMemory: 8 * G, evict: [], score: 0 }, { id: 'share' });
    state.commit({ node: 'cpu-box', gpus: [], memoryPerGpu: 0, cpu: 2500, evict: [], score: 0 }, { id: 'cpu-only' });
    state.commit({ node: 'plain', gpus: [0], memoryPerGpu: 8 * G, model: 'embed', evict: [], score: 0 }, { id: 'emb' });
    const schema = freshSchema('cli_pods');
    const store = await PostgresStore.open(pgUrl, { schema });
    try {
      await store.init(state);
    } finally {
      await store.close();
    }
    const url = `${pgUrl}&schema=${schema}`;
    await inTempDir('gpualloc-store-cli-pods-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, JSON.stringify(state.toJSON(), null, 2));
      const steps = [
        ['state', 'list'],
        ['state', 'list', '--json'],
        ['state', 'show', 'share'],
        ['state', 'show', 'cpu-only', '--json'],
        ['state', 'show', 'emb'],
        ['state', 'release', 'cpu-only'],
        ['state', 'list'],
      ];
      const scrub = (t: string) =>
        t
          .replaceAll(file, 'STATE')
          .replaceAll(url, 'STATE')
          .replace(/postgres:\/\/\S+/g, 'STATE');
      for (const step of steps) {
        const onFile = await cli([...step, '--state', file]);
        const onStore = await cli([...step, '--store', url]);
        expect({ step, code: onStore.code, out: scrub(onStore.stdout) }).toEqual({ step, code: 0, out: scrub(onFile.stdout) });
      }
      const first = await cli(['state', 'list', '--store', url, '--json']);
      expect(JSON.parse(first.stdout)).toStrictEqual({
        slots: [
          { id: 'share', node: 'a100', gpus: [1], memoryPerGpu: Math.floor((250 * 80 * G) / 1000), model: null, lastActivity: null, stale: false, milli: 250, cpu: 4000, hostMemory: 8 * G },
          { id: 'emb', node: 'plain', gpus: [0], memoryPerGpu: 8 * G, model: 'embed', lastActivity: null, stale: false },
        ],
        nodes: [
          { id: 'a100', cpu: 16_000, cpuHeld: 4000, hostMemory: 64 * G, hostMemoryHeld: 8 * G, gpuModel: 'A100' },
          { id: 'cpu-box', cpu: 8000, cpuHeld: 0 },
        ],
      });
      expect((await cli(['state', 'list', '--store', url])).stdout).toContain('\nnode a100: 4 of 16 CPUs held, 8 GiB of 64 GiB host memory held, GPU model A100\nnode cpu-box: 0 of 8 CPUs held\n');
    });
  });
});
