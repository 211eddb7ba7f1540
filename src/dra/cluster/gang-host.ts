// The cluster's side of a gang: what the workloads sub-room's search asks of it (read a pod's
// claims, count free devices, tell interchangeable nodes, place and give back one pod), built over
// the handle's own state so that the search uses the same allocator and bookkeeping as schedule().
import { AllocationError } from '../../shared/errors.js';
import { fail } from '../../shared/validate.js';
import type { DraAllocateResult } from '../allocator/index.js';
import { claimLabel, type RequestModel, type ResolvedFeatures } from '../model/index.js';
import { type AllocationResult, draError, type Node, type ResourceClaim, readResourceClaims } from '../objects/index.js';
import type { GangHost, GangPod } from '../workloads/index.js';
import { countKey, type NodeClass } from './node-classes.js';
import type { CountedAlternative, NodeStates } from './node-index.js';

/** The handle's state and operations a gang needs (passed by DraCluster.scheduleGroup). */
export interface GangInternals {
  nodes: readonly Node[];
  classOf: Int32Array;
  nodeClasses: readonly NodeClass[];
  states: NodeStates;
  features: ResolvedFeatures;
  /** The node holding a claim, if the handle holds it. */
  heldOn(label: string): number | undefined;
  checkClaims(claims: ResourceClaim[]): CountedAlternative[][];
  stateKey(k: number): string;
  allocateOn(k: number, claims: ResourceClaim[]): DraAllocateResult;
  commit(k: number, labels: string[], results: AllocationResult[]): void;
  release(label: string): void;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A GangHost over a cluster handle's state. Node numbers k come from the gang code, which numbers
 * the cluster's nodes as `nodeNames` lists them: in range by construction, as are the class and
 * mask words read with them.
 */
export function gangHost(c: GangInternals): GangHost {
  // Each count key's request, as the pods read so far gave it.
  const requests = new Map<string, RequestModel>();
  // Per count key and node class: the devices the key's request could take.
  const masks = new Map<string, Uint32Array[]>();
  const claimsOf = (pod: GangPod): ResourceClaim[] => pod.claims as ResourceClaim[];
  return {
    nodeNames: c.nodes.map((n) => n.name),
    labels: (k) => c.nodes[k]!.labels,
    readPod(input, field, empty) {
      const claims = readResourceClaims(input, field);
      if (claims.length === 0 && !empty) fail('INVALID_ARGUMENT', { origin: field, path: '' }, 'at least one ResourceClaim', input);
      const labels = claims.map(claimLabel);
      labels.forEach((label, i) => {
        const k = c.heldOn(label);
        if (k !== undefined) throw draError('INVALID_ARGUMENT', `ResourceClaim/${label}: already allocated on node ${c.nodes[k]!.name}; release it first`, { field: `${field}[${i}]` });
        if (labels.indexOf(label) !== i) throw draError('INVALID_ARGUMENT', `ResourceClaim/${label}: given twice in ${field}`, { field: `${field}[${i}]` });
      });
      const demand = new Map<string, number>();
      for (const group of c.checkClaims(claims)) {
        // Only a request without alternatives surely needs its count of devices that match it.
        const only = group[0];
        if (group.length !== 1 || only === undefined || only.all || only.admin) continue;
        const key = countKey(only.request, c.features);
        requests.set(key, only.request);
        demand.set(key, (demand.get(key) ?? 0) + only.need);
      }
      // What makes two pods interchangeable: their claims' requests, constraints and config (not their names).
      const shape = JSON.stringify(claims.map((claim) => [claim.requests, claim.constraints, claim.config]));
      return { labels, demand, shape, claims };
    },
    free(k, key) {
      const nodeClass = c.nodeClasses[c.classOf[k]!]!;
      // The class's count mask of the key, looked up by index (the class keys it by a JSON text).
      let perClass = masks.get(key);
      if (perClass === undefined) masks.set(key, (perClass = []));
      const mask = perClass[nodeClass.index] ?? (perClass[nodeClass.index] = nodeClass.countMask(requests.get(key)!));
      const start = c.states.wordStart[k]!;
      const shared = c.states.sharedFree[nodeClass.index]!;
      let n = 0;
      for (let w = 0; w < mask.length; w++) {
        const m = mask[w]!;
        // A device that takes several allocations may serve any number of requests.
        if ((m & nodeClass.multiBits[w]!) !== 0) return Infinity;
        n += popcount(m & (c.states.free[start + w]! | shared[w]!));
      }
      return n;
    },
    stateKey: (k) => c.stateKey(k),
    place(k, pod) {
      if (claimsOf(pod).length === 0) return { results: [] };
      let outcome: DraAllocateResult;
      try {
        outcome = c.allocateOn(k, claimsOf(pod));
      } catch (error) {
        // A node-level refusal (invalid pools, a CEL runtime error on its devices): this node cannot take the pod.
        if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
        return error.message;
      }
      if (outcome.reason !== undefined) return outcome.reason.message;
      c.commit(k, pod.labels, outcome.results);
      return { results: outcome.results, ...(outcome.explain !== undefined ? { explain: outcome.explain } : {}) };
    },
    unplace(pod) {
      for (const label of pod.labels) c.release(label);
    },
    keep(k, pod, results) {
      c.commit(k, pod.labels, results);
    },
  };
}
