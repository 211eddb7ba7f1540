// Rollouts on close decisions (docs/fleet.md, "Lookahead on close decisions"): a policy may carry a
// lookahead. When the best candidates of a pick are close (the best n nodes by the policy's score, in
// the scan's order, those within δ of the best), the pod goes to the one whose node state it damages
// least: the GPU milli that M sampled continuations of K pods each would place on that node without
// the pod, less what they would place with it. A continuation draws pods uniformly from the workload
// (CPU-only pods included, GPU pods only of a model the node has) and places each that fits the node
// greedily: a share on its tightest GPU, whole GPUs on wholly free ones, CPU and memory taken. The same
// continuations run with and without the pod (common random numbers). The kernels roll out
// (src/baseline/fleet-rollout.ts, assembly/fleet-rollout.ts); this module validates the setting,
// writes the lookahead block of the layout (its sampling table) and makes each decision's seed.
// The random policy, which has no score, ignores a lookahead.
//
// The sampler: each decision seeds a mulberry32 stream (src/fleet/prng.ts's generator, written
// alike in both kernels on 32-bit integers) from the scheduler's seed, the number of node changes it
// has seen and the pod's request (decisionSeed), so a plan repeated on an unchanged state rolls out
// the same continuations and the same input and seed give the same placements on both backends. A
// draw is `next() mod T` (T: the pods of the workload the node's model row can draw), found in the
// row's cumulative counts (the first shape whose count exceeds it: a guide table names where to start
// the search, so the draw is the one a binary search finds); the candidates draw in their order, each
// M × K shapes. A continuation stops once its node has no GPU milli free or less CPU or memory left
// than any GPU pod of the workload asks (nothing after it could add to the milli it places).
// Index reads carry `!`: offsets come from the block this module lays out.

import { LIMITS } from '../shared/limits.js';
import { fail, rejectUnknownKeys, requireInteger, requireObject, requireOneOf } from '../shared/validate.js';
import * as L from './layout.js';
import { modelMask, type Pod } from './types.js';

/** Which pods a lookahead applies to: shares only, every GPU pod, or every pod. */
export type LookaheadScope = 'shares' | 'gpu' | 'all';

/** A policy's lookahead on close decisions (see the module comment). */
export type Lookahead = {
  /** δ: candidates within this much of the best score are close (score units of the policy; 0: exact ties). */
  readonly delta: number;
  /** M: continuations per candidate. */
  readonly continuations: number;
  /** K: pods per continuation. */
  readonly depth: number;
  /** Which pods are looked ahead on. */
  readonly scope: LookaheadScope;
  /** n: the best n candidates compared (2 or more). */
  readonly candidates: number;
};

const SCOPES: readonly LookaheadScope[] = ['shares', 'gpu', 'all'];

/** A lookahead setting checked: an AllocationError naming the field otherwise. */
export function validateLookahead(field: string, value: unknown): Lookahead {
  const o = requireObject(field, value);
  rejectUnknownKeys(field, o, ['delta', 'continuations', 'depth', 'scope', 'candidates']);
  if (typeof o.delta !== 'number' || !(o.delta >= 0 && o.delta < Number.POSITIVE_INFINITY)) fail('INVALID_ARGUMENT', `${field}.delta`, 'a finite number of 0 or more', o.delta);
  const continuations = requireInteger(`${field}.continuations`, o.continuations, 1, LIMITS.maxLookaheadContinuations);
  const depth = requireInteger(`${field}.depth`, o.depth, 1, LIMITS.maxLookaheadDepth);
  const candidates = requireInteger(`${field}.candidates`, o.candidates, 2, LIMITS.maxLookaheadCandidates);
  const scope = requireOneOf(`${field}.scope`, o.scope, SCOPES);
  return { delta: o.delta, continuations, depth, scope, candidates };
}

/** The lookahead block's sizes: ints (header fields and tables) and floats (δ, the candidates' scores). */
export function lookaheadSize(look: Lookahead, sampling: Sampling, rows: number, maxGpus: number): { ints: number; floats: number } {
  const shapes = sampling.count.length;
  if (shapes * (rows + 1) > LIMITS.maxLookaheadTable)
    fail('LIMIT_EXCEEDED', 'typical', `a workload of at most ${LIMITS.maxLookaheadTable} distinct pod shapes × (GPU models + 1) for the policy's lookahead to sample`, shapes * (rows + 1));
  return {
    ints: L.LK_FIELDS + shapes * L.SHAPE_FIELDS + rows * shapes + rows * (1 << guideBits(shapes)) + look.candidates * L.CAND_FIELDS + look.continuations * look.depth + 4 * maxGpus,
    floats: 1 + look.candidates,
  };
}

/** The workload's pod shapes: SHAPE_FIELDS ints each (cpu, memory, GPU count, milli), their model masks (-1: any) and counts of pods. */
export type Sampling = { shape: Int32Array; mask: Int32Array; count: Int32Array };

/** The workload's pod shapes, each with its count of pods, in order of first appearance. */
export function samplingShapes(workload: readonly Pod[], bits: ReadonlyMap<string, number>): Sampling {
  const at = new Map<string, number>();
  const shape: number[] = [];
  const mask: number[] = [];
  const count: number[] = [];
  for (const p of workload) {
    const m = p.gpus === 0 ? -1 : modelMask(p.models, bits);
    const key = `${p.cpu},${p.memory},${p.gpus},${p.milli},${m}`;
    const k = at.get(key);
    if (k !== undefined) {
      count[k]!++;
      continue;
    }
    at.set(key, count.length);
    shape.push(p.cpu, p.memory, p.gpus, p.milli);
    mask.push(m);
    count.push(1);
  }
  return { shape: Int32Array.from(shape), mask: Int32Array.from(mask), count: Int32Array.from(count) };
}

/**
 * Writes the lookahead block (sized by lookaheadSize) into the layout's arrays at `at` (ints) and
 * `fAt` (floats), and their offsets into the header: the setting, the workload's shapes and, per model row (row 0: nodes
 * without shareable GPUs, row b + 1: model bit b, `rows` in all), the cumulative counts of the pods
 * such a node draws (CPU-only pods everywhere, GPU pods where their model mask has the row's bit).
 */
export function writeLookahead(s: Int32Array, f: Float64Array, at: number, fAt: number, look: Lookahead, sampling: Sampling, rows: number): void {
  const { shape, mask, count } = sampling;
  const shapes = count.length;
  const bits = guideBits(shapes);
  s[L.H_LOOK_AT] = at;
  s[L.H_F_LOOK] = fAt;
  s[at + L.LK_CANDIDATES] = look.candidates;
  s[at + L.LK_CONTINUATIONS] = look.continuations;
  s[at + L.LK_DEPTH] = look.depth;
  s[at + L.LK_SCOPE] = SCOPES.indexOf(look.scope);
  s[at + L.LK_SEED] = 0;
  s[at + L.LK_SHAPES] = shapes;
  s[at + L.LK_ROWS] = rows;
  s[at + L.LK_LOOKUPS] = 0;
  s[at + L.LK_GUIDE_BITS] = bits;
  const shapeAt = at + L.LK_FIELDS;
  const cumAt = shapeAt + shapes * L.SHAPE_FIELDS;
  const guideAt = cumAt + rows * shapes;
  const candAt = guideAt + rows * (1 << bits);
  const seqAt = candAt + look.candidates * L.CAND_FIELDS;
  s[at + L.LK_SHAPE_AT] = shapeAt;
  s[at + L.LK_CUM_AT] = cumAt;
  s[at + L.LK_GUIDE_AT] = guideAt;
  s[at + L.LK_CAND_AT] = candAt;
  s[at + L.LK_SEQ_AT] = seqAt;
  s[at + L.LK_GPU_AT] = seqAt + look.continuations * look.depth;
  s.set(shape, shapeAt);
  let minCpu = 0x7fffffff;
  let minMem = 0x7fffffff;
  for (let i = 0; i < shapes; i++) {
    if (shape[i * L.SHAPE_FIELDS + 2] === 0 || shape[i * L.SHAPE_FIELDS + 3] === 0) continue;
    minCpu = Math.min(minCpu, shape[i * L.SHAPE_FIELDS]!);
    minMem = Math.min(minMem, shape[i * L.SHAPE_FIELDS + 1]!);
  }
  s[at + L.LK_MIN_CPU] = minCpu;
  s[at + L.LK_MIN_MEM] = minMem;
  for (let r = 0; r < rows; r++) {
    const bit = r === 0 ? 0 : 1 << (r - 1);
    const row = cumAt + r * shapes;
    let sum = 0;
    for (let i = 0; i < shapes; i++) {
      if (shape[i * L.SHAPE_FIELDS + 2] === 0 || (mask[i]! & bit) !== 0) sum += count[i]!;
      s[row + i] = sum;
    }
    // The guide: bucket b starts the search for a draw u with u >> shift = b at the first shape whose count exceeds b << shift.
    const shift = guideShift(sum, bits);
    for (let b = 0, i = 0; b < 1 << bits; b++) {
      while (i < shapes - 1 && s[row + i]! <= b * 2 ** shift) i++;
      s[guideAt + r * (1 << bits) + b] = i;
    }
  }
  f[fAt] = look.delta;
}

/** log2 of the guide table's buckets per row: the least power of two of at least `shapes` buckets. */
export function guideBits(shapes: number): number {
  return shapes <= 1 ? 0 : 32 - Math.clz32(shapes - 1);
}

/** A row's guide shift: draws u < total fall in bucket u >> shift, fewer than 2^bits buckets (both kernels compute it alike). */
export function guideShift(total: number, bits: number): number {
  return total <= 1 ? 0 : Math.max(0, 32 - Math.clz32(total - 1) - bits);
}

/** One mulberry32 step of `h` mixed with `v` (a 32-bit hash step). */
function mix(h: number, v: number): number {
  let t = (h ^ Math.imul(v | 0, 0x9e3779b1)) + 0x6d2b79f5;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) | 0;
}

/** A decision's seed: the scheduler's seed, the node changes it has seen, and the pod's request (cpu, memory, GPUs, milli, model mask). */
export function decisionSeed(seed: number, changes: number, cpu: number, memory: number, gpus: number, milli: number, mask: number): number {
  const h = mix(mix(seed | 0, changes), Math.floor(changes / 4294967296));
  return mix(mix(mix(mix(mix(h, cpu), memory), gpus), milli), mask);
}
