// A placement policy as a filter/score plugin (the Kubernetes scheduler framework's shape): the
// common filter is the kernels' fits (assembly/fleet.ts, src/baseline/fleet.ts); each policy is a pure score over one node and one pod, and a GPU choice
// inside the node for a GPU-sharing pod. Scores are compared as numbers, the highest wins, and a tie
// goes to the node with the smallest per-seed random rank.

import type { Lookahead } from '../lookahead.js';
import type { POLICY_REGISTRY } from './registry.js';

/** How a policy picks the GPU of a sharing pod (exclusive pods always take the lowest-index fully free GPUs). */
export type GpuChoice = 'random' | 'best' | 'score';

/** Every fleet policy's name (the registry's keys). */
export type FleetPolicyName = keyof typeof POLICY_REGISTRY;

/** A policy's description; the kernels (assembly/fleet.ts, src/baseline/fleet.ts) dispatch on `id`. */
export type FleetPolicy = {
  /** The name used by the CLI and the API. */
  readonly name: FleetPolicyName;
  /** The kernels' policy number (src/fleet/policies/registry.ts). */
  readonly id: number;
  /** The colour pages draw the policy in (#rrggbb, from the registry). */
  readonly color: string;
  /** GPU choice for sharing pods. */
  readonly gpuChoice: GpuChoice;
  /** One line for --help and the README. */
  readonly summary: string;
  /** Rollouts on close decisions (src/fleet/lookahead.ts); absent: the best score wins, the rank on a tie. */
  readonly lookahead?: Lookahead;
};
