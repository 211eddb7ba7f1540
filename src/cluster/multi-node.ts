// Options across several nodes (ClusterState.plan, a model no node holds alone): tensor-parallel
// inside each node × pipeline stages across nodes, by vLLM's rules (docs/multi-node.md): the same
// tensor-parallel size t on every node, dividing that node's GPU count (and, when given, the
// attention heads); one pipeline stage per node, so the pipeline-parallel size P is the number of
// nodes; every GPU holds ceil(memory / (t × P)) bytes. Reads the ledger and the indexes; changes
// neither.
//
// Ranking (each key breaks the ties of the one before):
//   1. fewer nodes (P);
//   2. topology: for each preferred label key in order, fewer distinct values among the parts (a
//      node without that label is a value of its own);
//   3. fewer GPUs (t × P);
//   4. the parts compared worst first by the single-node ranking of each part (topology score
//      higher, then the policy metric, then the less loaded node, then node ID in natural order):
//      a pipeline runs at the pace of its slowest stage.
// Each node contributes its best t-GPU set (the single-node search, no eviction) as its part.
//
// The search, per (P, t): nodes with the same required value and the same preferred values are
// interchangeable for keys 1-3, so only the best L + P − 1 of each such group can be in the top L
// (swap one for a better unused node of its group: a strictly better option, L times over). Over
// that pool, a depth-first search picks P nodes, ordered by their preferred values, and prunes by a
// bound of keys 2 and 4 against the L-th option found.
// Index reads carry `!`: node numbers and positions come from the ledger, ranks and pool positions
// from this search.

import { PLACEMENT_BUDGET, type PlacementKernels, type PlacementOption, type PlacementSearch, shareOf } from '../placement/index.js';
import { AllocationError, type Reason } from '../shared/errors.js';
import { formatBytes } from '../shared/units.js';
import type { NodeIndexes } from './indexes.js';
import type { Ledger } from './ledger.js';

/** What a multi-node plan takes (validated by ClusterState.plan). Memory in bytes. */
export type SpanRequest = {
  memory: number;
  model: string | undefined;
  /** Allowed tensor-parallel sizes, ascending (undefined: every size up to the widest node). */
  sizes: number[] | undefined;
  pack: boolean;
  limit: number;
  /** Most nodes (2 or more). */
  maxNodes: number;
  required: string | undefined;
  preferred: readonly string[];
};

/** Options across nodes, best first, or none and the reason. */
export type SpanPlan = { options: PlacementOption[]; reason?: undefined } | { options: []; reason: Reason };

/** One node's best part for one (t, share): its GPUs and its single-node ranking values. */
type Part = { node: number; lo: number; hi: number; score: number; remainMin: number; remainSum: number; rank: number };

/** An option under construction: its parts, key values and the sort key of its parts' ranks (worst first). */
type Found = { parts: Part[]; t: number; distinct: number[]; worst: number[] };

/** Most depth-first steps one (P, t) search may take before giving up with LIMIT_EXCEEDED. */
export const SPAN_BUDGET = PLACEMENT_BUDGET;

const NO_STALE_MASKS = new Int32Array(0);
const NO_STALE_BYTES = new Float64Array(0);

/**
 * What makes a cluster state plan across nodes: engines hand it to the states they create (openEngine
 * always; openPlacementEngine when its options carry `multiNode: multiNodePlanner`), so a page that
 * only plans on one node at a time does not ship this module.
 */
export interface MultiNodePlanner {
  /** The planner across the nodes of one state's ledger (called by ClusterState, not by callers). */
  spansOver(kernels: PlacementKernels, ledger: Ledger, indexes: NodeIndexes): SpanPlanner;
}

/** The multi-node planner, as the value `openPlacementEngine({ multiNode: multiNodePlanner })` takes. */
export const multiNodePlanner: MultiNodePlanner = { spansOver: (kernels, ledger, indexes) => new SpanPlanner(kernels, ledger, indexes) };

/** Plans options across several nodes of one ledger. */
export class SpanPlanner {
  private readonly kernels: PlacementKernels;
  private readonly ledger: Ledger;
  private readonly indexes: NodeIndexes;

  constructor(kernels: PlacementKernels, ledger: Ledger, indexes: NodeIndexes) {
    this.kernels = kernels;
    this.ledger = ledger;
    this.indexes = indexes;
  }

  /** Up to `limit` options of 2 .. maxNodes nodes, best first (see the ranking above); none: a reason. */
  plan(req: SpanRequest): SpanPlan {
    const { ledger } = this;
    const nodeCount = ledger.nodeIds.length;
    const sizes = req.sizes ?? Array.from({ length: ledger.maxWidth }, (_, k) => k + 1);
    const options: PlacementOption[] = [];
    let most = Math.min(req.maxNodes, nodeCount);
    if (req.required !== undefined) {
      // No option has more nodes than the largest domain of the required label holds.
      const domains = new Map<string, number>();
      for (const labels of ledger.labels) {
        const v = labels?.[req.required];
        if (v !== undefined) domains.set(v, (domains.get(v) ?? 0) + 1);
      }
      most = Math.min(most, Math.max(0, ...domains.values()));
    }
    for (let P = 2; P <= most && options.length < req.limit; P++) {
      const limit = req.limit - options.length;
      const found: Found[] = [];
      for (const t of sizes) {
        const share = shareOf(req.memory, t * P);
        const parts = this.parts(t, share, req);
        if (parts.length < P) continue;
        for (const f of this.search(parts, P, t, limit, req)) found.push(f);
      }
      found.sort(compareFound);
      for (const f of found.slice(0, limit)) options.push(this.optionOf(f, P, req));
    }
    if (options.length > 0) return { options };
    return { options: [], reason: this.reason(req, Math.min(req.maxNodes, nodeCount), sizes) };
  }

  /** The best part of every node that can hold one of t GPUs at `share` bytes each, ranked best first (`rank` set). */
  private parts(t: number, share: number, req: SpanRequest): Part[] {
    const { ledger, indexes } = this;
    const { gpuStart } = ledger;
    const sorted = indexes.sortedFree;
    const out: Part[] = [];
    const search: PlacementSearch = {
      gpus: 0,
      free: ledger.planFree,
      total: ledger.capacity,
      sizes: Int32Array.of(t),
      shares: Float64Array.of(share),
      staleMasks: NO_STALE_MASKS,
      staleBytes: NO_STALE_BYTES,
      pairScores: null,
      pack: req.pack,
      limit: 1,
      budget: PLACEMENT_BUDGET,
    };
    for (let k = 0; k < ledger.nodeIds.length; k++) {
      const start = gpuStart[k]!;
      const N = gpuStart[k + 1]! - start;
      // vLLM's rule: the same size on every node, dividing its GPU count; the t-th emptiest GPU must take the share.
      if (N < t || N % t !== 0 || !(sorted[start + t - 1]! >= share)) continue;
      if (req.required !== undefined && ledger.labels[k]?.[req.required] === undefined) continue;
      const free = ledger.planFreeViews[k]!;
      if (N === t) {
        // The whole node: one set, no search.
        let min = Infinity;
        let sum = 0;
        for (let p = 0; p < N; p++) {
          if (free[p]! < min) min = free[p]!;
          sum += free[p]! - share;
        }
        const [lo, hi] = N >= 32 ? [-1, N === 32 ? 0 : 2 ** (N - 32) - 1] : [2 ** N - 1, 0];
        out.push({ node: k, lo: lo | 0, hi: hi | 0, score: indexes.classes.maxScore(indexes.classOf[k]!, N), remainMin: min - share, remainSum: sum, rank: 0 });
        continue;
      }
      search.gpus = N;
      search.free = free;
      search.total = ledger.capacity.subarray(start, start + N);
      search.pairScores = indexes.matrix(k);
      const f = this.kernels.placementSearch(search);
      if (f.count === 0) continue;
      out.push({ node: k, lo: f.masks[0]!, hi: f.masks[1]!, score: f.score[0]!, remainMin: f.remainMin[0]!, remainSum: f.remainSum[0]!, rank: 0 });
    }
    const { nodeLoad, nodeRank } = indexes;
    out.sort((a, b) => b.score - a.score || (req.pack ? a.remainSum - b.remainSum : b.remainMin - a.remainMin) || nodeLoad[a.node]! - nodeLoad[b.node]! || nodeRank[a.node]! - nodeRank[b.node]!);
    out.forEach((p, r) => (p.rank = r));
    return out;
  }

  /** The best `limit` options of P nodes with parts of t GPUs among `parts` (ranked best first). */
  private search(parts: Part[], P: number, t: number, limit: number, req: SpanRequest): Found[] {
    const { labels, nodeIds } = this.ledger;
    const keys = req.preferred;
    // A label a node lacks is a value of its own.
    const labelValue = (p: Part, j: number): string => labels[p.node]?.[keys[j]!] ?? `\u0000${nodeIds[p.node]}`;
    const partitions = new Map<string, Part[]>();
    for (const p of parts) {
      const domain = req.required === undefined ? '' : labels[p.node]![req.required]!; // parts are of nodes with the required label
      let list = partitions.get(domain);
      if (list === undefined) partitions.set(domain, (list = []));
      list.push(p);
    }
    const kept: Found[] = [];
    const compareKept = (a: Found, b: Found): number => compareFound(a, b);
    for (const members of partitions.values()) {
      if (members.length < P) continue;
      // The pool: the best L + P − 1 of each group of the same preferred values (members are best first).
      const groupCount = new Map<string, number>();
      const pool: Part[] = [];
      for (const p of members) {
        const signature = keys.map((_, j) => labelValue(p, j)).join('\u0001');
        const n = groupCount.get(signature) ?? 0;
        if (n >= limit + P - 1) continue;
        groupCount.set(signature, n + 1);
        pool.push(p);
      }
      // Ordered by preferred values key by key (so a new first-key value only grows from here on), then best first.
      const values = pool.map((p) => keys.map((_, j) => labelValue(p, j)));
      const order = pool.map((_, i) => i).sort((a, b) => compareValues(values[a]!, values[b]!) || pool[a]!.rank - pool[b]!.rank);
      const list = order.map((i) => pool[i]!); // order is a permutation of pool's positions
      const vals = order.map((i) => values[i]!);
      const n = list.length;
      // smallest[i]: the P lowest ranks among list[i..], ascending (a bound on the worst part still to come).
      const smallest: number[][] = new Array(n + 1);
      smallest[n] = [];
      for (let i = n - 1; i >= 0; i--) {
        const next = smallest[i + 1]!;
        const merged: number[] = [];
        let placed = false;
        for (const r of next) {
          if (!placed && list[i]!.rank < r) {
            merged.push(list[i]!.rank);
            placed = true;
          }
          if (merged.length < P) merged.push(r);
        }
        if (!placed && merged.length < P) merged.push(list[i]!.rank);
        smallest[i] = merged.slice(0, P);
      }
      const counts = keys.map(() => new Map<string, number>());
      const distinct = keys.map(() => 0);
      const chosen: number[] = [];
      let worstChosen = -1;
      let steps = 0;
      // Index reads below: i < n (list, vals, smallest), j < keys.length (a value and a count per key).
      const add = (i: number, sign: 1 | -1): void => {
        const value = vals[i]!;
        for (let j = 0; j < keys.length; j++) {
          const count = counts[j]!;
          const v = value[j]!;
          const c = (count.get(v) ?? 0) + sign;
          if (c === 0) count.delete(v);
          else count.set(v, c);
          if ((sign === 1 && c === 1) || (sign === -1 && c === 0)) distinct[j]! += sign;
        }
      };
      const dfs = (from: number): void => {
        const r = P - chosen.length;
        if (r === 0) {
          const worst = chosen.map((i) => list[i]!.rank).sort((a, b) => b - a);
          const f: Found = { parts: chosen.map((i) => list[i]!), t, distinct: [...distinct], worst };
          insertKept(kept, f, limit, compareKept);
          return;
        }
        for (let i = from; i + r <= n; i++) {
          if (++steps > SPAN_BUDGET)
            throw new AllocationError(
              'LIMIT_EXCEEDED',
              `topology.preferred: more than ${SPAN_BUDGET} steps to rank the options of ${P} nodes of ${t} GPUs (nodes with labels of many different values); name fewer or coarser labels`,
              { field: 'topology.preferred' },
            );
          const rank = list[i]!.rank;
          if (kept.length === limit) {
            const T = kept[limit - 1]!;
            const value = vals[i]!;
            // Lowest distinct counts any completion through list[i..] reaches, against the L-th option.
            const bound = boundDistinct(distinct, counts, value);
            const byValues = compareArrays(bound, T.distinct);
            // A first-key value not chosen yet: every later node brings a new one too (ordered by values).
            if (byValues > 0 && keys.length > 0 && !counts[0]!.has(value[0]!) && distinct[0]! + 1 > T.distinct[0]!) break;
            if (byValues > 0) continue;
            // The worst part of any completion is no better than the r-th best rank left; with no fewer distinct values, no better option.
            const worstBound = Math.max(worstChosen, smallest[i]![r - 1] ?? Infinity);
            // Any completion has a node, so at least one value of each key.
            if (compareArrays(atLeastOne(distinct), T.distinct) >= 0 && worstBound > T.worst[0]!) break;
            if (byValues === 0 && Math.max(worstChosen, rank, smallest[i + 1]![r - 2] ?? -1) > T.worst[0]!) continue;
          }
          chosen.push(i);
          add(i, 1);
          const before = worstChosen;
          worstChosen = Math.max(worstChosen, rank);
          dfs(i + 1);
          worstChosen = before;
          add(i, -1);
          chosen.pop();
        }
      };
      dfs(0);
    }
    return kept;
  }

  /** The option of a found set: parts in natural order of node IDs, each its best GPUs. */
  private optionOf(f: Found, P: number, req: SpanRequest): PlacementOption {
    const { ledger, indexes } = this;
    const share = shareOf(req.memory, f.t * P);
    const parts = [...f.parts].sort((a, b) => indexes.nodeRank[a.node]! - indexes.nodeRank[b.node]!);
    let score = 0;
    const out = parts.map((p) => {
      score += p.score;
      const gpus: number[] = [];
      for (let q = 0; q < 32; q++) if ((p.lo >>> q) & 1) gpus.push(ledger.indices[p.node]![q]!);
      for (let q = 0; q < 32; q++) if ((p.hi >>> q) & 1) gpus.push(ledger.indices[p.node]![q + 32]!);
      return { node: ledger.nodeIds[p.node]!, gpus, memoryPerGpu: share };
    });
    const option: PlacementOption = { gpus: [], memoryPerGpu: share, evict: [], score, parts: out, tensorParallel: f.t, pipelineParallel: P };
    if (req.model !== undefined) option.model = req.model;
    return option;
  }

  private reason(req: SpanRequest, most: number, sizes: readonly number[]): Reason {
    const within = req.required === undefined ? '' : ` within one value of label ${req.required}`;
    if (most < 2) return { code: 'NO_VIABLE_OPTION', message: `nor do several nodes: ${most < 1 ? 'there is no node' : 'there is one node'}` };
    return {
      code: 'NO_VIABLE_OPTION',
      message: `nor do 2 to ${most} nodes${within} as tensor-parallel × pipeline stages (one tensor-parallel size of ${sizes.join(', ')} on each, dividing its GPU count; ${formatBytes(shareOf(req.memory, most * sizes[sizes.length - 1]!))} per GPU at the most GPUs)`,
    };
  }
}

/** Options of one P: fewer distinct values key by key, then fewer GPUs (t), then the parts worst first. */
function compareFound(a: Found, b: Found): number {
  return compareArrays(a.distinct, b.distinct) || a.t - b.t || compareArrays(a.worst, b.worst);
}

/** Lexicographic comparison of equal-length number lists. */
function compareArrays(a: readonly number[], b: readonly number[]): number {
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return a[j]! - b[j]!;
  return 0;
}

/** Lexicographic comparison of value lists (a missing label, which starts with U+0000, orders first among its key's values). */
function compareValues(a: readonly string[], b: readonly string[]): number {
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return a[j]! < b[j]! ? -1 : 1;
  return 0;
}

/** The distinct counts once the node of `values` joins the chosen ones (a lower bound of any completion's). */
function boundDistinct(distinct: readonly number[], counts: ReadonlyArray<ReadonlyMap<string, number>>, values: readonly string[]): number[] {
  return distinct.map((d, j) => (counts[j]!.has(values[j]!) ? d : d + 1));
}

/** The distinct counts, each at least 1. */
function atLeastOne(distinct: readonly number[]): number[] {
  return distinct.map((d) => Math.max(d, 1));
}

/** Keeps the best `limit` of `kept` (sorted best first) with `f`. */
function insertKept(kept: Found[], f: Found, limit: number, compare: (a: Found, b: Found) => number): void {
  if (kept.length === limit && compare(f, kept[limit - 1]!) >= 0) return;
  let at = kept.length;
  while (at > 0 && compare(f, kept[at - 1]!) < 0) at--;
  kept.splice(at, 0, f);
  if (kept.length > limit) kept.pop();
}
