// gpualloc plan's model side: --memory as typed, the tensor-parallel sizes to try (powers of two;
// with --gguf only those the model's heads allow), and per-GPU memory per size for --gguf, planned
// size by size and merged in the placement ranking.

import type { ClusterPlanRequest, ClusterState } from '../../cluster/state.js';
import type { Engine } from '../../engine.js';
import type { MemoryEstimate } from '../../models/estimate.js';
import { type DroppedSize, defaultTensorParallelSizes, perGpuMemory, tensorParallelProblem } from '../../models/tensor-parallel.js';
import { MAX_PLACEMENT_LIMIT, type PlacementOption, type PlacementPlan } from '../../placement/index.js';
import { binomial } from '../../shared/bits.js';
import { LIMITS } from '../../shared/limits.js';
import { didYouMean } from '../../shared/suggest.js';
import { type ByteUnits, formatBytes, parseBytes, unitsOf } from '../../shared/units.js';
import { parseIntList, UsageError } from './common.js';

/** Most nodes whose options are counted one by one when a plan has more than MAX_PLACEMENT_LIMIT (beyond: `at least`). */
const MAX_COUNTED_NODES = 64;

/**
 * How many options `request` (one size) has in all, however many that is: on each node, every set of
 * that many GPUs none of which is rejected (a GPU takes its share when it has the memory, or would
 * after allowed evictions: the search's own rule), so the per-GPU rejections of a one-option plan
 * count them. Undefined past MAX_COUNTED_NODES nodes.
 */
export function countOptions(engine: Engine, state: Pick<ClusterState, 'toJSON'>, request: ClusterPlanRequest & { tensorParallelSizes: [number] }): number | undefined {
  const json = state.toJSON();
  if (json.nodes.length > MAX_COUNTED_NODES) return undefined;
  const size = request.tensorParallelSizes[0];
  let count = 0;
  for (const node of json.nodes) {
    if (node.gpus.length < size) continue;
    const { maxNodes: _m, topology: _t, attentionHeads: _h, ...one } = request;
    const p = engine.planPlacement({ ...one, gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), limit: 1 });
    const rejected = new Set(p.rejected.map((r) => r.gpu)).size;
    count += binomial(node.gpus.length - rejected, size);
  }
  return count;
}

/** Below this, a bare `--memory` number (bytes) is surely a forgotten unit. */
export const MIN_BARE_MEMORY = 2 ** 20;

/** The model's memory as the user gave it: a total (--memory, with the units typed) or a GGUF estimate. */
export type ModelMemory = { kind: 'total'; memory: number; units: ByteUnits } | { kind: 'gguf'; file: string; estimate: MemoryEstimate };

/** A plan over the chosen sizes, with how many options there are in all and the sizes' story. */
export type ModelPlan = {
  plan: PlacementPlan;
  /** Options in all (past MAX_PLACEMENT_LIMIT, counted node by node; `countCapped` says when they could not be: at least that many exist). */
  optionCount: number;
  countCapped: boolean;
  sizes: number[];
  /** Default sizes left out for the model's heads, with the reason (empty with --tp). */
  dropped: DroppedSize[];
  /** Whether the sizes were the default (powers of two) rather than --tp. */
  defaultSizes: boolean;
  /** GPUs of the largest node (at least 1): the default sizes go up to it. */
  gpus: number;
  /** With --gguf: bytes per GPU for each size tried. */
  memoryPerGpu?: Record<number, number>;
  /** --tp sizes the model's heads do not allow (planned anyway: an explicit --tp wins). */
  warnings: string[];
  /** The request whose rejections are shown (the size with the least memory per GPU). */
  explainRequest: ClusterPlanRequest;
};

/**
 * Parses `--memory SIZE`: a size with a unit (80GB, 140GiB, 512MiB) or a byte count of at least 1 MiB;
 * a smaller bare number is an error that suggests a unit (`--memory 12` almost surely meant 12 GB).
 */
export function parseMemoryFlag(text: string): ModelMemory & { kind: 'total' } {
  const t = text.trim();
  if (/^-\.?[0-9]/.test(t)) throw new UsageError(`--memory ${t}: a size cannot be negative; give the memory the model needs, such as --memory 140GB`);
  const bare = /^\s*[0-9]+(?:\.[0-9]+)?\s*$/.test(text);
  if (bare && Number(text) === 0) throw new UsageError(`--memory ${t}: expected a size above zero, such as --memory 140GB`);
  if (bare && Number(text) < MIN_BARE_MEMORY) {
    const n = t;
    throw new UsageError(`--memory ${n}: a bare number is a byte count, and ${n} bytes is surely not the model's size; give a unit, such as --memory ${n}GB or --memory ${n}GiB`);
  }
  const memory = parseBytes(text, `--memory ${text.trim()}`);
  if (memory < 1) throw new UsageError(`--memory ${text.trim()}: expected a size above zero, such as --memory 140GB`);
  if (memory > LIMITS.maxBytes) throw new UsageError(`--memory ${text.trim()}: at most ${formatBytes(LIMITS.maxBytes, unitsOf(text))} is accepted`);
  return { kind: 'total', memory, units: unitsOf(text) };
}

/** Parses `--tp 1,2,4,8`: sizes from 1 to the GPU limit, each once. */
export function parseTpFlag(text: string): number[] {
  const sizes = parseIntList(text, '--tp');
  if (sizes.length === 0) throw new UsageError('--tp: expected one or more sizes such as 1,2,4,8, got ""');
  for (const n of sizes) if (n < 1 || n > LIMITS.maxGpus) throw new UsageError(`--tp ${text}: each size must be from 1 to ${LIMITS.maxGpus}, got ${n}`);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** Parses `--policy`: spread or pack (with a hint for the replicas spelling `packed`). */
export function parsePolicyFlag(text: string): 'spread' | 'pack' {
  if (text === 'spread' || text === 'pack') return text;
  throw new UsageError(`--policy: expected spread or pack, got ${JSON.stringify(text)}${didYouMean(text, ['spread', 'pack'])}`);
}

/** Parses `--limit N`: how many options to print, 1 .. MAX_PLACEMENT_LIMIT. */
export function parseLimitFlag(text: string): number {
  const n = /^\s*[0-9]+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PLACEMENT_LIMIT) throw new UsageError(`--limit: expected an integer from 1 to ${MAX_PLACEMENT_LIMIT}, got ${JSON.stringify(text)}`);
  return n;
}

/** API field names of a plan request and the plan flags that set them, for errors in the CLI's words. */
export const PLAN_FLAGS: Readonly<Record<string, string>> = {
  memory: '--memory',
  tensorParallelSizes: '--tp',
  policy: '--policy',
  limit: '--limit',
  model: '--model',
  allowEviction: '--no-evict',
  allowMig: '--allow-mig',
};

/** Bytes an option's evictions free, as the ranking counts them (memoryPerGpu × GPUs of each evicted slot). */
function _evictedBytes(option: PlacementOption, slotBytes: Map<string, number>): number {
  let sum = 0;
  for (const id of option.evict) sum += slotBytes.get(`${option.node ?? ''}\u0000${id}`) ?? 0;
  return sum;
}

/**
 * Plans `model` on `state` over the sizes to try: `tp` when given, else powers of two up to the
 * largest node (for a GGUF, only those its heads allow). A total is planned once (split evenly);
 * a GGUF is planned once per size with that size's per-GPU memory (perGpuMemory), and the lists are
 * merged by the placement ranking (evictions, evicted bytes, then GPU count, which tells sizes apart;
 * within a size each plan's own order stands). Returns the first `limit` options.
 */
export function planModel(
  state: Pick<ClusterState, 'plan' | 'toJSON'>,
  base: Omit<ClusterPlanRequest, 'memory' | 'tensorParallelSizes' | 'limit'>,
  model: ModelMemory,
  tp: number[] | undefined,
  limit: number,
  engine?: Engine,
): ModelPlan {
  const json = state.toJSON();
  const gpus = Math.max(1, ...json.nodes.map((n) => n.gpus.length));
  const tooLarge = tp?.find((n) => n > gpus);
  if (tooLarge !== undefined) throw new UsageError(`--tp ${tp!.join(',')}: ${tooLarge} is more GPUs than the largest node has (${gpus})`);
  const chosen = tp !== undefined ? { sizes: tp, dropped: [] } : defaultTensorParallelSizes(gpus, model.kind === 'gguf' ? model.estimate : undefined);
  const sizes = chosen.sizes;
  const warnings: string[] = [];
  if (tp !== undefined && model.kind === 'gguf') {
    for (const size of tp) {
      const problem = tensorParallelProblem(size, model.estimate);
      if (problem !== undefined) warnings.push(`--tp ${size}: ${problem}; planned anyway, as given`);
    }
  }
  const plan = (request: ClusterPlanRequest): PlacementPlan => state.plan(request);
  /** Options of the sizes in all, when the plan listed as many as it may (MAX_PLACEMENT_LIMIT); undefined when they cannot be counted. */
  const countAll = (memoryOf: (size: number) => number, of: number[]): number | undefined => {
    if (engine === undefined) return undefined;
    let sum = 0;
    for (const size of of) {
      const n = countOptions(engine, state, { ...base, memory: memoryOf(size), tensorParallelSizes: [size] });
      if (n === undefined) return undefined;
      sum += n;
    }
    return sum;
  };
  if (model.kind === 'total') {
    // One node's options, all of them (to count them); options across nodes only for the lines shown (their search grows with the limit).
    const request: ClusterPlanRequest = { ...base, memory: model.memory, tensorParallelSizes: sizes, limit: MAX_PLACEMENT_LIMIT, maxNodes: 1 };
    let all = plan(request);
    if (base.maxNodes !== 1 && (all.options.length === 0 || (base.maxNodes !== undefined && all.options.length < limit))) {
      const { maxNodes: _one, ...across } = request;
      all = plan({ ...across, ...(base.maxNodes === undefined ? {} : { maxNodes: base.maxNodes }), limit });
    }
    const listed = all.options.length;
    const counted = listed >= MAX_PLACEMENT_LIMIT ? countAll(() => model.memory, sizes) : listed;
    return {
      plan: all.reason === undefined ? { ...all, options: all.options.slice(0, limit) } : all,
      optionCount: counted ?? listed,
      countCapped: counted === undefined,
      sizes,
      dropped: chosen.dropped,
      defaultSizes: tp === undefined,
      gpus,
      warnings,
      explainRequest: { ...request, limit: 1 },
    };
  }
  const memoryPerGpu: Record<number, number> = {};
  const slotBytes = new Map<string, number>();
  for (const node of json.nodes) for (const s of node.slots) slotBytes.set(`${node.id}\u0000${s.id}`, s.memoryPerGpu * s.gpus.length);
  const merged: Array<{ option: PlacementOption; evictedBytes: number; order: number }> = [];
  let leanest: { request: ClusterPlanRequest; plan: PlacementPlan; perGpu: number } | undefined;
  let optionCount = 0;
  let countCapped = false;
  for (const size of sizes) {
    const perGpu = perGpuMemory(model.estimate, size);
    memoryPerGpu[size] = perGpu;
    // Options across nodes are planned from a total (--memory): a GGUF's per-GPU memory depends on the size.
    const request: ClusterPlanRequest = { ...base, memory: perGpu * size, tensorParallelSizes: [size], limit: MAX_PLACEMENT_LIMIT, maxNodes: 1 };
    const p = plan(request);
    if (p.options.length >= MAX_PLACEMENT_LIMIT) {
      const counted = countAll(() => perGpu * size, [size]);
      if (counted === undefined) countCapped = true;
      optionCount += counted ?? p.options.length;
    } else optionCount += p.options.length;
    p.options.forEach((option, k) => merged.push({ option, evictedBytes: _evictedBytes(option, slotBytes), order: k }));
    if (leanest === undefined || perGpu < leanest.perGpu) leanest = { request, plan: p, perGpu };
  }
  merged.sort((a, b) => a.option.evict.length - b.option.evict.length || a.evictedBytes - b.evictedBytes || a.option.gpus.length - b.option.gpus.length || a.order - b.order);
  const options = merged.slice(0, limit).map((m) => m.option);
  const rejected = leanest?.plan.rejected ?? [];
  const result: PlacementPlan = options.length === 0 && leanest?.plan.reason !== undefined ? { options: [], rejected, reason: leanest.plan.reason } : { options, rejected };
  return {
    plan: result,
    optionCount,
    countCapped,
    sizes,
    dropped: chosen.dropped,
    defaultSizes: tp === undefined,
    gpus,
    warnings,
    memoryPerGpu,
    explainRequest: { ...(leanest?.request ?? { ...base, memory: model.estimate.total }), limit: 1 },
  };
}

/** One line on the sizes: which were tried, why some were dropped. */
export function sizesLine(p: ModelPlan): string {
  const tried = `tensor-parallel sizes ${p.sizes.join(', ')}`;
  const why = p.defaultSizes ? ` (default: powers of two up to ${p.gpus} GPU${p.gpus === 1 ? '' : 's'}${p.dropped.length > 0 ? ', as the model allows' : ''})` : ' (--tp)';
  const dropped = p.dropped.length === 0 ? '' : `; dropped ${p.dropped.map((d) => `${d.size}: ${d.reason}`).join('; ')}`;
  return `${tried}${why}${dropped}`;
}
