// The DRA cluster handle against a scan: for every pod of a random stream (with releases in
// between), schedule() picks the node a scan picks when it runs allocateClaims on every node in
// the documented order (score, then node order) with the handle's allocated state: the first that
// allocates, or, for a prioritized list, the one with the earliest alternatives among it and the
// next RANK_PROBES that allocate; and returns the same AllocationResults; no device is ever held
// twice; releasing gives the devices back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AllocationResult, allocateClaims, createDraCluster, type DraAllocatedState, type DraFeatures, type DraMode, type NodeScore } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { depth } from '../support/depth.js';
import { claimObject, cluster, type RandomCluster, steps } from '../support/dra-clusters.js';

type Obj = Record<string, unknown>;

/** The share of a node's own devices in use (the 'pack' and 'spread' scores), computed from the objects. */
function loadOf(c: RandomCluster, node: string, state: DraAllocatedState): number {
  const own = new Set<string>();
  for (const s of c.slices as Array<{ spec: { driver: string; pool: { name: string }; nodeName?: string; devices?: Array<{ name: string }> } }>) {
    if (s.spec.nodeName !== node) continue;
    for (const d of s.spec.devices ?? []) own.add(`${s.spec.driver}/${s.spec.pool.name}/${d.name}`);
  }
  const used = new Set<string>([...state.allocatedDevices, ...state.allocatedSharedDeviceIDs.map((id) => id.split('/').slice(0, 3).join('/')), ...Object.keys(state.allocatedCapacity)]);
  let n = 0;
  for (const id of own) if (used.has(id)) n++;
  return own.size === 0 ? 0 : n / own.size;
}

/** As the cluster's RANK_PROBES: more nodes that allocate, tried for earlier alternatives. */
const RANK_PROBES = 16;

/** How far down their prioritized lists the claims' requests went (0: every first choice). */
function rankOf(claims: Obj[], results: AllocationResult[]): number {
  let rank = 0;
  results.forEach((result, i) => {
    const requests = (claims[i].spec as { devices: { requests: Array<{ name: string; firstAvailable?: Array<{ name: string }> }> } }).devices.requests;
    for (const r of result.devices.results) {
      const [main, sub] = r.request.split('/');
      if (sub !== undefined) rank += requests.find((q) => q.name === main)!.firstAvailable!.findIndex((s) => s.name === sub);
    }
  });
  return rank;
}

/**
 * The scan: allocateClaims on every node, best score first, then node order; the first that
 * allocates wins, unless one of the next RANK_PROBES that allocate gives earlier alternatives.
 */
function scan(c: RandomCluster, claims: Obj[], state: DraAllocatedState, score: NodeScore, features: DraFeatures, mode: DraMode) {
  const names = c.nodes.map((n) => (n.metadata as { name: string }).name);
  const key = (name: string): number => (score === 'first' ? 0 : score === 'pack' ? loadOf(c, name, state) : -loadOf(c, name, state));
  const order = names.map((name, i) => ({ name, i, key: key(name) })).sort((a, b) => b.key - a.key || a.i - b.i);
  let best: { node: string; results: AllocationResult[]; rank: number } | undefined;
  let probes = 0;
  for (const { i } of order) {
    try {
      const r = allocateClaims({
        classes: c.classes,
        slices: c.slices,
        claims,
        node: c.nodes[i],
        features,
        allocatedDevices: state.allocatedDevices,
        allocatedSharedDeviceIDs: state.allocatedSharedDeviceIDs,
        allocatedCapacity: state.allocatedCapacity,
        mode,
      });
      if (r.reason === undefined) {
        const rank = rankOf(claims, r.results);
        if (best === undefined || rank < best.rank) best = { node: names[i], results: r.results, rank };
        if (best.rank === 0 || ++probes > RANK_PROBES) break;
      }
    } catch (error) {
      // A node-level refusal (invalid pools, a CEL runtime error on its devices): this node cannot take the pod.
      if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
    }
  }
  return best === undefined ? undefined : { node: best.node, results: best.results };
}

/** No device is held whole by two claims, nor held whole and shared. */
function expectNoDoubleAllocation(state: DraAllocatedState): void {
  const whole = state.allocatedDevices;
  expect(new Set(whole).size).toBe(whole.length);
  const held = new Map<string, string>();
  for (const c of state.claims) {
    for (const r of c.allocation.devices.results) {
      if (r.adminAccess === true || r.shareID !== undefined) continue;
      const id = `${r.driver}/${r.pool}/${r.device}`;
      expect(held.get(id), `${id} held by ${held.get(id)} and ${c.claim}`).toBeUndefined();
      held.set(id, c.claim);
    }
  }
  for (const id of state.allocatedSharedDeviceIDs) expect(whole).not.toContain(id.split('/').slice(0, 3).join('/'));
}

function run(score: NodeScore, consumable: boolean, runs: number, mode: DraMode = 'first-fit'): void {
  const features: DraFeatures = { prioritizedList: true, adminAccess: true, partitionableDevices: true, deviceTaints: true, deviceBindingAndStatus: true, consumableCapacity: consumable };
  fc.assert(
    fc.property(cluster(consumable), steps(consumable), (c, stream) => {
      const handle = createDraCluster({ classes: c.classes, slices: c.slices, nodes: c.nodes, features, nodeScore: score, mode });
      let next = 0;
      for (const step of stream) {
        const before = handle.allocated();
        if ('release' in step) {
          if (before.claims.length === 0) continue;
          const victim = before.claims[step.release % before.claims.length];
          expect(handle.release(victim.claim)).toEqual(victim);
          const after = handle.allocated();
          expect(after.claims.map((x) => x.claim)).not.toContain(victim.claim);
          for (const r of victim.allocation.devices.results) {
            if (r.shareID === undefined && r.adminAccess !== true) expect(after.allocatedDevices).not.toContain(`${r.driver}/${r.pool}/${r.device}`);
          }
          continue;
        }
        const claims = step.pod.map((spec) => claimObject(`c${next++}`, spec));
        const expected = scan(c, claims, before, score, features, mode);
        const got = handle.schedule(claims);
        if (expected === undefined) {
          expect(got.reason?.code).toBe('UNSCHEDULABLE');
          expect(handle.allocated()).toEqual(before);
        } else {
          expect(got.reason?.message).toBeUndefined();
          expect({ node: got.node, results: got.results }).toEqual(expected);
          expect(
            handle
              .allocated()
              .claims.slice(-claims.length)
              .map((x) => [x.claim, x.node]),
          ).toEqual(claims.map((cl) => [`ns/${(cl.metadata as { name: string }).name}`, expected.node]));
        }
        expectNoDoubleAllocation(handle.allocated());
      }
    }),
    { numRuns: depth(Math.ceil(runs / 3), runs), seed: 27 },
  );
}

describe('createDraCluster: schedule() is the scan of allocateClaims over the nodes in order', () => {
  it("nodeScore 'first': the first node in node order that fits", () => run('first', false, 60));
  it("nodeScore 'pack': the most allocated node that fits, ties in node order", () => run('pack', false, 60));
  it("nodeScore 'spread': the least allocated node that fits", () => run('spread', false, 40));
  it('with consumable capacity: shares of multi-allocatable devices, capacity consumed and given back', () => run('pack', true, 40));
  it("mode 'scored' on every node: the same node and allocation as the scan in scored mode", () => run('pack', false, 40, 'scored'));
  it("mode 'scored' with consumable capacity", () => run('spread', true, 30, 'scored'));
});
