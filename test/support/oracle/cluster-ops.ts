// The random-operation generators and the step-by-step oracle check shared by the ClusterState.plan
// oracle tests (state-index-oracle, state-realistic-oracle): random clusters and requests, random
// commit / release / markStale sequences applied to both backends in lockstep, and after every step
// the plan compared with the brute-force merge of every node planned alone (cluster-reference).

import fc from 'fast-check';
import { expect } from 'vitest';
import type { ClusterNode, ClusterPlanRequest, ClusterState } from '../../../src/cluster/state.js';
import type { Engine } from '../../../src/engine.js';
import { referencePlan } from '../cluster-reference.js';

/** A cluster of 1..maxNodes nodes from `arbNode`, with IDs that are not in node order. */
export function arbClusterOf(arbNode: (id: string) => fc.Arbitrary<ClusterNode>, maxNodes: number): fc.Arbitrary<ClusterNode[]> {
  return fc.integer({ min: 1, max: maxNodes }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, j) => arbNode(`node-${(j * 7) % 13}-${j}`))));
}

/** A plan request of 1..maxGiB GiB per replica, models a-c, the given policies (duplicates weigh more) and tensor-parallel sizes (or none). */
export function arbRequestOf(maxGiB: number, policies: Array<'spread' | 'pack'>, tensorParallelSizes: fc.Arbitrary<number[]>): fc.Arbitrary<ClusterPlanRequest> {
  return fc
    .record({
      memory: fc.integer({ min: 1, max: maxGiB }).map((x) => x * 2 ** 30),
      model: fc.constantFrom('a', 'b', 'c'),
      policy: fc.constantFrom<'spread' | 'pack'>(...policies),
      limit: fc.integer({ min: 1, max: 20 }),
      allowEviction: fc.boolean(),
      tensorParallelSizes: fc.option(tensorParallelSizes, { nil: undefined }),
    })
    .map((r) => {
      const out: ClusterPlanRequest = { memory: r.memory, model: r.model, policy: r.policy, limit: r.limit, allowEviction: r.allowEviction };
      if (r.tensorParallelSizes !== undefined) out.tensorParallelSizes = r.tensorParallelSizes;
      return out;
    });
}

/** One step of a random sequence: commit an option of a plan (then maybe mark it stale), release a slot, or mark one stale / not stale. */
export type Op = { kind: 'commit'; req: ClusterPlanRequest; pick: number; stale: boolean } | { kind: 'release'; pick: number } | { kind: 'stale'; pick: number; stale: boolean };

/** Random steps with requests from `arbRequest`, the three kinds weighted as given. */
export function arbOpOf(arbRequest: fc.Arbitrary<ClusterPlanRequest>, weights: { commit: number; release: number; stale: number }): fc.Arbitrary<Op> {
  return fc.oneof(
    { weight: weights.commit, arbitrary: fc.record({ kind: fc.constant('commit' as const), req: arbRequest, pick: fc.nat(), stale: fc.boolean() }) },
    { weight: weights.release, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
    { weight: weights.stale, arbitrary: fc.record({ kind: fc.constant('stale' as const), pick: fc.nat(), stale: fc.boolean() }) },
  );
}

/** Applies `op` to `state` at time `at` (a commit with no option, or a release / mark with no slot, does nothing). */
export function apply(state: ClusterState, op: Op, at: number): void {
  if (op.kind === 'commit') {
    const options = state.plan({ ...op.req, maxNodes: 1 }).options;
    if (options.length === 0) return;
    const id = state.commit(options[op.pick % options.length], { lastActivity: at });
    if (op.stale) state.markStale(id);
    return;
  }
  const slots = state.listSlots();
  if (slots.length === 0) return;
  const id = slots[op.pick % slots.length].id;
  if (op.kind === 'release') state.release(id);
  else state.markStale(id, op.stale);
}

/**
 * Applies `ops` to a wasm and a ts ClusterState of `nodes` in lockstep; after every step both
 * states are identical and both plan the step's request (a commit's own, else a probe) exactly as
 * the brute-force merge of one-node plans does (`maxNodes: 1`: plans across nodes have their own
 * oracle, test/cluster/multi-node-oracle.test.ts). Returns the two states.
 */
export function checkOpsAgainstReference(wasm: Engine, ts: Engine, nodes: ClusterNode[], ops: Op[], probes: ClusterPlanRequest[]): ClusterState[] {
  const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
  ops.forEach((op, t) => {
    for (const state of states) apply(state, op, t);
    // Both backends made the same decisions.
    expect(states[0].toJSON()).toEqual(states[1].toJSON());
    const req = op.kind === 'commit' ? op.req : probes[t % probes.length];
    const expected = referencePlan(ts, states[1].toJSON(), req);
    for (const state of states) expect(state.plan({ ...req, maxNodes: 1 }).options).toEqual(expected);
  });
  return states;
}

/** A small seeded linear congruential generator: `rand(n)` is an integer in [0, n). */
export function lcg(seed: number): (n: number) => number {
  return (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
}
