// The cluster state's JSON: the schema (key lists, version), the validation that turns nodes or
// toJSON's output into a ledger (create, restore), and toJSON. Kernel-free: a store that only needs
// a state's JSON checked and normalised calls normalizeStateJSON, with no search behind it.

import type { Inventory } from '../hardware/inventory.js';
import type { Link, Topology } from '../hardware/topology.js';
import { type NodeGpu, type Slot, type SlotPart, validateNode, validateSlots } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import { type Labels, requireLabels } from '../shared/labels.js';
import { LIMITS } from '../shared/limits.js';
import { formatBytes } from '../shared/units.js';
import { fail, type KeyShapeOf, keysOf, rejectUnknownKeys, requireArray, requireInteger, requireObject, requireString } from '../shared/validate.js';
import { copySlot, Ledger, type LedgerNode } from './ledger.js';
import { type ClusterNode, nodeFromInventory } from './node.js';

/** Initial nodes of a cluster state, or one inventory (a single node named after its host). */
export type ClusterInit = { nodes: ClusterNode[] } | Inventory;

/** toJSON's output: everything needed to restore the state exactly (a node's cpu, hostMemory and gpuModel only when set). */
export type ClusterStateJSON = {
  version: 1;
  nextSlot: number;
  nodes: Array<{ id: string; gpus: NodeGpu[]; topology?: Topology; slots: Slot[]; cpu?: number; hostMemory?: number; gpuModel?: string; labels?: Labels }>;
};

const STATE_KEYS = keysOf<ClusterStateJSON>()(['version', 'nextSlot', 'nodes']);

/** One node of ClusterStateJSON. */
type _NodeJSON = ClusterStateJSON['nodes'][number];

/**
 * The keys of a state as toJSON writes it, and only those (checked against ClusterStateJSON at build
 * time): restore and the strict readers of state files (JsonFileStore, the CLI) reject any other.
 */
export const CLUSTER_STATE_KEYS = {
  version: null,
  nextSlot: null,
  nodes: {
    id: null,
    gpus: { index: null, memoryTotal: null, memoryUsed: null, mig: null } satisfies KeyShapeOf<NodeGpu>,
    topology: { gpus: null, links: { a: null, b: null, pcie: null, nvlink: null } satisfies KeyShapeOf<Link> } satisfies KeyShapeOf<Topology>,
    slots: {
      id: null,
      model: null,
      gpus: null,
      memoryPerGpu: null,
      lastActivity: null,
      stale: null,
      milli: null,
      cpu: null,
      hostMemory: null,
      parts: { node: null, gpus: null, memoryPerGpu: null } satisfies KeyShapeOf<SlotPart>,
    } satisfies KeyShapeOf<Slot>,
    cpu: null,
    hostMemory: null,
    gpuModel: null,
    labels: null,
  } satisfies KeyShapeOf<_NodeJSON>,
} as const satisfies KeyShapeOf<ClusterStateJSON>;

/** Schema version of toJSON's output. */
export const CLUSTER_STATE_VERSION = 1;

/** The keys a node, a GPU and a slot of a state may have (load); any other is an error. */
const NODE_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes);
const GPU_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes.gpus);
const SLOT_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes.slots);

/** Fails naming the first key of `value` (when a plain object) not in `keys`. */
function onlyKeys(value: unknown, keys: readonly string[], field: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  rejectUnknownKeys(field, value as Record<string, unknown>, keys);
}

/** The ledger of initial nodes (or one inventory): what ClusterState.create builds on. */
export function createLedger(init: ClusterInit): Ledger {
  const o = requireObject('init', init);
  let nodes: unknown;
  if (o.nodes === undefined && Array.isArray(o.gpus)) nodes = [nodeFromInventory(o as unknown as Inventory)];
  else nodes = o.nodes;
  return loadLedger(requireArray('nodes', nodes, LIMITS.maxNodes), 'nodes');
}

/** The ledger of toJSON's output (the object or its JSON text); anything malformed is INVALID_STATE. */
export function restoreLedger(json: unknown): Ledger {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (cause) {
      throw new AllocationError('INVALID_STATE', `state: not valid JSON (${(cause as Error).message}); the text may be truncated`, { cause });
    }
  }
  try {
    const o = requireObject('state', value);
    rejectUnknownKeys('state', o, STATE_KEYS);
    if (o.version !== CLUSTER_STATE_VERSION) fail('INVALID_STATE', 'state.version', `${CLUSTER_STATE_VERSION}`, o.version);
    const ledger = loadLedger(requireArray('state.nodes', o.nodes, LIMITS.maxNodes), 'state.nodes');
    ledger.nextSlot = requireInteger('state.nextSlot', o.nextSlot, 1);
    return ledger;
  } catch (error) {
    if (error instanceof AllocationError && error.code !== 'INVALID_STATE') {
      throw error.restated({ code: 'INVALID_STATE', origin: 'state' });
    }
    throw error;
  }
}

/**
 * toJSON's output checked as restoreClusterState checks it (the same errors) and written back as
 * toJSON writes it, without building the state's indexes or touching kernels.
 */
export function normalizeStateJSON(json: unknown): ClusterStateJSON {
  return ledgerJSON(restoreLedger(json));
}

/** Validates nodes (`field[k]` names each) into a ledger with their slots; OVERSCHEDULED when a GPU, a node's CPU or its host memory holds more than it has. */
function loadLedger(nodes: unknown[], field: string): Ledger {
  const seen = new Set<string>();
  const models = nodes.map((raw, k): LedgerNode => {
    const f = `${field}[${k}]`;
    const n = requireObject(f, raw);
    // A misspelt key (a node's `cpus`, a slot's `hostmemory`) would silently leave the resource untracked.
    onlyKeys(n, NODE_KEYS, f);
    if (Array.isArray(n.gpus)) n.gpus.forEach((g, j) => onlyKeys(g, GPU_KEYS, `${f}.gpus[${j}]`));
    if (Array.isArray(n.slots)) n.slots.forEach((sl, j) => onlyKeys(sl, SLOT_KEYS, `${f}.slots[${j}]`));
    const id = requireString(`${f}.id`, n.id, LIMITS.maxIdLength);
    if (seen.has(id)) fail('INVALID_ARGUMENT', `${f}.id`, 'a node ID not used before', id);
    seen.add(id);
    const model = validateNode(n.gpus, undefined, n.topology, `${f}.`);
    const cpu = n.cpu === undefined ? -1 : requireInteger(`${f}.cpu`, n.cpu, 0, LIMITS.maxMilliCpu);
    const hostMemory = n.hostMemory === undefined ? -1 : requireInteger(`${f}.hostMemory`, n.hostMemory, 0, LIMITS.maxBytes);
    const gpuModel = n.gpuModel === undefined ? undefined : requireString(`${f}.gpuModel`, n.gpuModel, LIMITS.maxIdLength);
    const labels = n.labels === undefined ? undefined : requireLabels(`${f}.labels`, n.labels);
    return { id, index: model.index, total: model.total, used: model.used, mig: model.mig, topology: model.topology, cpu, hostMemory, gpuModel, labels };
  });
  const ledger = new Ledger(models);
  // Slots after every node, so slot IDs are unique across the state; a slot across several nodes is
  // listed by each of them (its part there), and added once every node has been read.
  const ids = new Map<string, string>();
  const spans = new Map<string, Array<{ node: number; slot: Slot; at: string }>>();
  nodes.forEach((raw, k) => {
    const n = raw as Record<string, unknown>;
    if (n.slots === undefined) return;
    validateSlots(n.slots, `${field}[${k}].slots`, new Set(ledger.indices[k])).forEach((slot, j) => {
      const at = `${field}[${k}].slots[${j}]`;
      const before = ids.get(slot.id);
      if (before !== undefined && (slot.parts === undefined || !spans.has(slot.id)))
        throw AllocationError.at('DUPLICATE_SLOT', `${at}.id`, `slot ID ${JSON.stringify(slot.id)} appears twice (also at ${before})`);
      if (before === undefined) ids.set(slot.id, at);
      if (slot.parts !== undefined) {
        let list = spans.get(slot.id);
        if (list === undefined) spans.set(slot.id, (list = []));
        list.push({ node: k, slot, at });
        // Its place in the node's list is kept now; its memory is charged once every part is read.
        ledger.nodeSlots[k]!.add(slot.id);
        return;
      }
      if (slot.milli !== undefined) {
        const f = `${field}[${k}].slots[${j}]`;
        ledger.checkShare(
          k,
          slot.gpus.map((g) => ledger.positionOf(k, g)),
          slot.milli,
          slot.memoryPerGpu,
          `${f}.`,
          () => `${f}.gpus`,
        );
      }
      ledger.addSlot(k, slot);
    });
  });
  for (const list of spans.values()) ledger.addSpan(spanParts(list, ledger.nodeIds));
  const { gpuStart, free, used, capacity, total, nodeIds, indices, nodeCpu, cpuHeld, nodeHostMemory, hostMemoryHeld } = ledger;
  // The ledger was built from `models`: one entry per node, per GPU from gpuStart.
  for (let k = 0; k < models.length; k++) {
    const start = gpuStart[k]!;
    for (let p = 0; p < indices[k]!.length; p++) {
      if (free[start + p]! < 0) {
        const u = used[start + p]!;
        const others = u > 0 ? ` and ${formatBytes(u)} in use by other processes` : '';
        throw new AllocationError(
          'OVERSCHEDULED',
          `${field}[${k}]: GPU ${indices[k]![p]} of node ${nodeIds[k]} has ${formatBytes(capacity[start + p]! - free[start + p]!)} of slots${others} on ${formatBytes(total[start + p]!)}`,
          { field: `${field}[${k}].slots` },
        );
      }
    }
    if (nodeCpu[k]! >= 0 && cpuHeld[k]! > nodeCpu[k]!) {
      throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: node ${nodeIds[k]} has ${cpuHeld[k]} milli-CPU of slots on ${nodeCpu[k]}`, { field: `${field}[${k}].slots` });
    }
    if (nodeHostMemory[k]! >= 0 && hostMemoryHeld[k]! > nodeHostMemory[k]!) {
      throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: node ${nodeIds[k]} has ${formatBytes(hostMemoryHeld[k]!)} of host memory in slots on ${formatBytes(nodeHostMemory[k]!)}`, {
        field: `${field}[${k}].slots`,
      });
    }
  }
  return ledger;
}

/**
 * The parts of a slot across several nodes, in its `parts` order, from the entries of the nodes that
 * list it: each lists the same parts, model, activity and stale mark, and its own GPUs and memory as
 * its part says; every part's node lists it.
 */
function spanParts(list: ReadonlyArray<{ node: number; slot: Slot; at: string }>, nodeIds: readonly string[]): Array<{ node: number; slot: Slot }> {
  const head = list[0]!; // a span's list is created with its first part
  const first = head.slot;
  const parts = first.parts!;
  const same = JSON.stringify(parts);
  for (const { slot, at } of list) {
    if (JSON.stringify(slot.parts) !== same) fail('INVALID_ARGUMENT', `${at}.parts`, `the parts every node of slot ${JSON.stringify(first.id)} lists (${head.at}.parts)`, slot.parts);
    for (const key of ['model', 'lastActivity', 'stale'] as const)
      if (slot[key] !== first[key]) fail('INVALID_ARGUMENT', `${at}.${key}`, `the ${key} every node of slot ${JSON.stringify(first.id)} lists (${head.at})`, slot[key]);
  }
  for (const { node, at } of list)
    if (!parts.some((p) => p.node === nodeIds[node]))
      throw AllocationError.at('INVALID_ARGUMENT', `${at}.parts`, `slot ${JSON.stringify(first.id)} is listed by node ${JSON.stringify(nodeIds[node])}, which none of its parts names`);
  return parts.map((part, j) => {
    const entry = list.find((e) => nodeIds[e.node] === part.node);
    if (entry === undefined)
      throw AllocationError.at('INVALID_ARGUMENT', `${head.at}.parts[${j}].node`, `slot ${JSON.stringify(first.id)} has a part on node ${JSON.stringify(part.node)}, whose slots do not list it`);
    const { slot, at } = entry;
    if (slot.memoryPerGpu !== part.memoryPerGpu || slot.gpus.join() !== part.gpus.join())
      fail('INVALID_ARGUMENT', `${at}.gpus`, `the GPUs and memoryPerGpu of its part (${head.at}.parts[${j}]: GPUs ${part.gpus.join(',')}, ${part.memoryPerGpu} bytes each)`, slot.gpus);
    return { node: entry.node, slot };
  });
}

/** The ledger as toJSON writes it: a plain object that restoreClusterState turns back into an identical state. */
export function ledgerJSON(ledger: Ledger): ClusterStateJSON {
  const { total, used, gpuStart, nodeCpu, nodeHostMemory } = ledger;
  return {
    version: CLUSTER_STATE_VERSION,
    nextSlot: ledger.nextSlot,
    nodes: ledger.nodeIds.map((id, k) => {
      const start = gpuStart[k]!;
      const gpus = ledger.indices[k]!.map((index, p): NodeGpu => {
        const g: NodeGpu = { index, memoryTotal: total[start + p]! };
        // Only when > 0: a state without used memory writes the same JSON as before memoryUsed existed.
        if (used[start + p]! > 0) g.memoryUsed = used[start + p];
        // Only when set: a state without MIG GPUs writes the same JSON as before the flag existed.
        if (ledger.mig !== null && ledger.mig[start + p] === 1) g.mig = true;
        return g;
      });
      const node: ClusterStateJSON['nodes'][number] = { id, gpus, slots: [] };
      const t = ledger.topologies[k];
      if (t !== undefined) node.topology = { gpus: t.gpus, links: t.links.map((l) => ({ ...l })) };
      if (nodeCpu[k]! >= 0) node.cpu = nodeCpu[k];
      if (nodeHostMemory[k]! >= 0) node.hostMemory = nodeHostMemory[k];
      const gpuModel = ledger.gpuModels[k];
      if (gpuModel !== undefined) node.gpuModel = gpuModel;
      const labels = ledger.labels[k];
      if (labels !== undefined) node.labels = { ...labels };
      for (const sid of ledger.nodeSlots[k]!) node.slots.push(copySlot(ledger.record(k, sid).slot));
      return node;
    }),
  };
}

/**
 * The state file's text: toJSON as JSON indented by 2 and a final newline. One format for what
 * `gpualloc plan --state FILE` writes, what the JSON file store keeps and what the page exports,
 * so the three exchange files byte for byte.
 */
export function stateFileText(state: { toJSON(): ClusterStateJSON }): string {
  return JSON.stringify(state.toJSON(), null, 2) + '\n';
}
