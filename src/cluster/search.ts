// The cross-node search of a cluster state (ClusterState.plan): which nodes can hold a model's
// best options, found through the free-memory and stale-slot indexes and bounded without a search,
// then one kernel call (clusterSearch) over those candidates. Reads the ledger and the indexes;
// changes neither. Its arrays are per node or per GPU (gpuStart), read at node numbers and
// positions the ledger, the indexes and the kernel's result hand out: in range, so read with `!`.

import {
  budgetError,
  type ClusterSearch,
  isEvictable,
  nodeOptionOf,
  noOptionReason,
  PLACEMENT_BUDGET,
  type PlacementKernels,
  type PlacementOption,
  type PlacementPlan,
  type PlanRequest,
  type Rejection,
  rejectionsFor,
  type Slot,
  shareOf,
  sizesFor,
} from '../placement/index.js';
import { binomial, ctz } from '../shared/bits.js';
import type { Reason } from '../shared/errors.js';
import type { ScoreLevel, TopologyClasses } from './classes.js';
import type { FreeIndex, LevelTree } from './free-index.js';
import type { NodeIndexes } from './indexes.js';
import type { Ledger } from './ledger.js';
import { sortLargestFirst } from './sort.js';
import type { StaleIndex } from './stale-index.js';

/**
 * A plan with no option lists the per-GPU rejections of at most this many nodes (the first, in the
 * order given), and its reason counts theirs. Listing every GPU of 50,000 nodes took about a second
 * per failed plan, and even counting them grew with the node count.
 */
export const CLUSTER_REJECTED_NODES = 64;

/** Shared empty slot list. */
const NO_SLOTS: Slot[] = [];
/** Shared empty level list (a class with no node, or too few GPUs, for a size). */
const NO_LEVELS: readonly ScoreLevel[] = [];

/** Plans over the nodes of one ledger; its per-plan scratch is reused from plan to plan. */
export class ClusterPlanner {
  private readonly kernels: PlacementKernels;
  private readonly ledger: Ledger;
  private readonly indexes: NodeIndexes;
  // The ledger's and the indexes' arrays (never replaced), read on every plan. `free` and `freeViews`
  // are the ledger's planFree: GPUs in MIG mode read -Infinity there, so no search ever picks one.
  private readonly nodeIds: readonly string[];
  private readonly indices: readonly number[][];
  private readonly gpuStart: Int32Array;
  private readonly free: Float64Array;
  private readonly capacity: Float64Array;
  private readonly freeViews: readonly Float64Array[];
  private readonly totalViews: readonly Float64Array[];
  private readonly usedViews: readonly Float64Array[];
  private readonly nodeStale: Int32Array;
  private readonly maxWidth: number;
  private readonly sortedFree: Float64Array;
  private readonly nodeLoad: Float64Array;
  private readonly nodeRank: Int32Array;
  private readonly classOf: Int32Array;
  private readonly classes: TopologyClasses;
  private readonly freeIndex: FreeIndex;
  private readonly staleIndex: StaleIndex;
  /** Per-plan scratch: each node's bound (evictions, GPUs, score, policy metric). */
  private readonly bounds: { bEv: Int32Array; bN: Int32Array; bScore: Float64Array; bMetric: Float64Array };
  /** Per plan: the score and policy metric of one option each taken node is known to have (see plan). */
  private readonly gScore: Float64Array;
  private readonly gMetric: Float64Array;
  /** Per-plan marks (plan number) of nodes already taken from the trees. */
  private readonly taken: Int32Array;
  private planNumber = 0;
  /** Per-plan list of the nodes the stale index returns. */
  private readonly staleFound: number[] = [];
  /** evictionBound's per-GPU scratch. */
  private potentialScratch = new Float64Array(0);
  /** Per-plan scratch of the kernel input, grown on demand. */
  private readonly search: ClusterSearch = {
    count: 0,
    gpus: new Int32Array(16),
    offset: new Int32Array(16),
    free: new Float64Array(0),
    total: new Float64Array(0),
    staleStart: new Int32Array(17),
    staleMasks: new Int32Array(0),
    staleBytes: new Float64Array(0),
    matrices: [],
    load: new Float64Array(16),
    rank: new Int32Array(16),
    bEv: new Int32Array(16),
    bN: new Int32Array(16),
    bScore: new Float64Array(16),
    bMetric: new Float64Array(16),
    sizes: new Int32Array(0),
    shares: new Float64Array(0),
    pack: false,
    limit: 1,
    budget: PLACEMENT_BUDGET,
  };

  constructor(kernels: PlacementKernels, ledger: Ledger, indexes: NodeIndexes) {
    this.kernels = kernels;
    this.ledger = ledger;
    this.indexes = indexes;
    ({
      nodeIds: this.nodeIds,
      indices: this.indices,
      gpuStart: this.gpuStart,
      planFree: this.free,
      capacity: this.capacity,
      planFreeViews: this.freeViews,
      totalViews: this.totalViews,
      usedViews: this.usedViews,
      nodeStale: this.nodeStale,
      maxWidth: this.maxWidth,
    } = ledger);
    ({ sortedFree: this.sortedFree, nodeLoad: this.nodeLoad, nodeRank: this.nodeRank, classOf: this.classOf, classes: this.classes, freeIndex: this.freeIndex, staleIndex: this.staleIndex } = indexes);
    const count = this.nodeIds.length;
    this.bounds = { bEv: new Int32Array(count), bN: new Int32Array(count), bScore: new Float64Array(count), bMetric: new Float64Array(count) };
    this.gScore = new Float64Array(count);
    this.gMetric = new Float64Array(count);
    this.taken = new Int32Array(count);
  }

  /**
   * Plans across every node: options ranked by planPlacement's key up to the policy metric, then
   * the least loaded node (lowest (memoryTotal − free) / memoryTotal), then node ID in natural order,
   * then lowest GPU indices (indices only order GPUs of one node). `rejected` lists the per-GPU
   * rejections of the first CLUSTER_REJECTED_NODES nodes when there is no option (empty otherwise,
   * to keep planning cheap); the reason counts theirs and says so when the state has more nodes.
   *
   * Which nodes are searched (spread): for each allowed size n in ascending order, the free-memory
   * trees of every topology class give the nodes whose n-th largest free memory takes the share,
   * best bound first across classes (bound: no eviction, n GPUs, the class's best n-GPU set score,
   * the n-th largest free memory minus the share, load, node ID). Each node taken has one option it
   * is known to reach (see knownOption); once `limit` of those rank before the next bound, no other
   * node can contribute. Nodes with stale slots are taken for their eviction options only when fewer
   * than `limit` options without eviction exist. Pack ranks by a sum no tree orders: it scans every node.
   */
  plan(req: PlanRequest): PlacementPlan {
    const limit = req.limit;
    const pack = req.pack;
    const nodeCount = this.nodeIds.length;
    // Sizes up to the widest node (a node uses those up to its GPU count) and their shares.
    const allSizes = req.sizes === undefined ? Array.from({ length: this.maxWidth }, (_, k) => k + 1) : req.sizes.filter((n) => n <= this.maxWidth);
    const sizes = Int32Array.from(allSizes);
    const shares = Float64Array.from(allSizes, (n) => shareOf(req.memory, n));
    // smallest[N]: share of the largest size a node of N GPUs may use (Infinity: none).
    const smallest = new Float64Array(this.maxWidth + 1).fill(Infinity);
    for (let si = 0; si < sizes.length; si++) for (let N = sizes[si]!; N <= this.maxWidth; N++) smallest[N] = shares[si]!;
    const { bEv, bN, bScore, bMetric } = this.bounds;
    const { gScore, gMetric } = this;
    const bLoad = this.nodeLoad;
    const nodeRank = this.nodeRank;
    const better = (aMetric: number, bMetric_: number): boolean => (pack ? aMetric < bMetric_ : aMetric > bMetric_);
    // Bound of x against bound of y (negative: x first).
    const boundBefore = (x: number, y: number): number => {
      if (bEv[x] !== bEv[y]) return bEv[x]! - bEv[y]!;
      if (bN[x] !== bN[y]) return bN[x]! - bN[y]!;
      if (bScore[x] !== bScore[y]) return bScore[x]! > bScore[y]! ? -1 : 1;
      if (bMetric[x] !== bMetric[y]) return better(bMetric[x]!, bMetric[y]!) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x]! < bLoad[y]! ? -1 : 1;
      return nodeRank[x]! - nodeRank[y]!;
    };
    // Bound of x against the known option of y (no eviction, bN[y] GPUs, gScore, gMetric): negative when x's bound ranks first.
    const boundVsKnown = (x: number, y: number): number => {
      if (bEv[x] !== 0) return 1;
      if (bN[x] !== bN[y]) return bN[x]! - bN[y]!;
      if (bScore[x] !== gScore[y]) return bScore[x]! > gScore[y]! ? -1 : 1;
      if (bMetric[x] !== gMetric[y]) return better(bMetric[x]!, gMetric[y]!) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x]! < bLoad[y]! ? -1 : 1;
      return nodeRank[x]! - nodeRank[y]!;
    };
    const knownBefore = (x: number, y: number): number => {
      if (bN[x] !== bN[y]) return bN[x]! - bN[y]!;
      if (gScore[x] !== gScore[y]) return gScore[x]! > gScore[y]! ? -1 : 1;
      if (gMetric[x] !== gMetric[y]) return better(gMetric[x]!, gMetric[y]!) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x]! < bLoad[y]! ? -1 : 1;
      return nodeRank[x]! - nodeRank[y]!;
    };
    const candidates: number[] = [];
    const known: number[] = []; // up to `limit` taken nodes with the best known options, best first
    const keepKnown = (k: number): void => {
      if (known.length < limit || knownBefore(k, known[known.length - 1]!) < 0) {
        let at = known.length;
        while (at > 0 && knownBefore(k, known[at - 1]!) < 0) at--;
        known.splice(at, 0, k);
        if (known.length > limit) known.pop();
      }
    };
    const gpuStart = this.gpuStart;
    const sorted = this.sortedFree;
    const classes = this.classes;
    const classCount = classes.list.length;
    const plan = ++this.planNumber;
    if (!pack && nodeCount > 0) {
      const index = this.freeIndex;
      const removed: LevelTree[] = [];
      const removedNode: number[] = [];
      const lvl = new Int32Array(classCount);
      const levels: Array<readonly ScoreLevel[]> = new Array(classCount);
      let done = false;
      for (let si = 0; si < sizes.length && !done; si++) {
        const n = sizes[si]!;
        const share = shares[si]!;
        for (let c = 0; c < classCount; c++) {
          const cls = classes.list[c]!;
          levels[c] = index.size(c) === 0 || (c > 0 && cls.gpus < n) ? NO_LEVELS : classes.levels(c, n);
          lvl[c] = 0;
        }
        for (;;) {
          // Score levels are walked highest first across classes: an option of a higher score ranks first.
          let group = -Infinity;
          for (let c = 0; c < classCount; c++) {
            const list = levels[c]!;
            const at = lvl[c]!;
            if (at < list.length && list[at]!.score > group) group = list[at]!.score;
          }
          if (group === -Infinity) break;
          // The best bound among the trees of that score (taken nodes are set aside as met).
          let best = -1;
          let bestTree: LevelTree | null = null;
          for (let c = 0; c < classCount; c++) {
            const list = levels[c]!;
            const at = lvl[c]!;
            if (at >= list.length || list[at]!.score !== group) continue;
            const tree = index.tree(c, n, at);
            let k = tree.win[1]!;
            while (k >= 0 && this.taken[k] === plan) {
              index.setLeaf(tree, k, true);
              removed.push(tree);
              removedNode.push(k);
              k = tree.win[1]!;
            }
            if (k < 0) continue;
            const key = index.keyOf(tree, k);
            if (!(key >= share)) continue;
            bEv[k] = 0;
            bN[k] = n;
            bScore[k] = group;
            bMetric[k] = key - share;
            if (best < 0 || boundBefore(k, best) < 0) {
              best = k;
              bestTree = tree;
            }
          }
          if (best < 0) {
            // No node of this score takes the share: the next level down.
            for (let c = 0; c < classCount; c++) {
              const list = levels[c]!;
              const at = lvl[c]!;
              if (at < list.length && list[at]!.score === group) lvl[c] = at + 1;
            }
            continue;
          }
          // `limit` known options rank before this bound: neither it nor any later one can contribute.
          if (known.length === limit && boundVsKnown(best, known[limit - 1]!) > 0) {
            done = true;
            break;
          }
          index.setLeaf(bestTree!, best, true);
          removed.push(bestTree!);
          removedNode.push(best);
          this.taken[best] = plan;
          if (bestTree!.level.exact) {
            gScore[best] = bScore[best]!;
            gMetric[best] = bMetric[best]!;
          } else this.knownOption(best, this.classOf[best]!, n, share);
          candidates.push(best);
          keepKnown(best);
        }
        if (known.length === limit) done = true; // larger sizes rank after every option known so far
        for (let r = removed.length - 1; r >= 0; r--) index.setLeaf(removed[r]!, removedNode[r]!);
        removed.length = 0;
        removedNode.length = 0;
      }
      // Fewer than `limit` options without eviction exist: nodes with evictable slots may add some.
      // The stale index bounds what evicting every stale slot frees (any model): only the nodes it
      // returns for some size can have an eviction option, and each is then bounded exactly.
      if (known.length < limit && req.allowEviction) {
        const found = this.staleFound;
        found.length = 0;
        for (let si = 0; si < sizes.length; si++) {
          for (let c = 0; c < classCount; c++) {
            if (c > 0 && classes.list[c]!.gpus < sizes[si]!) continue;
            this.staleIndex.collect(c, sizes[si]!, shares[si]!, found);
          }
        }
        for (const k of found) {
          if (this.taken[k] === plan) continue; // taken above, or returned for a smaller size
          this.taken[k] = plan;
          const first = this.evictionBound(k, req.model, sizes, shares);
          if (first === 0) continue;
          bEv[k] = 1;
          bN[k] = first;
          bScore[k] = Infinity;
          bMetric[k] = Infinity;
          candidates.push(k);
        }
      }
    } else if (nodeCount > 0) {
      const nodeStale = this.nodeStale;
      for (let k = 0; k < nodeCount; k++) {
        const start = gpuStart[k]!;
        const N = gpuStart[k + 1]! - start;
        const canEvict = req.allowEviction && nodeStale[k]! > 0;
        // Not even the smallest share fits on the emptiest GPU: nothing to search.
        if (!canEvict && !(sorted[start]! >= smallest[N]!)) continue;
        let fits = false;
        let first = 0;
        for (let si = 0; si < sizes.length; si++) {
          const n = sizes[si]!;
          if (n > N) break;
          if (si === 0) first = n;
          const share = shares[si]!;
          if (sorted[start + n - 1]! < share) continue;
          fits = true;
          bN[k] = n;
          // The n smallest GPUs that fit leave the least over.
          let j = n - 1;
          while (j + 1 < N && sorted[start + j + 1]! >= share) j++;
          let left = 0;
          for (let t = j - n + 1; t <= j; t++) left += sorted[start + t]! - share;
          bMetric[k] = left;
          break;
        }
        const c = this.classOf[k]!;
        if (fits) {
          bEv[k] = 0;
          bScore[k] = classes.maxScore(c, bN[k]!);
        } else if (canEvict && first > 0) {
          bEv[k] = 1;
          bN[k] = first;
          bMetric[k] = -Infinity;
          bScore[k] = Infinity;
        } else continue; // no GPU set fits, even after evictions
        // Bounded below the current threshold: never contributes (the threshold only improves).
        if (known.length === limit && boundVsKnown(k, known[limit - 1]!) > 0) continue;
        candidates.push(k);
        // A node whose every n-GPU set scores the same reaches its bound.
        if (fits && classes.uniform(c, bN[k]!)) {
          gScore[k] = bScore[k]!;
          gMetric[k] = bMetric[k]!;
          keepKnown(k);
        }
      }
    }
    // `limit` options at least as good as the threshold exist, so nodes bounded below it cannot contribute.
    const threshold = known.length === limit ? known[limit - 1]! : -1;
    let count = 0;
    for (const k of candidates) if (threshold < 0 || boundVsKnown(k, threshold) <= 0) candidates[count++] = k;
    candidates.length = count;
    candidates.sort(boundBefore);
    if (!pack) candidates.length = this.enoughCandidates(candidates, limit, sizes, shares);
    const found = this.kernels.clusterSearch(this.fillSearch(candidates, req.allowEviction, req.model, sizes, shares, pack, limit));
    if (found.overflowSize > 0) throw budgetError(found.overflowSize, this.search.gpus[found.overflowNode]!);
    const options: PlacementOption[] = [];
    for (let c = 0; c < found.count; c++) {
      const i = found.node[c]!;
      const k = candidates[i]!;
      options.push(nodeOptionOf(found, c, this.indices[k]!, req.memory, this.candidateStale[i]!, req.model, this.nodeIds[k]!));
    }
    this.candidateStale.length = 0;
    const result: { options: PlacementOption[]; rejected: Rejection[]; reason?: Reason } = { options, rejected: [] };
    if (options.length === 0) {
      // The first CLUSTER_REJECTED_NODES nodes' rejections (a scan of every node would cost a failed
      // plan O(nodes)); whether any node allows a size is known from the widest node.
      const listed = Math.min(nodeCount, CLUSTER_REJECTED_NODES);
      let gpus = 0;
      let migCount = 0;
      const sizesOf = new Map<number, number[]>();
      const evictable = new Float64Array(this.maxWidth);
      for (let k = 0; k < listed; k++) {
        const N = this.indices[k]!.length;
        let sizes = sizesOf.get(N);
        if (sizes === undefined) {
          sizes = sizesFor(req, N);
          sizesOf.set(N, sizes);
        }
        gpus += N;
        let anyEvictable = false;
        if (req.allowEviction && this.nodeStale[k]! > 0) {
          evictable.fill(0);
          for (const s of this.ledger.staleSlots(k)) {
            if (!isEvictable(s, req.model)) continue;
            anyEvictable = true;
            for (const p of this.ledger.record(k, s.id).positions) evictable[p]! += s.memoryPerGpu;
          }
        }
        const mig = this.ledger.mig === null ? null : this.ledger.mig.subarray(this.gpuStart[k], this.gpuStart[k + 1]);
        if (mig !== null) for (let p = 0; p < N; p++) migCount += mig[p]!;
        rejectionsFor(this.indices[k]!, this.totalViews[k]!, this.freeViews[k]!, anyEvictable ? evictable : null, req.memory, sizes, this.nodeIds[k], result.rejected, this.usedViews[k], mig);
      }
      const noSizes = sizesFor(req, this.maxWidth).length === 0;
      result.reason = noOptionReason(
        req.memory,
        noSizes ? null : req.sizes === undefined ? '1..n' : req.sizes.join(', '),
        noSizes ? this.gpuStart[nodeCount]! : gpus,
        result.rejected.length,
        listed < nodeCount ? { listed, nodes: nodeCount } : undefined,
        migCount,
      );
    }
    return result as PlacementPlan; // reason is set exactly when options is empty
  }

  /**
   * Spread: records in gScore / gMetric one option node k (of class c) is known to have with n GPUs
   * and no eviction (its n-th largest free memory takes the share). Where every n-GPU set of the class
   * scores the same, that is its bound. Otherwise, the best of the class's top-scoring sets whose GPUs
   * all take the share; failing that, the n GPUs with the most free memory (lowest positions on ties).
   */
  private knownOption(k: number, c: number, n: number, share: number): void {
    const classes = this.classes;
    const { bScore, bMetric } = this.bounds;
    if (classes.uniform(c, n)) {
      this.gScore[k] = bScore[k]!;
      this.gMetric[k] = bMetric[k]!;
      return;
    }
    const free = this.freeViews[k]!;
    const sets = classes.bestSets(c, n);
    if (sets !== null) {
      let metric = -Infinity;
      for (let q = 0; q < sets.length; q += 2) {
        let min = Infinity;
        for (let m = sets[q]!; m !== 0; m &= m - 1) {
          const f = free[ctz(m)]!;
          if (f < min) min = f;
        }
        if (min >= share && min - share > metric) metric = min - share;
      }
      if (metric > -Infinity) {
        this.gScore[k] = bScore[k]!;
        this.gMetric[k] = metric;
        return;
      }
    }
    const N = free.length;
    const order = Array.from({ length: N }, (_, p) => p)
      .sort((a, b) => free[b]! - free[a]! || a - b)
      .slice(0, n);
    const matrix = classes.list[c]!.matrix!;
    let score = 0;
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) score += matrix[order[a]! * N + order[b]!]!;
    this.gScore[k] = score;
    this.gMetric[k] = free[order[n - 1]!]! - share;
  }

  /**
   * The fewest GPUs (an allowed size) node k could use after evicting every slot evictable for
   * `model`, or 0 when no size fits even then: a lower bound of its eviction options' GPU count.
   */
  private evictionBound(k: number, model: string | undefined, sizes: Int32Array, shares: Float64Array): number {
    const free = this.freeViews[k]!;
    const N = free.length;
    if (this.potentialScratch.length < N) this.potentialScratch = new Float64Array(this.maxWidth);
    const potential = this.potentialScratch;
    for (let p = 0; p < N; p++) potential[p] = free[p]!;
    for (const s of this.ledger.staleSlots(k)) {
      if (!isEvictable(s, model)) continue;
      for (const p of this.ledger.record(k, s.id).positions) potential[p]! += s.memoryPerGpu;
    }
    sortLargestFirst(potential, 0, N);
    for (let si = 0; si < sizes.length; si++) {
      const n = sizes[si]!;
      if (n > N) break;
      if (potential[n - 1]! >= shares[si]!) return n;
    }
    return 0;
  }

  /**
   * Spread only: how many of the candidates (sorted by bound) can contribute. Cut after candidate m
   * when m is exact (no eviction, no topology) and `limit` options are known to rank at or before
   * its bound T: every exact candidate i ≤ m of fewer GPUs contributes all its options without
   * eviction (C(c, n) of its c GPUs that take the share), one of T's GPU count contributes the sets
   * whose fullest GPU keeps more than T's metric (or as much, when its node ranks before T's), and
   * T is its own best option. Later candidates are bounded strictly after T, so cannot contribute.
   */
  private enoughCandidates(candidates: readonly number[], limit: number, sizes: Int32Array, shares: Float64Array): number {
    const { bEv, bN, bScore, bMetric } = this.bounds;
    const sorted = this.sortedFree;
    for (let m = 0; m < candidates.length; m++) {
      const t = candidates[m]!;
      if (bEv[t] !== 0 || bScore[t] !== 0) continue;
      let known = 1;
      for (let i = 0; i < m && known < limit; i++) {
        const k = candidates[i]!;
        if (bEv[k] !== 0 || bScore[k] !== 0) continue;
        const n = bN[k]!;
        let share = 0;
        for (let si = 0; si < sizes.length; si++) if (sizes[si] === n) share = shares[si]!;
        const start = this.gpuStart[k]!;
        const N = this.gpuStart[k + 1]! - start;
        let c = 0;
        if (n < bN[t]!) {
          while (c < N && sorted[start + c]! >= share) c++;
        } else {
          const orEqual = this.nodeLoad[k]! < this.nodeLoad[t]! || (this.nodeLoad[k] === this.nodeLoad[t] && this.nodeRank[k]! < this.nodeRank[t]!);
          const x = bMetric[t]!;
          while (c < N && (sorted[start + c]! - share > x || (orEqual && sorted[start + c]! - share === x))) c++;
        }
        known += binomial(c, n);
      }
      if (known >= limit) return m + 1;
    }
    return candidates.length;
  }

  /** Each candidate's evictable slots (in eviction order) for the plan in progress. */
  private readonly candidateStale: Slot[][] = [];

  /** Fills the reusable kernel input with the candidate nodes (best bound first). */
  private fillSearch(candidates: readonly number[], allowEviction: boolean, model: string | undefined, sizes: Int32Array, shares: Float64Array, pack: boolean, limit: number): ClusterSearch {
    const s = this.search;
    const C = candidates.length;
    if (s.gpus.length < C) {
      let cap = s.gpus.length;
      while (cap < C) cap *= 2;
      s.gpus = new Int32Array(cap);
      s.offset = new Int32Array(cap);
      s.staleStart = new Int32Array(cap + 1);
      s.load = new Float64Array(cap);
      s.rank = new Int32Array(cap);
      s.bEv = new Int32Array(cap);
      s.bN = new Int32Array(cap);
      s.bScore = new Float64Array(cap);
      s.bMetric = new Float64Array(cap);
    }
    const matrices = s.matrices as Array<Int32Array | null>;
    matrices.length = C;
    const staleLists = this.candidateStale;
    staleLists.length = C;
    let S = 0;
    for (let i = 0; i < C; i++) {
      const k = candidates[i]!;
      const stale = allowEviction && this.nodeStale[k]! > 0 ? this.ledger.staleSlots(k).filter((x) => isEvictable(x, model)) : NO_SLOTS;
      staleLists[i] = stale;
      S += stale.length;
    }
    if (s.staleBytes.length < S) {
      let cap = Math.max(16, s.staleBytes.length);
      while (cap < S) cap *= 2;
      s.staleMasks = new Int32Array(2 * cap);
      s.staleBytes = new Float64Array(cap);
    }
    const { bEv, bN, bScore, bMetric } = this.bounds;
    S = 0;
    for (let i = 0; i < C; i++) {
      const k = candidates[i]!;
      s.gpus[i] = this.gpuStart[k + 1]! - this.gpuStart[k]!;
      s.offset[i] = this.gpuStart[k]!;
      s.staleStart[i] = S;
      for (const slot of staleLists[i]!) {
        const r = this.ledger.record(k, slot.id);
        s.staleMasks[2 * S] = r.lo;
        s.staleMasks[2 * S + 1] = r.hi;
        s.staleBytes[S] = slot.memoryPerGpu;
        S++;
      }
      matrices[i] = this.indexes.matrix(k);
      s.load[i] = this.nodeLoad[k]!;
      s.rank[i] = this.nodeRank[k]!;
      s.bEv[i] = bEv[k]!;
      s.bN[i] = bN[k]!;
      s.bScore[i] = bScore[k]!;
      s.bMetric[i] = bMetric[k]!;
    }
    s.staleStart[C] = S;
    s.count = C;
    s.free = this.free;
    s.total = this.capacity;
    s.sizes = sizes;
    s.shares = shares;
    s.pack = pack;
    s.limit = limit;
    return s;
  }
}
