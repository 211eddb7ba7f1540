// Plans across nodes come from a planner the engine hands its cluster states: openEngine's always
// have it, openPlacementEngine's only with `multiNode: multiNodePlanner` (so a placement-only page
// does not ship it). With it, a state plans as openEngine's does (fresh, restored and stored); without
// it, one node at a time, and it says so where that matters.
import { describe, expect, it } from 'vitest';
import { multiNodePlanner } from '../../src/cluster/multi-node.js';
import { openPlacementEngine } from '../../src/engine.js';
import type { ClusterNode } from '../../src/index.js';
import { MemoryStore, openClusterState } from '../../src/store/index.js';
import { engines, errorOf } from '../support/engines.js';

const { wasm } = await engines();
const GB = 1e9;
const withPlanner = await openPlacementEngine({ multiNode: multiNodePlanner });
const oneNode = await openPlacementEngine();

function node(id: string, rack: string, gpus = 4): ClusterNode {
  return { id, gpus: Array.from({ length: gpus }, (_, index) => ({ index, memoryTotal: 80 * GB })), labels: { rack } };
}
const nodes = [node('a', 'r1'), node('b', 'r2'), node('c', 'r1', 8)];

describe('the multi-node planner, handed to cluster states by the engine', () => {
  it('plans across nodes on a placement engine given multiNodePlanner exactly as on openEngine, fresh, restored and stored', async () => {
    // Across nodes because no node holds it; also when one node can (maxNodes); by label; none (the reasons compared).
    const requests = [{ memory: 900 * GB }, { memory: 500 * GB, maxNodes: 2 }, { memory: 900 * GB, topology: { preferred: ['rack'] } }, { memory: 1200 * GB, maxNodes: 3 }];
    const full = wasm.createClusterState({ nodes });
    const mine = withPlanner.createClusterState({ nodes });
    for (const request of requests) {
      const plan = full.plan(request);
      expect(plan.options.some((o) => o.parts !== undefined)).toBe(request.memory < 1000 * GB);
      expect(mine.plan(request)).toEqual(plan);
    }
    const id = full.commit(full.plan(requests[0]).options[0]);
    expect(mine.commit(mine.plan(requests[0]).options[0])).toBe(id);
    const restored = withPlanner.restoreClusterState(full.toJSON());
    const stored = await openClusterState(withPlanner, MemoryStore.create(withPlanner, { nodes }));
    await stored.commit(stored.plan(requests[0]).options[0]);
    for (const request of requests.slice(1)) {
      const plan = full.plan(request);
      expect(restored.plan(request)).toEqual(plan);
      expect(stored.plan(request)).toEqual(plan);
    }
  });

  it('without it, a model no node holds gets NO_VIABLE_OPTION saying that the state plans on one node at a time', () => {
    const state = oneNode.createClusterState({ nodes });
    const plan = state.plan({ memory: 900 * GB });
    expect(plan.options).toEqual([]);
    expect(plan.reason?.code).toBe('NO_VIABLE_OPTION');
    // The one-node plan's reason stands, and what was not searched is said after it.
    expect(plan.reason?.message).toMatch(
      /^no set of 1\.\.n GPUs has room for 838 GiB.*; no node can hold 838 GiB, and this state plans on one node at a time \(openPlacementEngine\(\{ multiNode: multiNodePlanner \}\) or openEngine\(\) plans across nodes\)$/,
    );
    expect(plan.rejected).toEqual(wasm.createClusterState({ nodes }).plan({ memory: 900 * GB, maxNodes: 1 }).rejected);
  });

  it('without it, one-node plans are those of openEngine, and maxNodes ≥ 2 is INVALID_ARGUMENT naming maxNodes', () => {
    const state = oneNode.createClusterState({ nodes });
    const full = wasm.createClusterState({ nodes });
    for (const request of [{ memory: 200 * GB }, { memory: 200 * GB, maxNodes: 1 }, { memory: 600 * GB }]) expect(state.plan(request)).toEqual(full.plan(request));
    const error = errorOf(() => state.plan({ memory: 200 * GB, maxNodes: 2 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe('maxNodes');
    expect(error.message).toMatch(/^maxNodes: 2: this state plans on one node at a time/);
    // A state restored on such an engine, or kept in its store, is the same.
    expect(() => oneNode.restoreClusterState(full.toJSON()).plan({ memory: 900 * GB, maxNodes: 3 })).toThrow(/maxNodes: 3: this state plans on one node at a time/);
  });

  it('without it, a slot across nodes committed elsewhere is still released and counted', () => {
    const full = wasm.createClusterState({ nodes });
    const option = full.plan({ memory: 900 * GB }).options[0];
    const id = full.commit(option);
    const state = oneNode.restoreClusterState(full.toJSON());
    expect(state.usage()).toEqual(full.usage());
    state.release(id);
    expect(state.listSlots()).toEqual([]);
    const again = state.commit(option);
    expect(state.listSlots().map((s) => [s.id, s.parts])).toEqual([[again, option.parts]]);
  });

  it("rejects a multiNode option that is not the planner, and openEngine's options have no multiNode", async () => {
    await expect(openPlacementEngine({ multiNode: {} as never })).rejects.toThrow(/^options\.multiNode: expected multiNodePlanner, got \{\}/);
    await expect(openPlacementEngine({ multiNode: true as never })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'options.multiNode' }));
    const { openEngine } = await import('../../src/engine.js');
    await expect(openEngine({ multiNode: multiNodePlanner } as never)).rejects.toThrow(/options\.multiNode: unknown field/);
  });
});
