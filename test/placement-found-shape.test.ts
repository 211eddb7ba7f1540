// Every placement kernel result shares one hidden class: the ts kernels', the wasm kernels' views,
// for one node and for a cluster, and the empty result planPlacement uses without a kernel call.
// planPlacement and the cluster plan read these objects on every call; one hidden class keeps those
// reads monomorphic (see makeFound). Checked with V8's own %HaveSameMap in a child process over the
// built engine (test/global-setup.ts rebuilds dist/ when it is older than its sources).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from './cli-helpers.js';

const script = `
  const { createEngine } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', 'index.js')).href)});
  const { NOTHING_FOUND } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', 'placement.js')).href)});
  const GIB = 2 ** 30;
  const found = { empty: NOTHING_FOUND };
  for (const backend of ['wasm', 'ts']) {
    const engine = await createEngine({ backend });
    const k = engine.kernels;
    const { placementSearch, clusterSearch } = k;
    k.placementSearch = (s) => (found[backend + ' node'] = placementSearch.call(k, s));
    k.clusterSearch = (s) => (found[backend + ' cluster'] = clusterSearch.call(k, s));
    const gpus = [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 80 * GIB }));
    engine.planPlacement({ gpus, slots: [{ id: 'a', gpus: [1], memoryPerGpu: 60 * GIB, stale: true }], memory: 100 * GIB, tensorParallelSizes: [2] });
    engine.createClusterState({ nodes: [{ id: 'n1', gpus }, { id: 'n2', gpus }] }).plan({ memory: 100 * GIB, tensorParallelSizes: [2] });
  }
  const names = Object.keys(found);
  console.log(JSON.stringify({ names, sameMap: names.map((n) => %HaveSameMap(found[n], NOTHING_FOUND)), count: names.map((n) => found[n].count) }));
`;

it('the results of both kernels, for a node and a cluster, and the empty result share one hidden class', () => {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  const { names, sameMap, count } = JSON.parse(run.stdout) as { names: string[]; sameMap: boolean[]; count: number[] };
  expect(names).toEqual(['empty', 'wasm node', 'wasm cluster', 'ts node', 'ts cluster']);
  expect(Object.fromEntries(names.map((n, i) => [n, sameMap[i]]))).toEqual(Object.fromEntries(names.map((n) => [n, true])));
  // Real results (something kept), and the empty one empty.
  expect(count[0]).toBe(0);
  for (const c of count.slice(1)) expect(c).toBeGreaterThan(0);
});
