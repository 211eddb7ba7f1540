// Topology classes of a cluster: nodes with the same GPU count and the same pair-score matrix over
// their positions (real fleets have a handful of machine types). A class knows, per tensor-parallel
// size, the best set score any of its nodes can reach and which GPU sets reach it, so a plan bounds a
// node's best option without searching it. A class's per-size entries are read after compute()
// fills them, its matrix at positions below its GPU count: `!`.

/** The GPU sets of one size of a class that share one score (a score level). */
export type ScoreLevel = {
  score: number;
  /** True when a node's best set of this level is known from its index key (see FreeIndex): the bound is an option. */
  exact: boolean;
  /** Position masks (two i32 halves each) of the sets scoring `score`; null: not enumerated (a bound over every set). */
  sets: Int32Array | null;
};

/** One topology class. Scores per size are computed on first use. */
export type TopologyClass = {
  /** Class number (0: nodes without topology, any GPU count; every set scores 0). */
  id: number;
  /** GPUs of every node of the class (0 for class 0). */
  gpus: number;
  /** Pair-score matrix over positions (gpus × gpus), shared by the class's nodes; null for class 0. */
  matrix: Int32Array | null;
  /** Per size n (index n): the highest set score of n GPUs, or -1 until computed. */
  maxScore: number[];
  /** Per size n: true when every set of n GPUs scores maxScore[n] (bound = the best option's score). */
  uniform: boolean[];
  /** Per size n: the position masks (two i32 halves each) of the sets scoring maxScore[n]; null when not enumerated (over 16 GPUs). */
  best: Array<Int32Array | null>;
  /** Per size n: the score levels, highest first (see levels()). */
  levels: Array<readonly ScoreLevel[] | undefined>;
};

/** Most sets of one score level indexed exactly (each node update reads them all). */
export const MAX_LEVEL_SETS = 128;

/** Most GPUs of a class whose sets are enumerated exactly (2^16 sets); wider classes use a bound. */
export const EXACT_CLASS_GPUS = 16;

/** The levels where every set scores 0 (no topology, or one GPU): one exact level, shared (never changed). */
const FLAT_LEVELS: readonly ScoreLevel[] = Object.freeze([Object.freeze({ score: 0, exact: true, sets: null })]);

/** The topology classes of a cluster state, by matrix content. */
export class TopologyClasses {
  readonly list: TopologyClass[] = [];
  private readonly byKey = new Map<string, number>();
  /** Classes by matrix object: nodes of one machine type usually share one (see pairScoreMatrix). */
  private readonly byMatrix = new Map<Int32Array, number>();

  constructor() {
    this.list.push({ id: 0, gpus: 0, matrix: null, maxScore: [], uniform: [], best: [], levels: [] });
  }

  /** The class of a node with this position matrix (null: no topology); created on first sight. */
  classOf(matrix: Int32Array | null, gpus: number): number {
    if (matrix === null) return 0;
    const same = this.byMatrix.get(matrix);
    if (same !== undefined) return same;
    let key = `${gpus}:`;
    for (let k = 0; k < matrix.length; k++) key += `${matrix[k]},`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.list.length;
      this.byKey.set(key, id);
      this.list.push({ id, gpus, matrix: Int32Array.from(matrix), maxScore: [], uniform: [], best: [], levels: [] });
    }
    this.byMatrix.set(matrix, id);
    return id;
  }

  /** The highest score of a set of n GPUs in class c (0 for class 0): an upper bound of every option's score. */
  maxScore(c: number, n: number): number {
    const cls = this.list[c]!;
    if (cls.matrix === null || n <= 1) return 0;
    if (cls.maxScore[n] === undefined) this.compute(cls, n);
    return cls.maxScore[n]!;
  }

  /** True when every set of n GPUs of class c scores the same (class 0, n = 1, NVSwitch machines). */
  uniform(c: number, n: number): boolean {
    const cls = this.list[c]!;
    if (cls.matrix === null || n <= 1) return true;
    if (cls.uniform[n] === undefined) this.compute(cls, n);
    return cls.uniform[n]!;
  }

  /** The sets of n GPUs that score maxScore (mask halves), or null when the class is too wide to enumerate. */
  bestSets(c: number, n: number): Int32Array | null {
    const cls = this.list[c]!;
    if (cls.matrix === null || n <= 1) return null;
    if (cls.maxScore[n] === undefined) this.compute(cls, n);
    return cls.best[n] as Int32Array | null;
  }

  /**
   * The score levels of sets of n GPUs in class c, highest first: one level (every set, `sets` null)
   * where every set scores the same; else one level per distinct score with its sets, up to the
   * first level of more than MAX_LEVEL_SETS sets, which becomes one last level with `sets` null
   * bounding every set below (its score is an upper bound). Over EXACT_CLASS_GPUS GPUs: one bound level.
   */
  levels(c: number, n: number): readonly ScoreLevel[] {
    const cls = this.list[c]!;
    if (cls.matrix === null || n <= 1) return FLAT_LEVELS;
    if (cls.maxScore[n] === undefined) this.compute(cls, n);
    return cls.levels[n]!;
  }

  private compute(cls: TopologyClass, n: number): void {
    const N = cls.gpus;
    const m = cls.matrix!;
    if (N > EXACT_CLASS_GPUS) {
      // Bound: the n(n-1)/2 highest pair scores summed.
      const pairs: number[] = [];
      for (let p = 0; p < N; p++) for (let q = p + 1; q < N; q++) pairs.push(m[p * N + q]!);
      pairs.sort((a, b) => b - a);
      let bound = 0;
      for (let k = 0; k < (n * (n - 1)) / 2 && k < pairs.length; k++) bound += pairs[k]!;
      cls.maxScore[n] = bound;
      cls.uniform[n] = pairs.length === 0 || pairs[0] === pairs[pairs.length - 1];
      cls.best[n] = null;
      cls.levels[n] = [{ score: bound, exact: cls.uniform[n], sets: null }];
      return;
    }
    let max = -1;
    let min = Infinity;
    const byScore = new Map<number, number[]>();
    const positions = new Int32Array(n);
    // Every mask of n bits below 2^N (Gosper's hack), lowest first.
    for (let mask = (1 << n) - 1; mask < 1 << N && mask > 0; ) {
      let q = 0;
      for (let p = 0; p < N; p++) if ((mask >>> p) & 1) positions[q++] = p;
      let score = 0;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) score += m[positions[i]! * N + positions[j]!]!;
      if (score > max) max = score;
      if (score < min) min = score;
      let list = byScore.get(score);
      if (list === undefined) byScore.set(score, (list = []));
      list.push(mask);
      const low = mask & -mask;
      const ripple = mask + low;
      mask = (((ripple ^ mask) >>> 2) / low) | ripple;
    }
    cls.maxScore[n] = Math.max(0, max);
    cls.uniform[n] = max === min;
    cls.best[n] = maskHalves(byScore.get(max) ?? []);
    if (max === min) cls.levels[n] = [{ score: max, exact: true, sets: null }];
    else {
      const levels: ScoreLevel[] = [];
      for (const score of [...byScore.keys()].sort((a, b) => b - a)) {
        const masks = byScore.get(score)!;
        if (masks.length > MAX_LEVEL_SETS) {
          levels.push({ score, exact: false, sets: null });
          break;
        }
        levels.push({ score, exact: true, sets: maskHalves(masks) });
      }
      cls.levels[n] = levels;
    }
  }
}

/** Masks below 2^16 as mask halves (low half the mask, high half 0). */
function maskHalves(masks: number[]): Int32Array {
  const h = new Int32Array(2 * masks.length);
  masks.forEach((mask, k) => (h[2 * k] = mask));
  return h;
}
