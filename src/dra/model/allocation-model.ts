// The candidate model shared by every search mode: the devices the node can use (in first-fit
// order), each request or subrequest with its class, count and a lazily evaluated, memoized
// "is this device a candidate" filter (binding conditions, class selectors, request selectors,
// per-device node selection), the claims' constraints, and the allocated state from other claims.
// Building it validates the claims in upstream's order and throws upstream's errors.
import type { AllocationError } from '../../shared/errors.js';
import { type PreparedDevice, prepareDevice, type SelectorCache } from '../cel/index.js';
import { type Device, type DeviceClass, type DeviceRequestBody, draError, type Node, type ResourceClaim, type ResourceSlice } from '../objects/index.js';
import type { CapacityAmounts } from './capacity.js';
import { fitsCapacity } from './capacity.js';
import type { Constraint } from './constraints.js';
import { DistinctAttribute, MatchAttribute } from './constraints.js';
import type { ResolvedFeatures } from './features.js';
import type { Pool, PoolCountersLeft } from './pools.js';
import { deviceReachesNode, poolCountersLeft } from './pools.js';
import { celDevice, Selectors } from './selectors.js';

/** Most device results in one AllocationResult (resource.k8s.io/v1 AllocationResultsMaxSize). */
export const ALLOCATION_RESULTS_MAX_SIZE = 32;

/** One device the node may use, from a complete and valid pool. */
export interface CandidateDevice {
  /** Position in first-fit order. */
  index: number;
  /** `driver/pool/device`. */
  id: string;
  driver: string;
  pool: Pool;
  poolIndex: number;
  slice: ResourceSlice;
  device: Device;
  /** The device may take several allocations (consumable capacity on and allowMultipleAllocations). */
  shared: boolean;
  /** What it consumes of its pool's counters, per use in published order, as exact nano amounts (read once when listed). */
  counterUses: readonly CounterUse[];
}

/** One request without alternatives, or one subrequest of a firstAvailable request. */
export interface RequestModel {
  claimIndex: number;
  requestIndex: number;
  /** Index among the parent's alternatives, -1 for a request without alternatives. */
  subRequestIndex: number;
  /** The request's name (the parent's name for a subrequest). */
  base: string;
  /** The subrequest's name. */
  sub?: string;
  /** The name results carry: `request` or `request/subrequest`. */
  name: string;
  body: DeviceRequestBody;
  deviceClass: DeviceClass;
  adminAccess: boolean;
  allMode: boolean;
  /** Devices needed (ExactCount) or found (All). */
  count: number;
  /** For `All`: the candidate indices it must get, in order. */
  allDevices?: number[];
}

/** One request of a claim: its alternatives in order (one entry without firstAvailable). */
export interface RequestGroup {
  alternatives: RequestModel[];
  firstAvailable: boolean;
}

/** One claim to allocate. */
export interface ClaimModel {
  claim: ResourceClaim;
  /** `namespace/name` or `name`, as upstream prints a claim. */
  label: string;
  groups: RequestGroup[];
  /** The claim's constraints: which attribute, same or distinct, over which requests (none: all). */
  constraintSpecs: ConstraintSpec[];
  /** Fresh constraint trackers for one search. */
  constraints(): Constraint[];
  /** The fewest devices the claim can get (firstAvailable counts its smallest alternative). */
  minDevices: number;
}

/** One claim constraint as declared. */
export interface ConstraintSpec {
  kind: 'match' | 'distinct';
  /** Fully qualified attribute name (`domain/name`). */
  attribute: string;
  /** Request or `request/subrequest` names it covers; empty: every request of the claim. */
  requests: ReadonlySet<string>;
}

/** Devices and capacity already allocated to other claims, over the pools one model sees (a snapshot of the cluster's AllocatedState). */
export interface AllocatedSnapshot {
  devices: ReadonlySet<string>;
  sharedDeviceIds: ReadonlySet<string>;
  capacity: ReadonlyMap<string, CapacityAmounts>;
}

/**
 * The devices a node may use, in first-fit order: every device of its complete and valid pools. A
 * caller that models one node many times (a scheduler) lists them once and passes the list to
 * each AllocationModel of that node; the entries are never changed.
 */
export function listCandidates(pools: readonly Pool[], features: ResolvedFeatures): CandidateDevice[] {
  const candidates: CandidateDevice[] = [];
  pools.forEach((pool, poolIndex) => {
    if (pool.incomplete || pool.invalid) return;
    for (const slice of pool.deviceSlices) {
      for (const device of slice.devices) {
        candidates.push({
          index: candidates.length,
          id: `${pool.driver}/${pool.name}/${device.name}`,
          driver: pool.driver,
          pool,
          poolIndex,
          slice,
          device,
          shared: features.consumableCapacity && device.allowMultipleAllocations === true,
          counterUses: device.consumesCounters.map((use) => ({
            counterSet: use.counterSet,
            names: Object.keys(use.counters),
            nanos: Object.values(use.counters).map((q) => q.nanoValue()),
          })),
        });
      }
    }
  });
  return candidates;
}

/** One counter use of a device (CandidateDevice.counterUses): its counter set, and per counter its name and amount in nano units. */
export interface CounterUse {
  readonly counterSet: string;
  readonly names: readonly string[];
  readonly nanos: readonly bigint[];
}

/** Claims with the devices the node offers them. */
export class AllocationModel {
  readonly candidates: readonly CandidateDevice[];
  readonly claims: ClaimModel[] = [];
  /** Made on the first selector evaluated (a scheduler's node model answers most from its class's masks). */
  private selectorsMade?: Selectors;
  private readonly cel: Array<PreparedDevice | undefined> = [];
  // matches[request key][candidate]: 0 unknown, 1 candidate, 2 not.
  private readonly matches = new Map<RequestModel, Uint8Array>();
  // fits[request][candidate]: 0 unknown, 1 the request's capacity fits the device alone, 2 not (made on first use).
  private fits?: Map<RequestModel, Uint8Array>;

  /**
   * `candidates`: the node's listCandidates(pools, features), when the caller keeps them (listed here
   * otherwise). `countersLeft`: where countersLeft keeps what it computes, when the caller keeps one
   * per node and allocated state (a scheduler trying the node again before its state changes); the
   * model's own otherwise.
   */
  constructor(
    readonly node: Node,
    readonly features: ResolvedFeatures,
    readonly pools: Pool[],
    readonly allocated: AllocatedSnapshot,
    private readonly selectorCache?: SelectorCache,
    candidates?: readonly CandidateDevice[],
    countersLeft?: Map<Pool, PoolCountersLeft>,
  ) {
    this.candidates = candidates ?? listCandidates(pools, features);
    if (countersLeft !== undefined) this.left = countersLeft;
  }

  private get selectors(): Selectors {
    this.selectorsMade ??= new Selectors(this.features, this.selectorCache);
    return this.selectorsMade;
  }

  /** The CEL view of a candidate, converted once for all its selector evaluations. */
  celOf(index: number): PreparedDevice {
    let view = this.cel[index];
    if (view === undefined) {
      const c = this.candidates[index]!;
      const features = { consumableCapacity: this.features.consumableCapacity, listTypeAttributes: this.features.listTypeAttributes };
      view = prepareDevice(celDevice(c.driver, c.device, features.consumableCapacity, features.listTypeAttributes), features);
      this.cel[index] = view;
    }
    return view;
  }

  /**
   * Whether a device can serve the request regardless of what else is allocated: binding conditions
   * allowed, class and request selectors accept it, per-device node selection reaches the node.
   * Evaluated on first use and remembered; CEL errors throw (where upstream would meet them).
   */
  selectable(request: RequestModel, index: number): boolean {
    let memo = this.matches.get(request);
    if (memo === undefined) {
      memo = new Uint8Array(this.candidates.length);
      this.matches.set(request, memo);
    }
    if (memo[index] !== 0) return memo[index] === 1;
    const c = this.candidates[index]!;
    const ok = this.evaluate(request, c.slice, c.device, c.id, () => this.celOf(index));
    memo[index] = ok ? 1 : 2;
    return ok;
  }

  /** The filter behind `selectable`, for any device of a pool (All mode looks at every pool). */
  evaluate(request: RequestModel, slice: ResourceSlice, device: Device, id: string, cel: () => PreparedDevice): boolean {
    if (!this.features.deviceBindingAndStatus && device.bindingConditions.length > 0) return false;
    const classExpressions = request.deviceClass.selectors.map((s) => (s.cel as { expression: string }).expression);
    if (!this.selectors.matchAll(`class ${request.deviceClass.name}`, classExpressions, cel, id)) return false;
    const requestExpressions = request.body.selectors.map((s) => (s.cel as { expression: string }).expression);
    if (!this.selectors.matchAll(`claim ${this.claims[request.claimIndex]?.label ?? ''}`, requestExpressions, cel, id)) return false;
    return deviceReachesNode(slice, device, this.node);
  }

  /**
   * Every device the request may use, whatever else is picked (selectable; for `All`, its devices):
   * the candidate list another search starts from. Evaluates every selector; throws CEL errors.
   */
  candidatesFor(request: RequestModel): number[] {
    if (request.allDevices !== undefined) return [...request.allDevices];
    return this.candidates.filter((c) => this.selectable(request, c.index)).map((c) => c.index);
  }

  /** The first filters of `selectable` alone: binding conditions allowed and the class's selectors (for reasons). */
  matchesClass(request: RequestModel, index: number): boolean {
    const c = this.candidates[index]!;
    if (!this.features.deviceBindingAndStatus && c.device.bindingConditions.length > 0) return false;
    const expressions = request.deviceClass.selectors.map((s) => (s.cel as { expression: string }).expression);
    return this.selectors.matchAll(`class ${request.deviceClass.name}`, expressions, () => this.celOf(index), c.id);
  }

  /** Whether the request's capacity fits the candidate next to the allocated (and `allocating`) amounts. */
  capacityFits(request: RequestModel, index: number, allocating: CapacityAmounts | undefined, withAllocated = true): boolean {
    const c = this.candidates[index]!;
    const allocated = withAllocated ? this.allocated.capacity.get(c.id) : undefined;
    if (allocated !== undefined || allocating !== undefined) return fitsCapacity(request.body.capacity?.requests, c.device.capacity, allocated, allocating);
    return this.capacityAlone(request, index);
  }

  /** Whether the request's capacity fits the candidate with nothing else consuming it: a function of the two alone, worked out once per request here. */
  protected capacityAlone(request: RequestModel, index: number): boolean {
    const fits = (this.fits ??= new Map());
    let memo = fits.get(request);
    if (memo === undefined) {
      memo = new Uint8Array(this.candidates.length);
      fits.set(request, memo);
    }
    if (memo[index] === 0) memo[index] = fitsCapacity(request.body.capacity?.requests, this.candidates[index]!.device.capacity, undefined, undefined) ? 1 : 2;
    return memo[index] === 1;
  }

  /** Whether another claim holds the device (allocated devices and shares, aggregated capacity). */
  allocatedElsewhere(id: string): boolean {
    if (this.allocated.devices.has(id) || this.allocated.capacity.has(id)) return true;
    for (const shared of this.allocated.sharedDeviceIds) if (shared === id || shared.startsWith(`${id}/`)) return true;
    return false;
  }

  /** Per pool, what other claims left of its counters (made on first use; the allocated snapshot is the model's for its life). */
  private left?: Map<Pool, PoolCountersLeft>;

  /**
   * What the allocations of other claims leave of a pool's counters: counter set → counter → amount
   * (may be negative: then nothing drawing on it fits), and whether any is negative. Computed once
   * per model and pool (or per node state, where the caller keeps them); never changed after.
   */
  countersLeft(pool: Pool): PoolCountersLeft {
    const made = (this.left ??= new Map());
    let left = made.get(pool);
    if (left !== undefined) return left;
    left = poolCountersLeft(pool, (device) => this.allocatedElsewhere(`${pool.driver}/${pool.name}/${device.name}`));
    made.set(pool, left);
    return left;
  }
}

/** How upstream prints a claim: `namespace/name`, or `name` without a namespace. */
export function claimLabel(claim: ResourceClaim): string {
  return claim.namespace === undefined ? claim.name : `${claim.namespace}/${claim.name}`;
}

function rejected(message: string): AllocationError {
  return draError('DRA_REJECTED', message);
}

/**
 * Adds the claims to the model, checking them in upstream's order (per claim: each request and
 * subrequest, then the result limit, then the constraints). Throws upstream's errors.
 */
export function addClaims(model: AllocationModel, claims: readonly ResourceClaim[], classes: readonly DeviceClass[]): void {
  const features = model.features;
  claims.forEach((claim, claimIndex) => {
    const label = claimLabel(claim);
    const entry: ClaimModel = { claim, label, groups: [], constraintSpecs: [], constraints: () => [], minDevices: 0 };
    model.claims.push(entry);
    claim.requests.forEach((request, requestIndex) => {
      const hasSubs = request.firstAvailable.length > 0;
      if (!features.prioritizedList && hasSubs) throw rejected(`claim ${label}, request ${request.name}: has subrequests, but the DRAPrioritizedList feature is disabled`);
      if (!features.consumableCapacity) {
        if (request.exactly?.capacity !== undefined) throw rejected(`claim ${label}, request ${request.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled`);
        for (const sub of request.firstAvailable) {
          if (sub.capacity !== undefined) throw rejected(`claim ${label}, subrequest ${sub.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled`);
        }
      }
      const group: RequestGroup = { alternatives: [], firstAvailable: hasSubs };
      entry.groups.push(group);
      if (hasSubs) {
        request.firstAvailable.forEach((sub, subIndex) => {
          group.alternatives.push(
            validateRequest(model, classes, label, {
              claimIndex,
              requestIndex,
              subRequestIndex: subIndex,
              base: request.name,
              sub: sub.name,
              name: `${request.name}/${sub.name}`,
              body: sub,
              adminAccess: undefined,
            }),
          );
        });
        entry.minDevices += Math.min(...group.alternatives.map((a) => a.count));
      } else {
        const exactly = request.exactly;
        if (exactly === undefined) throw rejected(`claim ${label}, request ${request.name}: missing device class name (unsupported request type?)`);
        const r = validateRequest(model, classes, label, { claimIndex, requestIndex, subRequestIndex: -1, base: request.name, name: request.name, body: exactly, adminAccess: exactly.adminAccess });
        group.alternatives.push(r);
        entry.minDevices += r.count;
      }
    });
    if (entry.minDevices > ALLOCATION_RESULTS_MAX_SIZE) {
      throw rejected(`claim ${label}: number of requested devices ${entry.minDevices} exceeds the claim limit of ${ALLOCATION_RESULTS_MAX_SIZE}`);
    }
    const specs: ConstraintSpec[] = claim.constraints.map((c, i) => {
      if (c.matchAttribute !== undefined) return { kind: 'match' as const, attribute: c.matchAttribute, requests: new Set(c.requests) };
      if (c.distinctAttribute !== undefined) return { kind: 'distinct' as const, attribute: c.distinctAttribute, requests: new Set(c.requests) };
      throw rejected(`claim ${label}, constraint #${i}: empty constraint (unsupported constraint type?)`);
    });
    entry.constraintSpecs = specs;
    entry.constraints = () =>
      specs.map((s, i) => {
        const where = `claim ${label}, constraint #${i}`;
        return s.kind === 'match'
          ? new MatchAttribute(s.requests, s.attribute, features.listTypeAttributes, where)
          : new DistinctAttribute(s.requests, s.attribute, features.listTypeAttributes, where);
      });
  });
}

/**
 * Adds claims that addClaims already checked on another model with the same features and classes
 * (a scheduler checks a pod's claims once, then models each node it tries). Only claims whose
 * requests ask for an exact count: an `All` request's devices depend on the node, so such claims go
 * through addClaims on every model.
 */
export function addCheckedClaims(model: AllocationModel, claims: readonly ClaimModel[]): void {
  // Every claim looked at before any is added: nothing half-done.
  for (const claim of claims) {
    for (const group of claim.groups) for (const r of group.alternatives) if (r.allMode) throw new Error(`addCheckedClaims: claim ${claim.label} has a request for all devices`);
  }
  for (const claim of claims) model.claims.push(claim);
}

/** Whether checked claims may be added to another model as they are (addCheckedClaims): none asks for all devices. */
export function claimsNodeIndependent(claims: readonly ClaimModel[]): boolean {
  return claims.every((c) => c.groups.every((g) => g.alternatives.every((r) => !r.allMode)));
}

type RequestDraft = Omit<RequestModel, 'deviceClass' | 'allMode' | 'count' | 'allDevices' | 'adminAccess'> & { adminAccess: boolean | undefined };

function validateRequest(model: AllocationModel, classes: readonly DeviceClass[], label: string, draft: RequestDraft): RequestModel {
  const { body } = draft;
  const shown = draft.sub ?? draft.base;
  // Index loops over the lists read (i < length).
  for (let i = 0; i < body.selectors.length; i++) {
    if (body.selectors[i]!.cel === undefined) throw rejected(`claim ${label}, request ${shown}, selector #${i}: CEL expression empty (unsupported selector type?)`);
  }
  if (!model.features.adminAccess && draft.adminAccess !== undefined) throw rejected(`claim ${label}, request ${shown}: admin access is requested, but the feature is disabled`);
  if (body.deviceClassName === '') throw rejected(`claim ${label}, request ${shown}: missing device class name (unsupported request type?)`);
  let deviceClass: DeviceClass | undefined;
  for (let i = 0; i < classes.length && deviceClass === undefined; i++) if (classes[i]!.name === body.deviceClassName) deviceClass = classes[i];
  if (deviceClass === undefined) {
    throw rejected(`claim ${label}, request ${shown}: could not retrieve device class ${body.deviceClassName}: deviceclass.resource.k8s.io "${body.deviceClassName}" not found`);
  }
  for (let i = 0; i < deviceClass.selectors.length; i++) {
    if (deviceClass.selectors[i]!.cel === undefined) throw rejected(`class ${deviceClass.name}: selector #${i}: CEL expression empty (unsupported selector type?)`);
  }
  const mode = body.allocationMode ?? 'ExactCount';
  // Every field written, in one order: one shape for every request model.
  const request: RequestModel = {
    claimIndex: draft.claimIndex,
    requestIndex: draft.requestIndex,
    subRequestIndex: draft.subRequestIndex,
    base: draft.base,
    sub: draft.sub,
    name: draft.name,
    body,
    deviceClass,
    adminAccess: draft.adminAccess === true,
    allMode: mode === 'All',
    count: 0,
  };
  if (mode === 'ExactCount') {
    request.count = body.count ?? 1;
    return request;
  }
  if (mode !== 'All') throw rejected(`claim ${label}, request ${shown}: unsupported count mode ${mode}`);
  // "All" means every matching device of every pool: an incomplete or invalid pool makes that unknowable.
  const all: number[] = [];
  let next = 0;
  for (const pool of model.pools) {
    if (pool.incomplete) throw rejected(`claim ${label}, request ${shown}: asks for all devices, but resource pool ${pool.id} is currently being updated`);
    if (pool.invalid) throw rejected(`claim ${label}, request ${shown}: asks for all devices, but resource pool ${pool.id} is currently invalid`);
    for (const slice of pool.deviceSlices) {
      for (let d = 0; d < slice.devices.length; d++) {
        const index = next++;
        if (!model.selectable(request, index)) continue;
        // Static capacity only: a device that could serve the request but is full now fails the request later.
        if (model.features.consumableCapacity && !model.capacityFits(request, index, undefined, false)) continue;
        all.push(index);
      }
    }
  }
  request.allDevices = all;
  request.count = all.length;
  return request;
}
