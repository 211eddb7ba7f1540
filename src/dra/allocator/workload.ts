// The workload a scored search weighs fragmentation by (FGD's task distribution): claims the caller
// expects, each with a weight (how often it comes, in any unit). Each request of a claim is one
// shape: the devices it could take on the node. Without a workload the search weighs every
// partition shape the node publishes equally.

import { fail } from '../../shared/validate.js';
import type { AllocationModel, RequestModel } from '../model/index.js';
import { type At, child, type ResourceClaim, readResourceClaims, record } from '../objects/index.js';
import type { WorkloadShape } from './partition-shapes.js';

/** One entry of a workload: a ResourceClaim (object) and how often it comes (default 1). */
export interface DraWorkloadEntry {
  claim: unknown;
  weight?: number;
}

/** A workload as read: the claims and their weights (same order). */
export interface Workload {
  claims: ResourceClaim[];
  weights: number[];
}

/** Reads `workload`: a list of `{ claim, weight? }` (undefined when absent). */
export function readWorkload(value: unknown, at: At = { origin: 'request', path: 'workload' }): Workload | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'a list of { claim, weight } entries', value);
  const claims: ResourceClaim[] = [];
  const weights: number[] = [];
  value.forEach((entry, i) => {
    const here = child(at, i);
    const e = record(here, entry, ['claim', 'weight']);
    const weight = e.weight ?? 1;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) fail('INVALID_ARGUMENT', child(here, 'weight'), 'a positive number', e.weight);
    const read = readResourceClaims(e.claim, `${here.path}.claim`);
    const claim = read[0];
    if (read.length !== 1 || claim === undefined) fail('INVALID_ARGUMENT', child(here, 'claim'), 'one ResourceClaim', `${read.length} claims`);
    claims.push(claim);
    weights.push(weight);
  });
  return { claims, weights };
}

/**
 * The shapes of a workload whose claims were added to `probe` (a model over the same pools as the
 * searched one, so candidate indices agree): one per claim, weighted by its weight, matching every
 * candidate some request of the claim (its first alternative) may take. A claim is one draw of the
 * look-ahead: a GPU + NIC claim offers a GPU its GPU request and a NIC its NIC request, and is not
 * two draws of which one always passes. `matches(request)`: per candidate, whether the request may
 * take it.
 */
export function workloadShapes(probe: AllocationModel, weights: readonly number[], matches: (request: RequestModel) => Uint8Array): WorkloadShape[] {
  const shapes: WorkloadShape[] = [];
  probe.claims.forEach((claim, i) => {
    // One weight per workload claim; a request group has at least one alternative.
    let union: Uint8Array | undefined;
    const requests: Array<{ count: number; all: boolean; matches: Uint8Array }> = [];
    for (const group of claim.groups) {
      const first = group.alternatives[0]!;
      const m = matches(first);
      requests.push({ count: first.count, all: first.allMode, matches: m });
      if (union === undefined) union = Uint8Array.from(m);
      else for (let c = 0; c < m.length; c++) union[c]! |= m[c]!;
    }
    if (union !== undefined) shapes.push({ weight: weights[i]!, matches: union, requests });
  });
  return shapes;
}

/** `matches` for workloadShapes on a model: its own (memoized) selection. */
export function selectionOf(model: AllocationModel): (request: RequestModel) => Uint8Array {
  return (request) =>
    Uint8Array.from(model.candidates, (c) => {
      try {
        return model.selectable(request, c.index) ? 1 : 0;
      } catch {
        return 0;
      }
    });
}
