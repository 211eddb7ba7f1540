// Node classes of a DRA cluster: nodes whose pools offer devices of identical content in the same
// order (node-local pools compared by content, pools several nodes see by identity) form one
// class; identity attributes (a GPU's uuid, its bus ID) are left out of the comparison, and a
// request whose selectors may read one is evaluated on each member's own devices. Within a class a device is known by its template index (its place in first-fit order), so
// selectors are evaluated once per class and device, and a node's state is a bitset over those
// indices. NodeModel is the allocator's model of one member, answering `selectable` from the
// class's masks instead of evaluating CEL again.
import { namesRead } from '../allocator/index.js';
import type { SelectorCache } from '../cel/index.js';
import {
  type AllocatedSnapshot,
  AllocationModel,
  type CandidateDevice,
  deviceReachesNode,
  gatherPools,
  type Pool,
  type PoolCountersLeft,
  type RequestModel,
  type ResolvedFeatures,
  taintPreventsAllocation,
} from '../model/index.js';
import type { Device, Node, ResourceSlice } from '../objects/index.js';

/**
 * Attributes that name one physical device (bare names, in any driver's domain): NVIDIA's `uuid` and
 * `parentUUID`, a `serial` or `serialNumber`, the standard `pciBusID`. Nodes whose devices differ only
 * in these form one class; a request whose selectors read one of them (or may read any attribute, by
 * a computed name) is answered on each such node's own devices, never from the class.
 */
export const IDENTITY_ATTRIBUTES: readonly string[] = ['uuid', 'parentUUID', 'serial', 'serialNumber', 'pciBusID'];

/** Whether an attribute key (qualified or bare) is an identity attribute. */
export function isIdentityAttribute(key: string): boolean {
  // The name after the last '/' is one of them: the key ends with it, whole or after a '/'.
  for (const id of IDENTITY_ATTRIBUTES) if (key.endsWith(id) && (key.length === id.length || key.charCodeAt(key.length - id.length - 1) === 47)) return true;
  return false;
}

/** Whether any of these CEL selectors may read an identity attribute. */
export function selectorsReadIdentity(expressions: ReadonlyArray<string | undefined>): boolean {
  for (const expression of expressions) {
    if (expression === undefined) continue;
    const names = namesRead(expression);
    if (names === undefined || names.some(isIdentityAttribute)) return true;
  }
  return false;
}

/** Nothing allocated. */
const EMPTY_STATE: AllocatedSnapshot = { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() };

// Mask entries: the device is selectable (1), is not (2), or its selector failed (3: the search
// meets the error only if it gets to the device, so the node model evaluates it again there).
const YES = 1;
const ERROR = 3;

/** Devices as bits: word w holds template indices 32w … 32w + 31. */
export type Bits = Uint32Array;

/** One device of a class's template, in first-fit order. */
export interface TemplateDevice {
  /** Position of its pool in the node's pools. */
  pool: number;
  /** Its pool belongs to this node alone (published with the node's name). */
  local: boolean;
  device: Device;
}

/** Nodes with the same devices: the template (first member) stands for all. */
export class NodeClass {
  /** Member nodes (indices into the cluster's nodes), in node order. */
  members: number[] = [];
  /** The template's devices in first-fit order (= the candidates of every member's model). */
  readonly devices: TemplateDevice[] = [];
  /** Words of a bitset over the devices. */
  readonly words: number;
  /** Bits of the devices of node-local pools. */
  readonly localBits: Bits;
  /** How many devices are node-local. */
  readonly localCount: number;
  /** Bits of devices that take several allocations (one of them may serve several requests). */
  readonly multiBits: Bits;
  /** IDs (`driver/pool`) of the pools members share with other nodes (allNodes, node selectors, per-device selection). */
  readonly sharedPools: string[] = [];
  /** The first member's model with nothing allocated: the class's selectors are evaluated on it. */
  readonly template: AllocationModel;
  /** Members' devices differ in identity attributes (IDENTITY_ATTRIBUTES): requests reading them are answered per node. */
  identityVaries = false;
  private readonly selectableMasks = new Map<string, Uint8Array>();
  private readonly classMasks = new Map<string, Uint8Array>();
  private readonly countMasks = new Map<string, Bits>();
  private readonly capacityMasks = new Map<string, Uint8Array>();

  constructor(
    readonly index: number,
    node: Node,
    pools: Pool[],
    localPools: readonly boolean[],
    private readonly features: ResolvedFeatures,
    cache: SelectorCache,
  ) {
    this.template = new AllocationModel(node, features, pools, EMPTY_STATE, cache);
    pools.forEach((pool, p) => {
      if (!localPools[p]) this.sharedPools.push(pool.id);
      if (pool.incomplete || pool.invalid) return;
      for (const slice of pool.deviceSlices) for (const device of slice.devices) this.devices.push({ pool: p, local: localPools[p]!, device }); // one entry per pool
    });
    this.words = Math.max(1, Math.ceil(this.devices.length / 32));
    this.localBits = new Uint32Array(this.words);
    let local = 0;
    this.devices.forEach((d, i) => {
      if (!d.local) return;
      this.localBits[i >>> 5]! |= 1 << (i & 31); // words hold one bit per device
      local++;
    });
    this.localCount = local;
    this.multiBits = new Uint32Array(this.words);
    this.devices.forEach((d, i) => {
      if (features.consumableCapacity && d.device.allowMultipleAllocations === true) this.multiBits[i >>> 5]! |= 1 << (i & 31);
    });
  }

  /** Per template device: does the request's class and selectors (and per-device node selection) accept it. */
  selectableMask(request: RequestModel, key = selectorKey(request)): Uint8Array {
    let mask = this.selectableMasks.get(key);
    if (mask === undefined) {
      const t = this.template;
      // Not the class's to answer: every member evaluates it on its own devices (ERROR sends it there).
      if (this.identityVaries && selectorsReadIdentity([...request.deviceClass.selectors, ...request.body.selectors].map((s) => s.cel?.expression)))
        mask = new Uint8Array(t.candidates.length).fill(ERROR);
      else
        mask = Uint8Array.from(t.candidates, (c) => {
          try {
            return t.evaluate(request, c.slice, c.device, c.id, () => t.celOf(c.index)) ? YES : 2;
          } catch {
            return ERROR;
          }
        });
      this.selectableMasks.set(key, mask);
    }
    return mask;
  }

  /** Per template device: does the request's class alone accept it (for the reasons' counts). */
  classMask(request: RequestModel): Uint8Array {
    const key = request.deviceClass.name;
    let mask = this.classMasks.get(key);
    if (mask === undefined) {
      const t = this.template;
      if (this.identityVaries && selectorsReadIdentity(request.deviceClass.selectors.map((s) => s.cel?.expression))) mask = new Uint8Array(t.candidates.length).fill(ERROR);
      else
        mask = Uint8Array.from(t.candidates, (c) => {
          try {
            return t.matchesClass(request, c.index) ? YES : 2;
          } catch {
            return ERROR;
          }
        });
      this.classMasks.set(key, mask);
    }
    return mask;
  }

  /** Per template device: does the request's capacity fit it with nothing else consuming it (1 yes, 2 no). */
  capacityMask(request: RequestModel): Uint8Array {
    const key = capacityKey(request);
    let mask = this.capacityMasks.get(key);
    if (mask === undefined) {
      const t = this.template;
      mask = Uint8Array.from(t.candidates, (c) => (t.capacityFits(request, c.index, undefined, false) ? YES : 2));
      this.capacityMasks.set(key, mask);
    }
    return mask;
  }

  /**
   * The devices the request could ever take on a member: selectable (or failing, which the search
   * must meet), not tainted against its tolerations, counters allowed by the features, static
   * capacity enough. Allocation state is not looked at.
   */
  countMask(request: RequestModel): Bits {
    const key = countKey(request, this.features);
    let bits = this.countMasks.get(key);
    if (bits === undefined) {
      bits = new Uint32Array(this.words);
      const selectable = this.selectableMask(request);
      const f = this.features;
      // i < devices; the masks have one entry (bit) per device.
      for (let i = 0; i < this.devices.length; i++) {
        if (selectable[i] !== YES && selectable[i] !== ERROR) continue;
        const device = this.devices[i]!.device;
        if (f.deviceTaints && taintPreventsAllocation(device.taints, request.body.tolerations)) continue;
        if (!f.partitionableDevices && device.consumesCounters.length > 0) continue;
        if (f.consumableCapacity && !this.template.capacityFits(request, i, undefined, false)) continue;
        bits[i >>> 5]! |= 1 << (i & 31);
      }
      this.countMasks.set(key, bits);
    }
    return bits;
  }
}

/** What `selectable` depends on in a request: its class and its selectors. */
export function selectorKey(request: RequestModel): string {
  return JSON.stringify([request.deviceClass.name, request.body.selectors.map((s) => s.cel?.expression ?? null)]);
}

/** What a capacity fit depends on in a request: its capacity requests ('' for none). */
function capacityKey(request: RequestModel): string {
  const requests = request.body.capacity?.requests;
  return requests === undefined ? '' : JSON.stringify(Object.entries(requests).map(([k, q]) => [k, q.toString()]));
}

/** What the count mask depends on: the selectors, and the tolerations and capacity requests where their features are on. */
export function countKey(request: RequestModel, features: ResolvedFeatures, selector = selectorKey(request)): string {
  const tolerations = features.deviceTaints ? request.body.tolerations : [];
  const capacity = features.consumableCapacity ? Object.entries(request.body.capacity?.requests ?? {}).map(([k, q]) => [k, q.toString()]) : [];
  return JSON.stringify([selector, tolerations, capacity]);
}

/** A member's model: the allocator's view of the node, with the class's selector masks. */
export class NodeModel extends AllocationModel {
  constructor(
    node: Node,
    features: ResolvedFeatures,
    pools: Pool[],
    allocated: AllocatedSnapshot,
    cache: SelectorCache,
    private readonly nodeClass: NodeClass,
    candidates?: readonly CandidateDevice[],
    private readonly selectorKeys?: ReadonlyMap<RequestModel, string>,
    countersLeft?: Map<Pool, PoolCountersLeft>,
  ) {
    super(node, features, pools, allocated, cache, candidates, countersLeft);
  }

  // The class's masks of this model's requests (looked up by key once per request; `selectorKeys`: the keys of requests the caller made them for).
  private readonly masks = new Map<RequestModel, Uint8Array>();
  private classMasks?: Map<RequestModel, Uint8Array>;

  override selectable(request: RequestModel, index: number): boolean {
    let mask = this.masks.get(request);
    if (mask === undefined) this.masks.set(request, (mask = this.nodeClass.selectableMask(request, this.selectorKeys?.get(request))));
    const v = mask[index];
    return v === ERROR ? super.selectable(request, index) : v === YES;
  }

  private capacityMasks?: Map<RequestModel, Uint8Array>;

  protected override capacityAlone(request: RequestModel, index: number): boolean {
    const capacityMasks = (this.capacityMasks ??= new Map());
    let mask = capacityMasks.get(request);
    if (mask === undefined) capacityMasks.set(request, (mask = this.nodeClass.capacityMask(request)));
    return mask[index] === YES;
  }

  override matchesClass(request: RequestModel, index: number): boolean {
    const classMasks = (this.classMasks ??= new Map());
    let mask = classMasks.get(request);
    if (mask === undefined) classMasks.set(request, (mask = this.nodeClass.classMask(request)));
    const v = mask[index];
    return v === ERROR ? super.matchesClass(request, index) : v === YES;
  }
}

/** The pools of every node, each node's class, and the classes. */
export interface ClusterLayout {
  pools: Pool[][];
  /** Per node and pool position: the pool is the node's own. */
  localPools: boolean[][];
  classOf: Int32Array;
  classes: NodeClass[];
}

function poolKey(slice: ResourceSlice): string {
  return `${slice.driver}\u0000${slice.pool.name}`;
}

/**
 * Whether two values read the same to the allocator: JSON-like data compared field by field in
 * order (fields holding undefined or functions skipped, as JSON leaves them out), bigints by value,
 * objects with toJSON (quantities) by what it returns. Stops at the first difference, so nodes
 * that differ (a GPU's UUID) cost little; nothing is built.
 */
function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const type = typeof a;
  if (type !== typeof b) return false;
  if (type === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (type !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameContent(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const toJSON = (a as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const other = (b as { toJSON?: () => unknown }).toJSON;
    return typeof other === 'function' && sameContent(toJSON.call(a), other.call(b));
  }
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>, NONE);
}

const NONE = (): boolean => false;

/** The fields of two records, in order, those `skip` names left out. */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, skip: (key: string) => boolean): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  let i = 0;
  let j = 0;
  // ka[i] and kb[j] are read only where i < ka.length and j < kb.length.
  for (;;) {
    while (i < ka.length && (skip(ka[i]!) || a[ka[i]!] === undefined || typeof a[ka[i]!] === 'function')) i++;
    while (j < kb.length && (skip(kb[j]!) || b[kb[j]!] === undefined || typeof b[kb[j]!] === 'function')) j++;
    if (i === ka.length || j === kb.length) return i === ka.length && j === kb.length;
    if (ka[i] !== kb[j] || !sameContent(a[ka[i]!], b[kb[j]!])) return false;
    i++;
    j++;
  }
}

/**
 * What a node's pools look like without their devices' content: for a node-local pool its driver,
 * state and device count per slice; for a shared pool its ID, state, slices and which of their
 * devices reach the node. Nodes with different keys are in different classes; nodes with one key
 * are compared device by device (samePools).
 */
function layoutKey(pools: readonly Pool[], local: readonly boolean[], node: Node): string {
  let key = '';
  pools.forEach((p, i) => {
    if (local[i]) {
      key += `L\u0000${p.driver}\u0000${p.incomplete}\u0000${p.invalid}\u0000${p.invalidReason ?? ''}\u0000${p.counterSets.size}`;
      for (const s of p.deviceSlices) key += `\u0000${s.devices.length}`;
    } else {
      key += `S\u0000${p.id}\u0000${p.incomplete}\u0000${p.invalid}`;
      for (const s of p.deviceSlices) key += `\u0000${s.name}:${s.perDeviceNodeSelection === true ? s.devices.map((d) => (deviceReachesNode(s, d, node) ? 1 : 0)).join('') : '-'}`;
    }
    key += '\u0001';
  });
  return key;
}

const NAME_OR_ATTRIBUTES = (key: string): boolean => key === 'name' || key === 'attributes';
const notIdentity = (key: string): boolean => !isIdentityAttribute(key);

/** What two devices offer, their name and identity attributes aside: what selectors, constraints, counters and taints see. */
function sameDevice(a: Device, b: Device): boolean {
  return (
    sameFields(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>, NAME_OR_ATTRIBUTES) &&
    // Devices read together share equal attribute maps (SliceShare): one map is the same content.
    (a.attributes === b.attributes || sameFields(a.attributes as Record<string, unknown>, b.attributes as Record<string, unknown>, isIdentityAttribute))
  );
}

/**
 * Whether two nodes with one layoutKey have node-local pools of the same content (`same`: devices
 * compared by sameDevice; the counter sets too) or the same identity attributes (`identity`).
 */
function samePools(a: readonly Pool[], b: readonly Pool[], local: readonly boolean[], compare: 'same' | 'identity'): boolean {
  // One layoutKey: as many pools, slices per pool and devices per slice on both sides.
  for (let i = 0; i < a.length; i++) {
    if (!local[i]) continue;
    const pa = a[i]!;
    const pb = b[i]!;
    if (compare === 'same' && !sameContent([...pa.counterSets.values()], [...pb.counterSets.values()])) return false;
    const sa = pa.deviceSlices;
    const sb = pb.deviceSlices;
    for (let s = 0; s < sa.length; s++) {
      const da = sa[s]!.devices;
      const db = sb[s]!.devices;
      for (let d = 0; d < da.length; d++) {
        const ea = da[d]!;
        const eb = db[d]!;
        const ok =
          compare === 'same' ? sameDevice(ea, eb) : ea.attributes === eb.attributes || sameFields(ea.attributes as Record<string, unknown>, eb.attributes as Record<string, unknown>, notIdentity);
        if (!ok) return false;
      }
    }
  }
  return true;
}

/**
 * Gathers every node's pools (as allocateClaims would for that node alone) and groups the nodes
 * into classes. A pool is a node's own when every slice of it names that node.
 */
export function layoutCluster(nodes: readonly Node[], slices: readonly ResourceSlice[], features: ResolvedFeatures, cache: SelectorCache): ClusterLayout {
  const byNode = new Map<string, ResourceSlice[]>();
  const unnamed: ResourceSlice[] = [];
  const byPool = new Map<string, ResourceSlice[]>();
  // The node every slice of a pool names, or null when they differ or some names none.
  const owner = new Map<string, string | null>();
  for (const slice of slices) {
    const key = poolKey(slice);
    (byPool.get(key) ?? byPool.set(key, []).get(key)!).push(slice);
    const node = slice.nodeName ?? null;
    owner.set(key, owner.has(key) && owner.get(key) !== node ? null : node);
    if (slice.nodeName === undefined) unnamed.push(slice);
    else (byNode.get(slice.nodeName) ?? byNode.set(slice.nodeName, []).get(slice.nodeName)!).push(slice);
  }
  const pools: Pool[][] = [];
  const localPools: boolean[][] = [];
  const classOf = new Int32Array(nodes.length);
  const classes: NodeClass[] = [];
  // Classes by layoutKey; within one key, told apart by content.
  const byLayout = new Map<string, NodeClass[]>();
  nodes.forEach((node, k) => {
    // The node's slices and those of no node, plus the rest of any pool they belong to (whether
    // a pool is complete, or obsolete, depends on its slices elsewhere).
    const mine = [...(byNode.get(node.name) ?? []), ...unnamed];
    const seen = new Set(mine);
    const counts = new Map<string, number>();
    for (const s of mine) counts.set(poolKey(s), (counts.get(poolKey(s)) ?? 0) + 1);
    for (const [key, n] of counts) {
      const all = byPool.get(key)!;
      if (all.length !== n) for (const s of all) if (!seen.has(s)) mine.push(s);
    }
    const nodePools = gatherPools(mine, node, features);
    const local = nodePools.map((p) => owner.get(`${p.driver}\u0000${p.name}`) === node.name);
    const key = layoutKey(nodePools, local, node);
    const candidates = byLayout.get(key) ?? byLayout.set(key, []).get(key)!;
    // A class has its first member from its making; pools has an entry per node before k.
    let nodeClass = candidates.find((c) => samePools(pools[c.members[0]!]!, nodePools, local, 'same'));
    if (nodeClass === undefined) {
      nodeClass = new NodeClass(classes.length, node, nodePools, local, features, cache);
      classes.push(nodeClass);
      candidates.push(nodeClass);
    } else if (!nodeClass.identityVaries && !samePools(pools[nodeClass.members[0]!]!, nodePools, local, 'identity')) nodeClass.identityVaries = true;
    nodeClass.members.push(k);
    classOf[k] = nodeClass.index;
    pools.push(nodePools);
    localPools.push(local);
  });
  return { pools, localPools, classOf, classes };
}
