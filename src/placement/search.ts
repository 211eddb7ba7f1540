// The plumbing around a placement search, shared by planPlacement and the cluster state's search:
// shares, the ranking key, eviction order, the kernel input's masks and matrices, turning kernel
// results into options, per-GPU rejections and the reason of an empty plan.

import { pairScoreMatrix, type Topology } from '../hardware/topology.js';
import { ctz, lexBefore, popcount } from '../shared/bits.js';
import { AllocationError, type Reason } from '../shared/errors.js';
import { compareNatural } from '../shared/natural-order.js';
import { formatBytes } from '../shared/units.js';
import { PLACEMENT_BUDGET, type PlacementFound, type PlacementKernels, type PlacementOption, type PlacementSearch, type PlanRequest, type Rejection, type Slot } from './types.js';

/** ceil(memory / n) exactly for memory < 2^53. */
export function shareOf(memory: number, n: number): number {
  let q = Math.floor(memory / n);
  while (q * n < memory) q++;
  while (q > 0 && (q - 1) * n >= memory) q--;
  return q;
}

/** Lowest-index-first comparison of two equal-size GPU sets given as mask halves: negative when a ranks first. */
export function compareMasks(aLo: number, aHi: number, bLo: number, bHi: number): number {
  if (aLo !== bLo) return lexBefore(aLo, bLo) ? -1 : 1;
  if (aHi !== bHi) return lexBefore(aHi, bHi) ? -1 : 1;
  return 0;
}

/**
 * The ranking key, written once: fewer evictions, fewer evicted bytes, fewer GPUs, higher topology
 * score, then spread (larger smallest remaining free) or pack (smaller total leftover), then lowest
 * indices. Negative when candidate a of `fa` ranks before candidate b of `fb`. The kernels use the same key.
 * a and b are candidates of their results (below count: every array has an entry for them, masks two).
 */
export function compareCandidates(fa: PlacementFound, a: number, fb: PlacementFound, b: number, pack: boolean, indices = true): number {
  if (fa.evictCount[a] !== fb.evictCount[b]) return fa.evictCount[a]! - fb.evictCount[b]!;
  if (fa.evictedBytes[a] !== fb.evictedBytes[b]) return fa.evictedBytes[a]! < fb.evictedBytes[b]! ? -1 : 1;
  const na = popcount(fa.masks[2 * a]!) + popcount(fa.masks[2 * a + 1]!);
  const nb = popcount(fb.masks[2 * b]!) + popcount(fb.masks[2 * b + 1]!);
  if (na !== nb) return na - nb;
  if (fa.score[a] !== fb.score[b]) return fb.score[b]! - fa.score[a]!;
  if (pack) {
    if (fa.remainSum[a] !== fb.remainSum[b]) return fa.remainSum[a]! < fb.remainSum[b]! ? -1 : 1;
  } else if (fa.remainMin[a] !== fb.remainMin[b]) return fa.remainMin[a]! > fb.remainMin[b]! ? -1 : 1;
  return indices ? compareMasks(fa.masks[2 * a]!, fa.masks[2 * a + 1]!, fb.masks[2 * b]!, fb.masks[2 * b + 1]!) : 0;
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

/** The pair-score matrix over a node's positions (null without topology). */
export function positionMatrix(topology: Topology | undefined, index: readonly number[]): Int32Array | null {
  if (topology === undefined) return null;
  const full = pairScoreMatrix(topology);
  const n = index.length;
  let identity = topology.gpus === n;
  for (let p = 0; identity && p < n; p++) identity = index[p] === p;
  if (identity) return full;
  const m = new Int32Array(n * n);
  // index holds GPU indices of the topology (validated), so every read is inside its gpus × gpus matrix.
  for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) m[p * n + q] = p === q ? 0 : full[index[p]! * topology.gpus + index[q]!]!;
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

/**
 * formatBytes, remembered in a direct-mapped table of 1,024 entries (a byte count's slot comes from a
 * hash of its two 32-bit halves; a new count takes the slot over): plans format the same sizes again
 * and again, and a lookup here costs about half of a Map's with number keys.
 */
const formattedKeys = new Float64Array(1024).fill(NaN);
const formattedTexts: string[] = new Array<string>(1024).fill('');
function formatBytesMemo(bytes: number): string {
  const slot = Math.imul((bytes >>> 0) ^ ((bytes / 4294967296) | 0), 0x9e3779b1) >>> 22;
  // NaN never equals itself, so an empty slot (or NaN bytes) always formats.
  if (formattedKeys[slot] === bytes) return formattedTexts[slot]!; // slot < 1024, both tables' length
  const text = formatBytes(bytes);
  formattedKeys[slot] = bytes;
  formattedTexts[slot] = text;
  return text;
}

/**
 * Per-position availability used by rejections: memoryTotal, free memory and what eviction could add
 * (null: nothing). `used`: memoryUsed per position (null: none); a GPU with used memory that cannot
 * take its share says how much is in use by other processes (never evictable).
 */
export function rejectionsFor(
  index: readonly number[],
  total: ArrayLike<number>,
  free: ArrayLike<number>,
  evictable: ArrayLike<number> | null,
  memory: number,
  sizes: readonly number[],
  node?: string,
  out: Rejection[] = [],
  used: ArrayLike<number> | null = null,
  mig: ArrayLike<boolean | number> | null = null,
): Rejection[] {
  const format = formatBytesMemo;
  if (sizes.length === 0) return out;
  const n = sizes[sizes.length - 1]!; // not empty (above)
  const share = shareOf(memory, n);
  const where = node === undefined ? '' : ` on node ${node}`;
  // The message tails that name the share, formatted at the first rejection (most plans that find options have none).
  let inAll: string | undefined;
  let shortBy: string | undefined;
  // The per-position lists are as long as index.
  for (let p = 0; p < index.length; p++) {
    const gpu = index[p]!;
    if (mig?.[p]) {
      const r: Rejection = { gpu, code: 'MIG_MODE', message: migMessage(gpu, where) };
      if (node !== undefined) r.node = node;
      out.push(r);
      continue;
    }
    const t = total[p]!;
    if (t < share) {
      inAll ??= ` in all, less than its share ${format(share)} (1/${n} of ${format(memory)})`;
      const head = `GPU ${gpu}${where}: has ${format(t)}`;
      const r: Rejection = { gpu, code: 'GPU_TOO_SMALL', message: head + inAll, shortBy: share - t };
      if (node !== undefined) r.node = node;
      out.push(r);
      continue;
    }
    const e = evictable === null ? 0 : evictable[p]!;
    const avail = free[p]! + e;
    if (avail < share) {
      shortBy ??= `, less than its share ${format(share)} (1/${n} of ${format(memory)}); short by `;
      let head = `GPU ${gpu}${where}: can free ${format(avail)}`;
      const u = used === null ? 0 : used[p]!;
      if (e > 0 && u > 0) head = `${head} (${format(e)} of it by evicting stale slots; ${format(u)} in use by other processes)`;
      else if (e > 0) head = `${head} (${format(e)} of it by evicting stale slots)`;
      else if (u > 0) head = `${head} (${format(u)} in use by other processes)`;
      const r: Rejection = { gpu, code: 'INSUFFICIENT_MEMORY', message: head + shortBy + format(share - avail), shortBy: share - avail };
      if (node !== undefined) r.node = node;
      out.push(r);
    }
  }
  return out;
}

/** Why GPU `gpu` is left out of a whole-GPU pick: `GPU 3 is in MIG mode (…)`; `where` is ` on node X` or ''. */
export function migMessage(gpu: number, where = ''): string {
  return `GPU ${gpu}${where} is in MIG mode (its slices are allocated with gpualloc replicas)`;
}

/** The GPU indices of a kernel result's candidate `c`: the set bits of its mask, lowest first. */
function optionGpus(found: PlacementFound, c: number, index: readonly number[]): number[] {
  // c is below found.count; a mask's bits are positions of index.
  const lo0 = found.masks[2 * c]!;
  const hi0 = found.masks[2 * c + 1]!;
  // An array of its final length (growing an empty one by push costs a third more here).
  const gpus: number[] = new Array(popcount(lo0) + popcount(hi0));
  let j = 0;
  for (let lo = lo0; lo !== 0; lo &= lo - 1) gpus[j++] = index[ctz(lo)]!;
  for (let hi = hi0; hi !== 0; hi &= hi - 1) gpus[j++] = index[32 + ctz(hi)]!;
  return gpus;
}

/** The IDs of the stale slots a kernel result's candidate `c` evicts, in eviction order. */
function optionEvict(found: PlacementFound, c: number, stale: readonly Slot[]): string[] {
  // evictStart has count + 1 entries; evictions[e0 .. e1) are positions in the eviction order.
  const e0 = found.evictStart[c]!;
  const e1 = found.evictStart[c + 1]!;
  const evict: string[] = e1 === e0 ? [] : new Array(e1 - e0);
  for (let k = e0; k < e1; k++) evict[k - e0] = stale[found.evictions[k]!]!.id;
  return evict;
}

/**
 * Turns a kernel result's candidate into a public option (nodeOptionOf adds the node). Literals, not
 * a spread of a built-up head: V8 clones such objects on a slow path (microseconds each); and one
 * function per shape: one that also chose whether to name a node took a fifth longer per option.
 */
export function optionOf(found: PlacementFound, c: number, index: readonly number[], memory: number, stale: readonly Slot[], model: string | undefined): PlacementOption {
  const gpus = optionGpus(found, c, index);
  const evict = optionEvict(found, c, stale);
  const memoryPerGpu = shareOf(memory, gpus.length);
  const score = found.score[c]!; // c is below found.count
  return model !== undefined ? { model, gpus, memoryPerGpu, evict, score } : { gpus, memoryPerGpu, evict, score };
}

/** optionOf for a cluster plan: the option names its node. */
export function nodeOptionOf(found: PlacementFound, c: number, index: readonly number[], memory: number, stale: readonly Slot[], model: string | undefined, node: string): PlacementOption {
  const gpus = optionGpus(found, c, index);
  const evict = optionEvict(found, c, stale);
  const memoryPerGpu = shareOf(memory, gpus.length);
  const score = found.score[c]!; // c is below found.count
  return model !== undefined ? { node, model, gpus, memoryPerGpu, evict, score } : { node, gpus, memoryPerGpu, evict, score };
}

/** Runs the kernel and turns a budget overflow into LIMIT_EXCEEDED. */
export function runSearch(kernels: PlacementKernels, search: PlacementSearch): PlacementFound {
  const found = kernels.placementSearch(search);
  if (found.overflowSize > 0) throw budgetError(found.overflowSize, search.gpus);
  return found;
}

/** LIMIT_EXCEEDED for a search whose size `size` on a node of `gpus` GPUs passed the budget. */
export function budgetError(size: number, gpus: number): AllocationError {
  return AllocationError.at('LIMIT_EXCEEDED', 'tensorParallelSizes', [
    `size ${size} on a node of ${gpus} GPUs needs more than ${PLACEMENT_BUDGET} GPU subsets; restrict `,
    { field: ['tensorParallelSizes'] },
  ]);
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

/** The reason of an empty plan. */
export function noOptionReason(memory: number, sizes: string | null, gpus: number, rejectedCount: number, of?: { listed: number; nodes: number }, migCount = 0): Reason {
  if (sizes === null) return { code: 'INSUFFICIENT_DEVICES', message: `no allowed tensor-parallel size fits ${gpus} GPUs` };
  let counted = of === undefined ? `${rejectedCount}/${gpus} GPUs cannot take their share` : `${rejectedCount}/${gpus} GPUs of the first ${of.listed} of ${of.nodes} nodes cannot take their share`;
  if (migCount > 0) counted += `, ${migCount} of them in MIG mode: whole-GPU picks leave MIG GPUs out unless allowed`;
  return { code: 'NO_VIABLE_OPTION', message: `no set of ${sizes} GPUs has room for ${formatBytes(memory)}, even after allowed evictions (${counted})` };
}
