// allocateClaims: reads the objects, gathers the node's pools, builds the candidate model, runs the
// search of the requested mode and writes the AllocationResults, or says why the claims cannot all
// be allocated on the node. Nothing is kept between calls; inputs are never modified.
import type { ReasonOf } from '../../shared/errors.js';
import { fail } from '../../shared/validate.js';
import {
  AllocationModel,
  addCheckedClaims,
  addClaims,
  type CapacityAmounts,
  type ClaimModel,
  DEFAULT_DRA_FEATURES,
  DRA_FEATURE_GATES,
  type DraFeature,
  type DraFeatures,
  gatherPools,
  type ResolvedFeatures,
} from '../model/index.js';
import {
  type AllocationResult,
  child,
  type DeviceClass,
  draError,
  type Quantity,
  quantity,
  type ResourceClaim,
  readDeviceClasses,
  readNodes,
  readResourceClaims,
  readResourceSlices,
  record,
} from '../objects/index.js';
import { provablyInfeasible, unschedulableReason } from './diagnose.js';
import { firstFit, type SearchOutcome } from './first-fit.js';
import { type AllocatedBase, CandidateTopology, compareObjective, type DraObjective, evaluateObjective } from './objective.js';
import type { PairingSupply } from './partition-pairing.js';
import type { WorkloadShape } from './partition-shapes.js';
import { buildResults } from './result.js';
import { DEFAULT_SCORED_BUDGET, decideScored } from './scored.js';
import { shareIdSource } from './share-id.js';
import type { TopologySetup } from './topology-setup.js';
import { type DraWorkloadEntry, readWorkload, selectionOf, workloadShapes } from './workload.js';

/** How to search: the scored search (the default), or upstream's first-fit. */
export type DraMode = 'first-fit' | 'scored';

/** The modes this build can run; the default is the first. */
export const DRA_MODES: readonly DraMode[] = ['scored', 'first-fit'];

/** What allocateClaims takes: the fields of a case of the upstream table, plus `mode` and `seed`. */
export interface DraAllocateRequest {
  /** DeviceClass objects (`kubectl get deviceclasses -o json`: a List, an array or one object). */
  classes: unknown;
  /** ResourceSlice objects, in the order the lister returns them. */
  slices: unknown;
  /** The ResourceClaims to allocate together, in order. */
  claims: unknown;
  /** The Node (a v1 Node object) the claims are allocated for. */
  node: unknown;
  /** Devices other claims hold, as `driver/pool/device`. */
  allocatedDevices?: string[];
  /** Shares of multi-allocatable devices other claims hold, as `driver/pool/device[/shareID]`. */
  allocatedSharedDeviceIDs?: string[];
  /** Capacity other claims consume on shared devices: `{ "driver/pool/device": { name: quantity } }`. */
  allocatedCapacity?: Record<string, Record<string, string>>;
  /** Allocator features on; omitted: DEFAULT_DRA_FEATURES. When given, every feature not set to true is off. */
  features?: DraFeatures;
  /** 'scored' (the default: the best allocation by the documented objective) or 'first-fit' (upstream's). */
  mode?: DraMode;
  /** Scored mode: the most device picks the search tries (default DEFAULT_SCORED_BUDGET). */
  budget?: number;
  /** Seed of the share IDs (UUIDs) given to shares of multi-allocatable devices; default 0. */
  seed?: number;
  /** Scored mode: the claims expected on the node and how often (FGD's workload); default: every partition shape the node publishes, equally. */
  workload?: DraWorkloadEntry[];
  /** Scored mode: also report the objective's terms for the chosen allocation and for first-fit's (`explain` in the result). */
  explain?: boolean;
}

/** Why the scored mode chose its allocation: the objective's terms for it and for the allocation first-fit makes on the same input. */
export interface DraExplanation {
  /** The scored allocation's terms (lower is better, compared in the order of DraObjective's fields). */
  chosen: DraObjective;
  /** First-fit's allocation: its devices per claim (`driver/pool/device`) and its terms by the same objective. */
  firstFit: { devices: string[][]; objective: DraObjective };
  /** -1: the scored allocation is better, 0: equal by every term (the same allocation, or as good). */
  comparison: number;
}

/** The outcome: one AllocationResult per claim in claim order, or none with the reason. */
export type DraAllocateResult =
  | { results: AllocationResult[]; reason?: undefined; objective?: DraObjective; budgetExhausted?: true; explain?: DraExplanation }
  | { results: []; reason: Unschedulable; objective?: undefined; budgetExhausted?: true; explain?: undefined };

/** Why claims cannot be allocated: the one reason the room returns (REASON_CODES.UNSCHEDULABLE). */
export type Unschedulable = ReasonOf<'UNSCHEDULABLE'>;

/** The reason for claims that cannot be allocated, saying why. */
export function unschedulable(message: string): Unschedulable {
  return { code: 'UNSCHEDULABLE', message };
}

const REQUEST_KEYS = ['classes', 'slices', 'claims', 'node', 'allocatedDevices', 'allocatedSharedDeviceIDs', 'allocatedCapacity', 'features', 'mode', 'seed', 'budget', 'workload', 'explain'] as const;

/** Reads `features` (omitted: DEFAULT_DRA_FEATURES; given: every feature not set to true is off). */
export function readFeatures(value: unknown): ResolvedFeatures {
  if (value === undefined) return DEFAULT_DRA_FEATURES;
  const at = { origin: 'request', path: 'features' };
  const names = Object.keys(DRA_FEATURE_GATES) as DraFeature[];
  const obj = record(at, value, names);
  const out = {} as Record<DraFeature, boolean>;
  for (const name of names) {
    const v = obj[name];
    if (v !== undefined && typeof v !== 'boolean') fail('INVALID_ARGUMENT', child(at, name), 'a boolean', v);
    out[name] = v === true;
  }
  return out;
}

/** Reads a list of `driver/pool/device` (parts 3) or `driver/pool/device[/shareID]` (parts 3, 4) IDs. */
export function readIdList(path: string, value: unknown, parts: number[]): Set<string> {
  const at = { origin: 'request', path };
  const out = new Set<string>();
  if (value === undefined || value === null) return out;
  if (!Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'a list of "driver/pool/device" strings', value);
  value.forEach((v, i) => {
    if (typeof v !== 'string' || !parts.includes(v.split('/').length) || v.split('/').some((p) => p === ''))
      fail('INVALID_ARGUMENT', child(at, i), parts.length > 1 ? '"driver/pool/device" or "driver/pool/device/shareID"' : '"driver/pool/device"', v);
    out.add(v);
  });
  return out;
}

/** Reads `allocatedCapacity`: `{ "driver/pool/device": { name: quantity } }`. */
export function readCapacityState(value: unknown): Map<string, CapacityAmounts> {
  const at = { origin: 'request', path: 'allocatedCapacity' };
  const out = new Map<string, CapacityAmounts>();
  if (value === undefined || value === null) return out;
  if (typeof value !== 'object' || Array.isArray(value)) fail('INVALID_ARGUMENT', at, 'an object of "driver/pool/device" keys', value);
  for (const id of Object.keys(value)) {
    const here = child(at, id);
    if (id.split('/').length !== 3) fail('INVALID_ARGUMENT', here, 'a "driver/pool/device" key', id);
    const entry = (value as Record<string, unknown>)[id];
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) fail('INVALID_ARGUMENT', here, 'an object of capacity amounts', entry);
    const amounts: CapacityAmounts = new Map();
    for (const name of Object.keys(entry)) amounts.set(name, quantity(child(here, name), (entry as Record<string, unknown>)[name], true) as Quantity);
    out.set(id, amounts);
  }
  return out;
}

/**
 * Allocates `claims` together on `node` the way Kubernetes' structured allocator does. Malformed
 * objects and what upstream refuses throw AllocationError; infeasible claims return a reason.
 */
export function allocateClaims(request: DraAllocateRequest): DraAllocateResult {
  const top = record({ origin: 'request', path: '' }, request, REQUEST_KEYS) as unknown as DraAllocateRequest;
  const mode = readMode(top.mode);
  const budget = readBudget(top.budget);
  const seed = top.seed ?? 0;
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) fail('INVALID_ARGUMENT', { origin: 'request', path: 'seed' }, 'an integer', seed);
  const features = readFeatures(top.features);
  const classes = readDeviceClasses(top.classes, 'classes');
  const slices = readResourceSlices(top.slices, 'slices');
  const claims = readResourceClaims(top.claims, 'claims');
  const nodes = readNodes(top.node, 'node');
  const node = nodes[0];
  if (nodes.length !== 1 || node === undefined) fail('INVALID_ARGUMENT', { origin: 'request', path: 'node' }, 'exactly one Node', `${nodes.length} nodes`);
  const allocated = {
    devices: readIdList('allocatedDevices', top.allocatedDevices, [3]),
    sharedDeviceIds: readIdList('allocatedSharedDeviceIDs', top.allocatedSharedDeviceIDs, [3, 4]),
    capacity: readCapacityState(top.allocatedCapacity),
  };

  const workload = readWorkload(top.workload);
  const explain = top.explain ?? false;
  if (typeof explain !== 'boolean') fail('INVALID_ARGUMENT', { origin: 'request', path: 'explain' }, 'a boolean', explain);
  const pools = gatherPools(slices, node, features);
  let shapes: WorkloadShape[] | undefined;
  if (workload !== undefined && mode === 'scored') {
    const probe = new AllocationModel(node, features, pools, allocated);
    addClaims(probe, workload.claims, classes);
    shapes = workloadShapes(probe, workload.weights, selectionOf(probe));
  }
  return allocateOnModel(new AllocationModel(node, features, pools, allocated), claims, classes, { mode, seed, budget, explain, ...(shapes !== undefined ? { shapes } : {}) });
}

/** Reads `mode` (default: the first of DRA_MODES). */
export function readMode(value: unknown, at = { origin: 'request', path: 'mode' }): DraMode {
  const mode = value ?? DRA_MODES[0];
  if (!(DRA_MODES as readonly unknown[]).includes(mode)) fail('INVALID_ARGUMENT', at, DRA_MODES.map((m) => `'${m}'`).join(' or '), mode);
  return mode as DraMode;
}

/** Reads `budget` (default DEFAULT_SCORED_BUDGET). */
export function readBudget(value: unknown, at = { origin: 'request', path: 'budget' }): number {
  const budget = value ?? DEFAULT_SCORED_BUDGET;
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 1) fail('INVALID_ARGUMENT', at, 'a positive integer (device picks the scored search may try)', budget);
  return budget;
}

/** How allocateOnModel searches: the mode, the scored search's budget, the share IDs' seed. */
export interface SearchSettings {
  mode: DraMode;
  budget: number;
  seed: number;
  /** Scored mode: the objective's set-up of the node's devices, when the caller keeps one per node class (built from the model otherwise). */
  setup?: TopologySetup;
  /** Scored mode: what other claims hold on the node as the objective reads it (over `setup`), when the caller keeps one per node state (made from the model otherwise). */
  base?: AllocatedBase;
  /** Scored mode: the workload the fragmentation term weighs (the node's published partition shapes otherwise). */
  shapes?: readonly WorkloadShape[];
  /** Scored mode with a workload: what every node the caller may place on offers pairing, this one included (partition-pairing.ts; this node's own otherwise). */
  supply?: PairingSupply;
  /** Scored mode: add the explanation (the chosen allocation's terms beside first-fit's). */
  explain?: boolean;
  /**
   * The claims already checked into models (addClaims on a model with the same features and
   * classes), one per claim in order, none asking for all devices: added as they are instead of
   * being checked again on this model (a scheduler checks a pod's claims once for every node it tries).
   */
  checked?: readonly ClaimModel[];
}

/**
 * The allocation of `claims` on the model's node (its pools and allocated state already in the
 * model): validates the claims into the model, searches in `mode` and writes the results. The
 * part of allocateClaims after reading; a scheduler calls it once per node it tries.
 */
export function allocateOnModel(model: AllocationModel, claims: readonly ResourceClaim[], classes: readonly DeviceClass[], settings: SearchSettings): DraAllocateResult {
  const { mode, budget, seed } = settings;
  if (settings.checked !== undefined) addCheckedClaims(model, settings.checked);
  else addClaims(model, claims, classes);
  const pools = model.pools;
  const refuse = (message: string): DraAllocateResult => {
    // Failing on this node while a pool was unusable: upstream reports the pools, not "unschedulable".
    const invalid = pools.find((p) => p.invalid);
    if (invalid !== undefined) throw draError('DRA_REJECTED', `invalid resource pools were encountered (${invalid.id}: ${invalid.invalidReason ?? 'invalid'})`);
    return { results: [], reason: unschedulable(message) };
  };
  // No claims: upstream's search succeeds at once with no results.
  if (model.claims.length === 0) return { results: [], reason: unschedulable('no claims to allocate') };
  if (mode === 'scored') {
    const decided = decideScored(model, budget, settings.setup, settings.shapes, settings.base, settings.supply);
    const exhausted = decided.budgetExhausted ? { budgetExhausted: true as const } : {};
    if (decided.state === undefined) return { ...refuse(decided.reason), ...exhausted };
    const results = buildResults(model, decided.state, decided.chosen, shareIdSource(seed, claims, model.allocated.sharedDeviceIds));
    const explanation = settings.explain === true && decided.objective !== undefined ? explainChoice(model, decided.objective, settings) : undefined;
    return { results, ...(decided.objective !== undefined ? { objective: decided.objective } : {}), ...exhausted, ...(explanation !== undefined ? { explain: explanation } : {}) };
  }
  // The per-request counts before the search (the scored mode asks them only of a claim its search does not place).
  const quick = provablyInfeasible(model);
  if (quick !== undefined) return refuse(quick);
  const outcome: SearchOutcome = firstFit(model);
  if (outcome.state === undefined) return refuse(unschedulableReason(model, outcome.furthest));
  return { results: buildResults(model, outcome.state, outcome.chosen, shareIdSource(seed, claims, model.allocated.sharedDeviceIds)) };
}

/** The explanation of a scored choice: first-fit's allocation on the same model, weighed by the same objective. */
function explainChoice(model: AllocationModel, chosen: DraObjective, settings: SearchSettings): DraExplanation | undefined {
  const upstream = firstFit(model);
  if (upstream.state === undefined) return undefined;
  const picks = upstream.state.picked.flatMap((claim) => claim.map((p) => ({ request: p.request, index: p.index })));
  const alternatives: number[] = [];
  // chosen has one list per claim, one entry per request group; picks hold candidate indexes.
  model.claims.forEach((claim, ci) => claim.groups.forEach((group, ri) => group.firstAvailable && alternatives.push(upstream.chosen[ci]![ri]!)));
  const objective = evaluateObjective(model, picks, alternatives, new CandidateTopology(model, settings.setup, settings.shapes, settings.base, settings.supply));
  const devices = upstream.state.picked.map((claim) => claim.map((p) => model.candidates[p.index]!.id));
  return { chosen, firstFit: { devices, objective }, comparison: compareObjective(chosen, objective) };
}
