// The one commit rule for stores that arbitrate outside a ClusterState (PostgreSQL): commit's own
// checks (checkCommit) on a ledger of the stored nodes it touches (one, or each part's of a slot
// across nodes) re-validate the option exactly as an in-memory commit does, with no kernels and no search.

import { type ClusterStateJSON, type CommitOptions, checkCommit, restoreLedger } from '../cluster/state.js';
import type { PlacementOption, Slot } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';

/**
 * A node as stored: its GPUs (memoryUsed included where > 0), its slots in the order they were added,
 * and its pod resources where tracked (cpu in milli-CPU, hostMemory in bytes, gpuModel).
 */
export type NodeRecord = { id: string; gpus: ClusterStateJSON['nodes'][number]['gpus']; slots: Slot[]; cpu?: number; hostMemory?: number; gpuModel?: string };

/** The change a commit makes: the new slot (its first part, for one across nodes), the IDs of the slots it evicts, and each given node's slots after it. */
export type CommitChange = { slot: Slot; evicted: string[]; slots: Map<string, Slot[]> };

/**
 * Applies `option` to the stored nodes (one, or every node it and its evictions touch, and maybe more) as
 * ClusterState.commit would (the same checks, the same CONFLICT and argument errors), and returns
 * the change; `nodes` are not modified. `id` is the new slot's ID. A slot across nodes with a part on
 * a node not given is checked as its parts on the given nodes (it is not evicted: its nodes are not all here).
 */
export function applyCommit(stored: NodeRecord | readonly NodeRecord[], option: PlacementOption, options: CommitOptions, id: string): CommitChange {
  const nodes: readonly NodeRecord[] = Array.isArray(stored) ? stored : [stored as NodeRecord];
  const given = new Set(nodes.map((n) => n.id));
  const outside = new Map<string, Slot>();
  const json: ClusterStateJSON = {
    version: 1,
    nextSlot: 1,
    nodes: nodes.map((node) => {
      const slots = node.slots.map((s) => {
        if (s.parts === undefined || s.parts.every((p) => given.has(p.node))) return s;
        outside.set(`${node.id}\u0000${s.id}`, s);
        const { parts: _parts, ...plain } = s;
        return plain;
      });
      const stored: ClusterStateJSON['nodes'][number] = { id: node.id, gpus: node.gpus, slots };
      if (node.cpu !== undefined) stored.cpu = node.cpu;
      if (node.hostMemory !== undefined) stored.hostMemory = node.hostMemory;
      if (node.gpuModel !== undefined) stored.gpuModel = node.gpuModel;
      return stored;
    }),
  };
  const ledger = restoreLedger(json);
  const opts: CommitOptions = { id };
  if (options.lastActivity !== undefined) opts.lastActivity = options.lastActivity;
  const change = checkCommit(ledger, option, opts);
  for (const e of change.evict)
    if (outside.has(`${ledger.nodeIds[ledger.slots.get(e)!.node]}\u0000${e}`))
      throw new AllocationError('CONFLICT', `option.evict: slot ${JSON.stringify(e)} spans nodes this change did not lock; nothing was changed`, { field: 'option.evict' });
  ledger.commit(change);
  const slots = new Map<string, Slot[]>();
  ledger.nodeIds.forEach((node, k) =>
    slots.set(
      node,
      ledger.listSlots(k).map((s) => outside.get(`${node}\u0000${s.id}`) ?? s),
    ),
  );
  const kept = new Set(ledger.listSlots(-1).map((s) => s.id));
  const before = new Set(nodes.flatMap((n) => n.slots.map((s) => s.id)));
  return { slot: ledger.listSlots(ledger.slots.get(id)!.node).find((s) => s.id === id)!, evicted: [...before].filter((s) => !kept.has(s)), slots };
}

/** The nodes an option names: its node, or each part's (what a refused commit reports). */
export function optionNodes(option: PlacementOption): string[] {
  const parts = (option as { parts?: unknown }).parts;
  if (Array.isArray(parts)) return [...new Set(parts.map((p) => (p as { node?: unknown } | null)?.node).filter((n): n is string => typeof n === 'string'))];
  return typeof option.node === 'string' ? [option.node] : [];
}
