// planPlacement: every viable way to place a model on a node's GPUs by memory, with per-GPU
// validation, stale-slot eviction and one documented ranking key (the Helix "planning" method).
import { AllocationError, type Reason } from './errors.js';
import type { Kernels } from './kernels.js';
import { LIMITS } from './limits.js';
import { pairScoreMatrix, topologyFor, type Topology } from './topology.js';
import { formatBytes } from './units.js';
import { compareNatural } from './baseline/natural-sort.js';
import { describeValue, fail, requireArray, requireBoolean, requireInteger, requireObject, requireOneOf, requireString } from './validate.js';

/** Work already placed on GPUs. memoryPerGpu in bytes; lastActivity in ms since the epoch. */
export type Slot = { id: string; model?: string; gpus: number[]; memoryPerGpu: number; lastActivity?: number; stale?: boolean };

/** One way to place the model. memoryPerGpu in bytes; score is the topology set score of `gpus`. */
export type PlacementOption = { node?: string; model?: string; gpus: number[]; memoryPerGpu: number; evict: string[]; score: number };

/** Why a GPU cannot take its share (REASON_CODES). shortBy in bytes. */
export type Rejection = { node?: string; gpu: number; code: string; message: string; shortBy?: number };

/** spread: keep the most free memory on the fullest chosen GPU; pack: leave the least memory over on the chosen GPUs. */
export type PlacementPolicy = 'spread' | 'pack';

/** Request of planPlacement (see DESIGN.md). Memory in bytes. */
export type PlacementRequest = {
  gpus: Array<{ index: number; memoryTotal: number }>;
  slots?: Slot[];
  topology?: Topology;
  memory: number;
  model?: string;
  tensorParallelSizes?: number[];
  allowEviction?: boolean;
  policy?: PlacementPolicy;
  limit?: number;
};

/** Ranked options (best first) and per-GPU rejections; `reason` is set when there is no option. */
export type PlacementPlan = { options: PlacementOption[]; rejected: Rejection[]; reason?: Reason };

/** One node's search, in positions 0..gpus-1 (GPUs sorted by index). Memory in bytes. */
export type PlacementSearch = {
  /** GPUs on the node (at most 64). */
  gpus: number;
  /** memoryTotal − allocated per position (negative when the input over-schedules a GPU). */
  free: Float64Array;
  /** memoryTotal per position. */
  total: Float64Array;
  /** Allowed tensor-parallel sizes, ascending, each in 1..gpus. */
  sizes: Int32Array;
  /** ceil(memory / size) per entry of sizes. */
  shares: Float64Array;
  /** Evictable slots in eviction order: two i32 halves (low, high) of the position mask each. */
  staleMasks: Int32Array;
  /** memoryPerGpu of each evictable slot. */
  staleBytes: Float64Array;
  /** Pair-score matrix over positions (gpus × gpus), or null for a node without topology (score 0). */
  pairScores: Int32Array | null;
  /** Ranking: false = spread, true = pack. */
  pack: boolean;
  /** Most candidates to keep. */
  limit: number;
  /** Most subsets to enumerate before giving up (LIMIT_EXCEEDED). */
  budget: number;
};

/** Best candidates of one node's search, best first. */
export type PlacementFound = {
  /** Candidates kept. */
  count: number;
  /** Two i32 halves (low, high) of each candidate's position mask. */
  masks: Int32Array;
  /** Slots each candidate evicts. */
  evictCount: Int32Array;
  /** Bytes each candidate evicts in total (memoryPerGpu × GPUs spanned, summed). */
  evictedBytes: Float64Array;
  /** Topology set score of each candidate. */
  score: Int32Array;
  /** Smallest free memory left on a chosen GPU after eviction and placement. */
  remainMin: Float64Array;
  /** Free memory left on the chosen GPUs after eviction and placement, summed. */
  remainSum: Float64Array;
  /** evictions[evictStart[c] .. evictStart[c + 1]) are candidate c's evicted slots (indices into the stale list). */
  evictStart: Int32Array;
  evictions: Int32Array;
  /** 0, or the size whose enumeration would have passed the budget (nothing else is valid then). */
  overflowSize: number;
};

/**
 * Several nodes' searches in one kernel call (ClusterState.plan): the best `limit` candidates over
 * every node, by the ranking key, then the node tie-break (load, then rank), then lowest indices.
 * Memory in bytes.
 */
export type ClusterSearch = {
  /** Candidate nodes (entries 0..count-1 of the per-candidate arrays are read). */
  count: number;
  /** GPUs of each candidate. */
  gpus: Int32Array;
  /** Where each candidate's GPUs start in `free` and `total`. */
  offset: Int32Array;
  /** memoryTotal − allocated per GPU, all candidates' GPUs at their offsets. */
  free: Float64Array;
  /** memoryTotal per GPU, at the same offsets (free ≤ total must hold; read only for nodes with evictable slots). */
  total: Float64Array;
  /** Candidate i's evictable slots are entries staleStart[i] .. staleStart[i + 1] of staleMasks (pairs) and staleBytes. */
  staleStart: Int32Array;
  staleMasks: Int32Array;
  staleBytes: Float64Array;
  /** Each candidate's pair-score matrix over its positions, or null (every score 0). */
  matrices: ReadonlyArray<Int32Array | null>;
  /** Node tie-break: lower load, then lower rank, ranks first. */
  load: Float64Array;
  rank: Int32Array;
  /**
   * Each candidate's bound: no option of the node ranks before (bEv evictions, 0 bytes, bN GPUs,
   * bScore, bMetric, load, rank). A candidate whose bound ranks after the `limit` kept candidates is
   * skipped, so pass candidates best bound first.
   */
  bEv: Int32Array;
  bN: Int32Array;
  bScore: Float64Array;
  bMetric: Float64Array;
  /** Allowed sizes, ascending (a node uses those up to its GPU count), and ceil(memory / size). */
  sizes: Int32Array;
  shares: Float64Array;
  pack: boolean;
  limit: number;
  /** Most subsets one node's search may enumerate. */
  budget: number;
};

/**
 * Best candidates over the nodes of a ClusterSearch, best first; evictions index each candidate
 * node's stale list. Entries past `count` are undefined, and the arrays belong to the kernels: they
 * are valid until the next clusterSearch call (ClusterState.plan reads them at once).
 */
export type ClusterFound = PlacementFound & {
  /** Candidate node (index into the ClusterSearch arrays) of each kept candidate. */
  node: Int32Array;
  /** With overflowSize > 0: the candidate node whose search would have passed the budget. */
  overflowNode: number;
};

/** Kernels this capability needs. */
export interface PlacementKernels {
  /**
   * Enumerates every allowed-size subset of GPUs whose every member can take its share (after
   * evicting stale slots in order, each only while a chosen GPU lacks room and the slot frees memory
   * on such a GPU), and keeps the best `limit` by the ranking key (see compareCandidates).
   */
  placementSearch(search: PlacementSearch): PlacementFound;
  /** The same search over several nodes at once, merged across nodes (see ClusterSearch). */
  clusterSearch(search: ClusterSearch): ClusterFound;
}

/** Default number of options returned. */
export const DEFAULT_PLACEMENT_LIMIT = 16;
/** Largest `limit` accepted. */
export const MAX_PLACEMENT_LIMIT = 10_000;
/** Most GPU subsets one node's search may enumerate (all sizes of a 16-GPU node take 65,535). */
export const PLACEMENT_BUDGET = 1 << 22;

/** ceil(memory / n) exactly for memory < 2^53. */
export function shareOf(memory: number, n: number): number {
  let q = Math.floor(memory / n);
  while (q * n < memory) q++;
  while (q > 0 && (q - 1) * n >= memory) q--;
  return q;
}

/** Lowest-index-first comparison of two equal-size GPU sets given as mask halves: negative when a ranks first. */
export function compareMasks(aLo: number, aHi: number, bLo: number, bHi: number): number {
  let x = (aLo ^ bLo) | 0;
  if (x !== 0) return (aLo & x & -x) !== 0 ? -1 : 1;
  x = (aHi ^ bHi) | 0;
  if (x !== 0) return (aHi & x & -x) !== 0 ? -1 : 1;
  return 0;
}

/**
 * The ranking key, written once: fewer evictions, fewer evicted bytes, fewer GPUs, higher topology
 * score, then spread (larger smallest remaining free) or pack (smaller total leftover), then lowest
 * indices. Negative when candidate a of `fa` ranks before candidate b of `fb`. The kernels use the same key.
 */
export function compareCandidates(fa: PlacementFound, a: number, fb: PlacementFound, b: number, pack: boolean, indices = true): number {
  if (fa.evictCount[a] !== fb.evictCount[b]) return fa.evictCount[a] - fb.evictCount[b];
  if (fa.evictedBytes[a] !== fb.evictedBytes[b]) return fa.evictedBytes[a] < fb.evictedBytes[b] ? -1 : 1;
  const na = popcount(fa.masks[2 * a]) + popcount(fa.masks[2 * a + 1]);
  const nb = popcount(fb.masks[2 * b]) + popcount(fb.masks[2 * b + 1]);
  if (na !== nb) return na - nb;
  if (fa.score[a] !== fb.score[b]) return fb.score[b] - fa.score[a];
  if (pack) {
    if (fa.remainSum[a] !== fb.remainSum[b]) return fa.remainSum[a] < fb.remainSum[b] ? -1 : 1;
  } else if (fa.remainMin[a] !== fb.remainMin[b]) return fa.remainMin[a] > fb.remainMin[b] ? -1 : 1;
  return indices ? compareMasks(fa.masks[2 * a], fa.masks[2 * a + 1], fb.masks[2 * b], fb.masks[2 * b + 1]) : 0;
}

/** Bits set in a 32-bit integer. */
export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Eviction order: lastActivity ascending (missing = oldest), then slot ID in natural order. */
export function compareEvictionOrder(a: Slot, b: Slot): number {
  const la = a.lastActivity;
  const lb = b.lastActivity;
  if (la !== lb) {
    if (la === undefined) return -1;
    if (lb === undefined) return 1;
    return la - lb;
  }
  return compareNatural(a.id, b.id);
}

/** The request fields every plan shares (planPlacement and ClusterState.plan). */
export type PlanRequest = { memory: number; model?: string; sizes?: number[]; allowEviction: boolean; pack: boolean; limit: number };

/** Validates the request part of a plan (memory, model, sizes, eviction, policy, limit). */
export function validatePlanRequest(r: Record<string, unknown>): PlanRequest {
  const memory = requireInteger('memory', r.memory, 1, LIMITS.maxBytes);
  const model = r.model === undefined ? undefined : requireString('model', r.model, LIMITS.maxIdLength);
  let sizes: number[] | undefined;
  if (r.tensorParallelSizes !== undefined) {
    const raw = requireArray('tensorParallelSizes', r.tensorParallelSizes, LIMITS.maxGpus);
    if (raw.length === 0) fail('INVALID_ARGUMENT', 'tensorParallelSizes', 'at least one size', raw);
    const set = new Set<number>();
    raw.forEach((v, k) => set.add(requireInteger(`tensorParallelSizes[${k}]`, v, 1, LIMITS.maxGpus)));
    sizes = [...set].sort((x, y) => x - y);
  }
  const allowEviction = r.allowEviction === undefined ? true : requireBoolean('allowEviction', r.allowEviction);
  const policy = r.policy === undefined ? 'spread' : requireOneOf('policy', r.policy, ['spread', 'pack'] as const, 'UNKNOWN_POLICY');
  const limit = r.limit === undefined ? DEFAULT_PLACEMENT_LIMIT : requireInteger('limit', r.limit, 1, MAX_PLACEMENT_LIMIT);
  return { memory, model, sizes, allowEviction, pack: policy === 'pack', limit };
}

/** One node, validated: positions sorted by GPU index. Memory in bytes. */
export type NodeModel = {
  /** GPU index at each position, ascending. */
  index: number[];
  total: number[];
  slots: Slot[];
  topology?: Topology;
};

/** Validates GPUs, slots and topology of one node (field names prefixed by `prefix`). */
export function validateNode(gpusValue: unknown, slotsValue: unknown, topologyValue: unknown, prefix: string): NodeModel {
  const rawGpus = requireArray(`${prefix}gpus`, gpusValue, LIMITS.maxGpus);
  const list: Array<{ index: number; memoryTotal: number }> = [];
  const seen = new Set<number>();
  rawGpus.forEach((raw, k) => {
    const f = `${prefix}gpus[${k}]`;
    const g = requireObject(f, raw);
    const index = requireInteger(`${f}.index`, g.index, 0, 0x7fffffff);
    if (seen.has(index)) throw new AllocationError('DUPLICATE_DEVICE', `${f}.index: GPU index ${index} appears twice`, { field: `${f}.index` });
    seen.add(index);
    list.push({ index, memoryTotal: requireInteger(`${f}.memoryTotal`, g.memoryTotal, 0, LIMITS.maxBytes) });
  });
  list.sort((a, b) => a.index - b.index);
  let topology: Topology | undefined;
  if (topologyValue !== undefined) {
    topology = topologyFor(topologyValue, `${prefix}topology`).topology;
    for (const g of list) {
      if (g.index >= topology.gpus) throw new AllocationError('INVALID_TOPOLOGY', `${prefix}topology: GPU index ${g.index} is outside the topology of ${topology.gpus} GPUs`, { field: `${prefix}topology.gpus` });
    }
  }
  const slots = slotsValue === undefined ? [] : validateSlots(slotsValue, `${prefix}slots`, seen);
  return { index: list.map((g) => g.index), total: list.map((g) => g.memoryTotal), slots, topology };
}

/** Validates a slot list against the node's GPU indices; returns copies. */
export function validateSlots(value: unknown, field: string, indices: ReadonlySet<number>, ids: Set<string> = new Set()): Slot[] {
  const raw = requireArray(field, value, LIMITS.maxSlotsPerNode);
  return raw.map((v, k) => validateSlot(v, `${field}[${k}]`, indices, ids));
}

/** Validates one slot; `ids` collects slot IDs to catch duplicates. */
export function validateSlot(value: unknown, f: string, indices: ReadonlySet<number>, ids: Set<string>): Slot {
  const s = requireObject(f, value);
  const id = requireString(`${f}.id`, s.id, LIMITS.maxIdLength);
  if (ids.has(id)) throw new AllocationError('DUPLICATE_SLOT', `${f}.id: slot ID ${describeValue(id)} appears twice`, { field: `${f}.id` });
  ids.add(id);
  const gpusRaw = requireArray(`${f}.gpus`, s.gpus, LIMITS.maxGpus);
  if (gpusRaw.length === 0) fail('INVALID_ARGUMENT', `${f}.gpus`, 'at least one GPU index', gpusRaw);
  const gpus: number[] = [];
  gpusRaw.forEach((g, j) => {
    const idx = requireInteger(`${f}.gpus[${j}]`, g, 0, 0x7fffffff);
    if (!indices.has(idx)) throw new AllocationError('UNKNOWN_DEVICE_ID', `${f}.gpus[${j}]: GPU index ${idx} is not one of the node's GPUs`, { field: `${f}.gpus[${j}]` });
    if (gpus.includes(idx)) throw new AllocationError('DUPLICATE_DEVICE', `${f}.gpus[${j}]: GPU index ${idx} appears twice`, { field: `${f}.gpus[${j}]` });
    gpus.push(idx);
  });
  gpus.sort((a, b) => a - b);
  const slot: Slot = { id, gpus, memoryPerGpu: requireInteger(`${f}.memoryPerGpu`, s.memoryPerGpu, 0, LIMITS.maxBytes) };
  if (s.model !== undefined) slot.model = requireString(`${f}.model`, s.model, LIMITS.maxIdLength);
  if (s.lastActivity !== undefined) {
    if (typeof s.lastActivity !== 'number' || !Number.isFinite(s.lastActivity)) fail('INVALID_ARGUMENT', `${f}.lastActivity`, 'a finite number (ms since the epoch)', s.lastActivity);
    slot.lastActivity = s.lastActivity;
  }
  if (s.stale !== undefined) slot.stale = requireBoolean(`${f}.stale`, s.stale);
  return slot;
}

/** The pair-score matrix over a node's positions (null without topology). */
export function positionMatrix(topology: Topology | undefined, index: readonly number[]): Int32Array | null {
  if (topology === undefined) return null;
  const full = pairScoreMatrix(topology);
  const n = index.length;
  let identity = topology.gpus === n;
  for (let p = 0; identity && p < n; p++) identity = index[p] === p;
  if (identity) return full;
  const m = new Int32Array(n * n);
  for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) m[p * n + q] = p === q ? 0 : full[index[p] * topology.gpus + index[q]];
  return m;
}

/** The sizes to try on a node of `gpus` GPUs: the requested ones that fit, or 1..gpus. */
export function sizesFor(request: PlanRequest, gpus: number): number[] {
  if (request.sizes === undefined) return Array.from({ length: gpus }, (_, k) => k + 1);
  return request.sizes.filter((n) => n <= gpus);
}

/** True when the slot may be evicted for this request: stale, and not of the same model. */
export function isEvictable(slot: Slot, model: string | undefined): boolean {
  return slot.stale === true && (model === undefined || slot.model !== model);
}

/** formatBytes with a memo (for the many repeated sizes of one cluster plan's rejections). */
export function memoFormatBytes(): (bytes: number) => string {
  const memo = new Map<number, string>();
  return (bytes) => {
    let text = memo.get(bytes);
    if (text === undefined) {
      text = formatBytes(bytes);
      memo.set(bytes, text);
    }
    return text;
  };
}

/** Per-position availability used by rejections: free memory and what eviction could add (null: nothing). */
export function rejectionsFor(index: readonly number[], total: ArrayLike<number>, free: ArrayLike<number>, evictable: ArrayLike<number> | null, memory: number, sizes: readonly number[], node?: string, format: (bytes: number) => string = formatBytes, out: Rejection[] = []): Rejection[] {
  if (sizes.length === 0) return out;
  const n = sizes[sizes.length - 1];
  const share = shareOf(memory, n);
  const where = node === undefined ? '' : ` on node ${node}`;
  const need = `${format(share)} (1/${n} of ${format(memory)})`;
  for (let p = 0; p < index.length; p++) {
    if (total[p] < share) {
      const r: Rejection = { gpu: index[p], code: 'GPU_TOO_SMALL', message: `GPU ${index[p]}${where}: has ${format(total[p])} in all, less than its share ${need}`, shortBy: share - total[p] };
      if (node !== undefined) r.node = node;
      out.push(r);
      continue;
    }
    const e = evictable === null ? 0 : evictable[p];
    const avail = free[p] + e;
    if (avail < share) {
      const ev = e > 0 ? ` (${format(e)} of it by evicting stale slots)` : '';
      const r: Rejection = { gpu: index[p], code: 'INSUFFICIENT_MEMORY', message: `GPU ${index[p]}${where}: can free ${format(avail)}${ev}, less than its share ${need}; short by ${format(share - avail)}`, shortBy: share - avail };
      if (node !== undefined) r.node = node;
      out.push(r);
    }
  }
  return out;
}

/** Turns a kernel result's candidate into a public option. */
export function optionOf(found: PlacementFound, c: number, index: readonly number[], memory: number, stale: readonly Slot[], model: string | undefined, node?: string): PlacementOption {
  const gpus: number[] = [];
  const lo = found.masks[2 * c];
  const hi = found.masks[2 * c + 1];
  for (let p = 0; p < index.length; p++) if (((p < 32 ? lo >>> p : hi >>> (p - 32)) & 1) !== 0) gpus.push(index[p]);
  const evict: string[] = [];
  for (let k = found.evictStart[c]; k < found.evictStart[c + 1]; k++) evict.push(stale[found.evictions[k]].id);
  const memoryPerGpu = shareOf(memory, gpus.length);
  const score = found.score[c];
  // Literals, not a spread of a built-up head: V8 clones such objects on a slow path (microseconds each).
  if (node !== undefined) return model !== undefined ? { node, model, gpus, memoryPerGpu, evict, score } : { node, gpus, memoryPerGpu, evict, score };
  return model !== undefined ? { model, gpus, memoryPerGpu, evict, score } : { gpus, memoryPerGpu, evict, score };
}

/** Runs the kernel and turns a budget overflow into LIMIT_EXCEEDED. */
export function runSearch(kernels: Kernels, search: PlacementSearch): PlacementFound {
  const found = kernels.placementSearch(search);
  if (found.overflowSize > 0) throw budgetError(found.overflowSize, search.gpus);
  return found;
}

/** LIMIT_EXCEEDED for a search whose size `size` on a node of `gpus` GPUs passed the budget. */
export function budgetError(size: number, gpus: number): AllocationError {
  return new AllocationError('LIMIT_EXCEEDED', `tensorParallelSizes: size ${size} on a node of ${gpus} GPUs needs more than ${PLACEMENT_BUDGET} GPU subsets; restrict tensorParallelSizes`, { field: 'tensorParallelSizes' });
}

/** Mask halves of a list of positions. */
export function maskOf(positions: Iterable<number>): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const p of positions) {
    if (p < 32) lo |= 1 << p;
    else hi |= 1 << (p - 32);
  }
  return [lo, hi];
}

/** Plans every viable option on one node, best first, with per-GPU rejections. */
export function planPlacement(kernels: Kernels, request: PlacementRequest): PlacementPlan {
  const r = requireObject('request', request);
  const node = validateNode(r.gpus, r.slots, r.topology, '');
  const req = validatePlanRequest(r);
  const n = node.index.length;
  const pos = new Map<number, number>();
  node.index.forEach((idx, p) => pos.set(idx, p));
  const free = new Float64Array(n);
  const total = new Float64Array(node.total);
  for (let p = 0; p < n; p++) free[p] = node.total[p];
  for (const s of node.slots) {
    for (const g of s.gpus) {
      const p = pos.get(g)!;
      free[p] -= s.memoryPerGpu;
      if (node.total[p] - free[p] > LIMITS.maxBytes) fail('LIMIT_EXCEEDED', `slots`, `at most ${LIMITS.maxBytes} bytes allocated on GPU ${g}`, node.total[p] - free[p]);
    }
  }
  const stale = req.allowEviction ? node.slots.filter((s) => isEvictable(s, req.model)).sort(compareEvictionOrder) : [];
  const staleMasks = new Int32Array(2 * stale.length);
  const staleBytes = new Float64Array(stale.length);
  const evictable = new Float64Array(n);
  stale.forEach((s, k) => {
    const positions = s.gpus.map((g) => pos.get(g)!);
    [staleMasks[2 * k], staleMasks[2 * k + 1]] = maskOf(positions);
    staleBytes[k] = s.memoryPerGpu;
    for (const p of positions) evictable[p] += s.memoryPerGpu;
  });
  const sizes = sizesFor(req, n);
  const found = runSearch(kernels, {
    gpus: n,
    free,
    total,
    sizes: Int32Array.from(sizes),
    shares: Float64Array.from(sizes, (k) => shareOf(req.memory, k)),
    staleMasks,
    staleBytes,
    pairScores: positionMatrix(node.topology, node.index),
    pack: req.pack,
    limit: req.limit,
    budget: PLACEMENT_BUDGET,
  });
  const options: PlacementOption[] = [];
  for (let c = 0; c < found.count; c++) options.push(optionOf(found, c, node.index, req.memory, stale, req.model));
  const rejected = rejectionsFor(node.index, total, free, evictable, req.memory, sizes);
  const plan: PlacementPlan = { options, rejected };
  if (options.length === 0) plan.reason = noOptionReason(req.memory, sizes.length === 0 ? null : sizes.join(', '), n, rejected.length);
  return plan;
}

/** The reason of an empty plan. */
export function noOptionReason(memory: number, sizes: string | null, gpus: number, rejectedCount: number): Reason {
  if (sizes === null) return { code: 'INSUFFICIENT_DEVICES', message: `no allowed tensor-parallel size fits ${gpus} GPUs` };
  return { code: 'NO_VIABLE_OPTION', message: `no set of ${sizes} GPUs has room for ${formatBytes(memory)}, even after allowed evictions (${rejectedCount}/${gpus} GPUs cannot take their share)` };
}
