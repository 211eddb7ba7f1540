// One cluster node, and the one function that turns a host's inventory into one.
import { type Inventory, validateInventory } from '../hardware/inventory.js';
import type { Topology } from '../hardware/topology.js';
import { type NodeGpu, type Slot, validateSlots } from '../placement/index.js';
import type { Labels } from '../shared/labels.js';
import { LIMITS } from '../shared/limits.js';
import { rejectUnknownKeys, requireObject, requireString } from '../shared/validate.js';

/**
 * One node of a cluster state. Memory in bytes. A GPU's memoryUsed (default 0) is memory held by
 * processes outside gpualloc's slots; its free memory is memoryTotal − memoryUsed − the slots on it.
 * For pods (src/fleet/scheduler.ts): `cpu` is the allocatable CPU in milli-CPU and `hostMemory` the
 * allocatable host memory in bytes (absent: not tracked, any request fits); `gpuModel` is the model
 * of the node's GPUs (absent: a pod that lists allowed models cannot go there). `labels` (Kubernetes'
 * syntax, such as `nvidia.com/gpu.clique`) are what a plan's topology constraint names.
 */
export type ClusterNode = { id: string; gpus: NodeGpu[]; topology?: Topology; slots?: Slot[]; cpu?: number; hostMemory?: number; gpuModel?: string; labels?: Labels };

/** Options of nodeFromInventory: the node's ID (default: the host, else `node0`) and the slots already on it. */
export type NodeFromInventoryOptions = { id?: string; slots?: Slot[] };

/** Node ID used when an inventory has no host name. */
export const DEFAULT_NODE = 'node0';

/**
 * The node of an inventory (validated first: INVALID_INVENTORY names the bad field): ID = `id`, else
 * the host, else `node0`; the GPUs that are not lost; the topology of `links` without the lost GPUs;
 * `slots` when given. Per GPU, memoryUsed = max(0, max(the inventory's memoryUsed, Σ processes[].usedMemory)
 * − Σ memoryPerGpu of the given slots on that GPU), at most memoryTotal: NVML's reading includes the
 * processes of gpualloc's own slots, so memory a slot accounts for is not counted twice. Written only
 * when > 0. For pods: `cpu` = 1000 × the inventory's `cpus.length` (when `cpus` is given), `hostMemory` =
 * its `memory` (when given), `gpuModel` = the present GPUs' common `name` (when they all have the same
 * non-empty one), `labels` = its labels; `mig: true` on each GPU in MIG mode (its inventory entry has `mig`), which
 * plans then leave out unless they allow it. The CLI, ClusterState created from an inventory and the web page all go through here.
 */
export function nodeFromInventory(inventory: Inventory, options: NodeFromInventoryOptions = {}): ClusterNode {
  const inv = validateInventory(inventory);
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, ['id', 'slots']);
  const id = opts.id === undefined ? (inv.host !== undefined && inv.host !== '' ? inv.host : DEFAULT_NODE) : requireString('options.id', opts.id, LIMITS.maxIdLength);
  const present = inv.gpus.filter((g) => g.lost !== true);
  const slots = opts.slots === undefined ? undefined : validateSlots(opts.slots, 'options.slots', new Set(present.map((g) => g.index)));
  const gpus = present.map((g): NodeGpu => {
    const gpu: NodeGpu = { index: g.index, memoryTotal: g.memoryTotal };
    let processes = 0;
    for (const p of g.processes ?? []) processes += p.usedMemory;
    let held = 0;
    for (const s of slots ?? []) if (s.gpus.includes(g.index)) held += s.memoryPerGpu;
    const used = Math.min(g.memoryTotal, Math.max(0, Math.max(g.memoryUsed ?? 0, processes) - held));
    if (used > 0) gpu.memoryUsed = used;
    // `mig` is present exactly when MIG mode is on (see InventoryGpu): whole-GPU plans leave it out.
    if (g.mig !== undefined) gpu.mig = true;
    return gpu;
  });
  const node: ClusterNode = { id, gpus };
  if (inv.links.length > 0) {
    let width = 0;
    for (const g of inv.gpus) if (g.index + 1 > width) width = g.index + 1;
    const lost = new Set(inv.gpus.filter((g) => g.lost === true).map((g) => g.index));
    node.topology = { gpus: width, links: inv.links.filter((l) => !lost.has(l.a) && !lost.has(l.b)).map((l) => ({ ...l })) };
  }
  if (slots !== undefined) node.slots = slots;
  if (inv.cpus !== undefined) node.cpu = 1000 * inv.cpus.length;
  if (inv.memory !== undefined) node.hostMemory = inv.memory;
  const names = new Set(present.map((g) => g.name ?? ''));
  if (present.length > 0 && names.size === 1 && !names.has('')) node.gpuModel = present[0]!.name;
  if (inv.labels !== undefined) node.labels = { ...inv.labels };
  return node;
}
