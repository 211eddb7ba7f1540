// The one commit rule for stores that arbitrate outside a ClusterState (file, PostgreSQL): commit's
// own checks (checkCommit) on a one-node ledger of the stored node re-validate the option exactly as
// an in-memory commit does, with no kernels and no search.

import { type ClusterStateJSON, type CommitOptions, checkCommit, restoreLedger } from '../cluster/state.js';
import type { PlacementOption, Slot } from '../placement/index.js';

/**
 * A node as stored: its GPUs (memoryUsed included where > 0), its slots in the order they were added,
 * and its pod resources where tracked (cpu in milli-CPU, hostMemory in bytes, gpuModel).
 */
export type NodeRecord = { id: string; gpus: ClusterStateJSON['nodes'][number]['gpus']; slots: Slot[]; cpu?: number; hostMemory?: number; gpuModel?: string };

/** The change a commit makes to one node: the new slot and the IDs of the slots it evicts. */
export type CommitChange = { slot: Slot; evicted: string[]; slots: Slot[] };

/**
 * Applies `option` to `node` as ClusterState.commit would (the same checks, the same CONFLICT and
 * argument errors), and returns the change; `node` is not modified. `id` is the new slot's ID.
 */
export function applyCommit(node: NodeRecord, option: PlacementOption, options: CommitOptions, id: string): CommitChange {
  const stored: ClusterStateJSON['nodes'][number] = { id: node.id, gpus: node.gpus, slots: node.slots };
  if (node.cpu !== undefined) stored.cpu = node.cpu;
  if (node.hostMemory !== undefined) stored.hostMemory = node.hostMemory;
  if (node.gpuModel !== undefined) stored.gpuModel = node.gpuModel;
  const ledger = restoreLedger({ version: 1, nextSlot: 1, nodes: [stored] });
  const opts: CommitOptions = { id };
  if (options.lastActivity !== undefined) opts.lastActivity = options.lastActivity;
  ledger.commit(checkCommit(ledger, option, opts));
  const slots = ledger.listSlots(-1);
  const kept = new Set(slots.map((s) => s.id));
  return { slot: slots.find((s) => s.id === id)!, evicted: node.slots.filter((s) => !kept.has(s.id)).map((s) => s.id), slots };
}

/** The nodes an option names: its node, or each part's (what a refused commit reports). */
export function optionNodes(option: PlacementOption): string[] {
  const parts = (option as { parts?: unknown }).parts;
  if (Array.isArray(parts)) return [...new Set(parts.map((p) => (p as { node?: unknown } | null)?.node).filter((n): n is string => typeof n === 'string'))];
  return typeof option.node === 'string' ? [option.node] : [];
}
