// What ClusterState.plan takes: planPlacement's request without a node's GPUs, slots and topology,
// and the fields of plans across nodes (maxNodes, topology by node labels, attention heads). The
// keys are checked here (an unknown one is named, with the key meant).

import { MAX_PARTS, type PlacementRequest } from '../placement/index.js';
import { requireLabelKey } from '../shared/labels.js';
import { fail, keysOf, rejectUnknownKeys, requireArray, requireInteger, requireObject } from '../shared/validate.js';

/**
 * Where the parts of an option across nodes may go, by node labels: `required`, a label every part's
 * node has with one value (one NVLink domain: `nvidia.com/gpu.clique`; one zone); `preferred`, labels
 * whose values the parts should share, most important first (the fewest distinct values of the
 * first, then of the next, …).
 */
export type TopologyConstraint = { required?: string; preferred?: string[] };

/** What `state.plan` takes: planPlacement's request without gpus, slots and topology, and the fields of plans across nodes. */
export type ClusterPlanRequest = Omit<PlacementRequest, 'gpus' | 'slots' | 'topology'> & {
  /**
   * Most nodes an option may span (1 .. 64). Absent: options across nodes only when no node can hold
   * the model (up to 64 nodes); 1: never; 2 or more: also when one node can (they rank after every
   * one-node option).
   */
  maxNodes?: number;
  /** Node labels that constrain and rank options across nodes (see TopologyConstraint). */
  topology?: TopologyConstraint;
  /** The model's attention heads (from its GGUF header): every tensor-parallel size tried divides them (vLLM's rule). */
  attentionHeads?: number;
};

/** The keys of a ClusterPlanRequest (plan rejects any other). */
export const CLUSTER_PLAN_KEYS = keysOf<ClusterPlanRequest>()(['memory', 'model', 'tensorParallelSizes', 'allowEviction', 'allowMig', 'policy', 'limit', 'maxNodes', 'topology', 'attentionHeads']);

const TOPOLOGY_KEYS = keysOf<TopologyConstraint>()(['required', 'preferred']);

/** The multi-node fields of a plan request, checked (the rest is validatePlanRequest's). */
export type SpanFields = { maxNodes: number; maxNodesGiven: boolean; required: string | undefined; preferred: string[]; heads: number | undefined };

/** Checks a plan request's keys and reads its multi-node fields. */
export function spanRequestOf(r: Record<string, unknown>): SpanFields {
  rejectUnknownKeys('', r, CLUSTER_PLAN_KEYS);
  const maxNodes = r.maxNodes === undefined ? MAX_PARTS : requireInteger('maxNodes', r.maxNodes, 1, MAX_PARTS);
  let required: string | undefined;
  let preferred: string[] = [];
  if (r.topology !== undefined) {
    const t = requireObject('topology', r.topology);
    rejectUnknownKeys('topology', t, TOPOLOGY_KEYS);
    if (t.required !== undefined) required = requireLabelKey('topology.required', t.required);
    if (t.preferred !== undefined) {
      preferred = requireArray('topology.preferred', t.preferred, 16).map((k, j) => requireLabelKey(`topology.preferred[${j}]`, k));
      const twice = preferred.findIndex((k, j) => preferred.indexOf(k) !== j);
      if (twice >= 0) fail('INVALID_ARGUMENT', `topology.preferred[${twice}]`, 'each label once', preferred[twice]);
    }
  }
  const heads = r.attentionHeads === undefined ? undefined : requireInteger('attentionHeads', r.attentionHeads, 1, 1 << 20);
  return { maxNodes, maxNodesGiven: r.maxNodes !== undefined, required, preferred, heads };
}
