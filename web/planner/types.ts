// The node planner's data types (no DOM, no engine state): committed work, timed decisions, machine
// types and what the page keeps beside the cluster state; and the two helpers both the model and the
// panels use.
import { AllocationError, type Backend, type ClusterStateJSON, type Inventory } from '../../src/index.ts';

/** Kinds of work the page commits. */
export type WorkloadKind = 'model' | 'replicas' | 'gpus';

/** One committed piece of work. memoryPerGpu in bytes. */
export type Workload = {
  id: string;
  kind: WorkloadKind;
  label: string;
  node: string;
  gpus: number[];
  memoryPerGpu: number;
  /** ClusterState slot ID, for work that holds memory. */
  slotId?: string;
  /** Replica or MIG device IDs, for replica work. */
  devices?: string[];
  /** Palette index. */
  color: number;
  /** Whether the slot is marked stale (evictable by other models). */
  stale?: boolean;
};

/** A decision's result and how long the engine took for it (ms: mean per run, in milliseconds). */
export type Timed<T> = { value: T; backend: Backend; ms: number; runs: number; other?: { backend: Backend; ms: number; runs: number } };

/** The replica view of a node: every device ID, the GPU it lives on, its parent key. */
export type ReplicaDevices = { devices: string[]; gpuOf: Map<string, number>; parents: Record<string, string> };

/** One node as the cluster state holds it (toJSON's node). */
export type StateNode = ClusterStateJSON['nodes'][number];

/** A machine type nodes are added from: a preset or an uploaded inventory. */
export type MachineType = { key: string; label: string; inventory: Inventory };

/** What the page keeps beside the state (never part of the exported state file). */
export type PageMeta = {
  version: 1;
  types: MachineType[];
  /** Node ID -> machine type key, for the nodes added from a type. */
  nodeType: Record<string, string>;
  /** Replica work by node (replicas hold devices, not memory, so they are not slots of the state). */
  replicas: Record<string, Workload[]>;
  /** Model label -> palette index. */
  colors: Record<string, number>;
  selected?: string;
  backend?: Backend;
  nextId: number;
};

/** The model request of the form. */
export type ModelRequest = { memory: number; model: string; tensorParallelSizes: number[]; policy: 'spread' | 'pack'; allowEviction: boolean };

/** Formats any thrown value as { title, message } for the error banner. */
export function describeError(error: unknown): { title: string; message: string } {
  if (error instanceof AllocationError) return { title: error.code, message: error.message };
  if (error instanceof Error) return { title: error.name || 'Error', message: error.message };
  return { title: 'Error', message: String(error) };
}

/** The GPU key used for replica parents: the UUID, or `GPU-<index>` when the inventory has none. */
export function gpuKey(inventory: Inventory, index: number): string {
  const gpu = inventory.gpus.find((g) => g.index === index);
  return gpu?.uuid ?? `GPU-${index}`;
}
