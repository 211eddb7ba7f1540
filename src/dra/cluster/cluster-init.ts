// The DRA cluster handle's public shapes: what createDraCluster takes (and the keys it knows), one
// pod's outcome, a held claim, and the handle's allocated state.
import type { DraExplanation, DraMode, DraWorkloadEntry, Unschedulable } from '../allocator/index.js';
import type { DraFeatures } from '../model/index.js';
import type { AllocationResult } from '../objects/index.js';
import type { NodeScore } from './node-index.js';

/** What createDraCluster takes: the cluster's objects and how to allocate. */
export interface DraClusterInit {
  /** DeviceClass objects (`kubectl get deviceclasses -o json`: a List, an array or one object). */
  classes: unknown;
  /** ResourceSlice objects, in the order the lister returns them. */
  slices: unknown;
  /** The Node objects (v1); their order is the node order that breaks ties. */
  nodes: unknown;
  /** Allocator features on; omitted: DEFAULT_DRA_FEATURES. */
  features?: DraFeatures;
  /** The allocator's search on a node: 'scored' (the default) or 'first-fit', as allocateClaims. */
  mode?: DraMode;
  /** Scored mode: the most device picks one node's search may try (as allocateClaims). */
  budget?: number;
  /** How nodes that can take a pod rank (default DEFAULT_NODE_SCORES[mode]: 'fragmentation' scored, 'pack' first-fit). */
  nodeScore?: NodeScore;
  /** Seed of share IDs; default 0. */
  seed?: number;
  /** Devices held by claims outside this handle, as `driver/pool/device` (as allocateClaims takes them). */
  allocatedDevices?: string[];
  /** Shares held outside this handle, as `driver/pool/device[/shareID]`. */
  allocatedSharedDeviceIDs?: string[];
  /** Capacity consumed outside this handle, `{ "driver/pool/device": { name: quantity } }`. */
  allocatedCapacity?: Record<string, Record<string, string>>;
  /** Scored mode: the claims expected and how often (FGD's workload, as allocateClaims takes it). */
  workload?: DraWorkloadEntry[];
  /** Scored mode: each schedule() result carries `explain` (the chosen allocation's terms beside first-fit's on that node). */
  explain?: boolean;
}

/** One pod's outcome: the node and one AllocationResult per claim, or none with the reason. */
export type DraScheduleResult = { node: string; results: AllocationResult[]; reason?: undefined; explain?: DraExplanation } | { node?: undefined; results: []; reason: Unschedulable };

/** A claim allocated through the handle. */
export interface DraClaimAllocation {
  /** `namespace/name` (or `name`). */
  claim: string;
  node: string;
  /** What goes in the claim's `status.allocation`. */
  allocation: AllocationResult;
}

/** The handle's allocated state: its claims, and every device, share and capacity in use (allocateClaims' encodings). */
export interface DraAllocatedState {
  claims: DraClaimAllocation[];
  allocatedDevices: string[];
  allocatedSharedDeviceIDs: string[];
  allocatedCapacity: Record<string, Record<string, string>>;
}

export const INIT_KEYS = [
  'classes',
  'slices',
  'nodes',
  'features',
  'mode',
  'budget',
  'nodeScore',
  'seed',
  'allocatedDevices',
  'allocatedSharedDeviceIDs',
  'allocatedCapacity',
  'workload',
  'explain',
] as const;
