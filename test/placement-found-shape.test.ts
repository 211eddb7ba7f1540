// Every placement kernel result has makeFound's fields in makeFound's order: the ts kernels', the
// wasm kernels' views, for one node and for a cluster, and the empty result planPlacement uses
// without a kernel call. planPlacement and the cluster plan read these objects on every call; one
// field order is what lets V8 give them one hidden class (see makeFound).
import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine.js';
import { NOTHING_FOUND, makeFound, type ClusterSearch, type PlacementSearch } from '../src/placement.js';
import { engines } from './engines.js';

const { wasm, ts } = await engines();
const GIB = 2 ** 30;
const ORDER = Object.keys(makeFound(new Int32Array(0), new Int32Array(0), new Float64Array(0), new Int32Array(0), new Float64Array(0), new Float64Array(0), new Int32Array(0), new Int32Array(1), new Int32Array(0)));

/** The kernel results of one node's plan and one cluster plan on `engine`, caught on their way out. */
function results(engine: Engine): { placement: object[]; cluster: object[] } {
  const caught = { placement: [] as object[], cluster: [] as object[] };
  const k = engine.kernels;
  const placementSearch = k.placementSearch;
  const clusterSearch = k.clusterSearch;
  k.placementSearch = (s: PlacementSearch) => {
    const found = placementSearch.call(k, s);
    caught.placement.push(found);
    return found;
  };
  k.clusterSearch = (s: ClusterSearch) => {
    const found = clusterSearch.call(k, s);
    caught.cluster.push(found);
    return found;
  };
  try {
    const gpus = [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 80 * GIB }));
    const slots = [{ id: 'a', gpus: [1], memoryPerGpu: 60 * GIB, stale: true }];
    const plan = engine.planPlacement({ gpus, slots, memory: 100 * GIB, tensorParallelSizes: [2], allowEviction: true });
    expect(plan.options.length).toBeGreaterThan(0);
    const state = engine.createClusterState({ nodes: [{ id: 'n1', gpus }, { id: 'n2', gpus }] });
    expect(state.plan({ memory: 100 * GIB, tensorParallelSizes: [2] }).options.length).toBeGreaterThan(0);
  } finally {
    k.placementSearch = placementSearch;
    k.clusterSearch = clusterSearch;
  }
  return caught;
}

describe('placement kernel results have one shape', () => {
  it.each([
    ['wasm', wasm],
    ['ts', ts],
  ] as const)('%s kernels: one node and a cluster', (_name, engine) => {
    const { placement, cluster } = results(engine);
    expect(placement.length).toBe(1);
    expect(cluster.length).toBe(1);
    expect(Object.keys(placement[0])).toEqual(ORDER);
    expect(Object.keys(cluster[0])).toEqual(ORDER);
  });

  it('the empty result planPlacement uses without a kernel call', () => {
    expect(Object.keys(NOTHING_FOUND)).toEqual(ORDER);
    expect(Object.isFrozen(NOTHING_FOUND)).toBe(false);
    expect(NOTHING_FOUND.count).toBe(0);
    expect(NOTHING_FOUND.evictStart).toEqual(new Int32Array(1));
  });
});
