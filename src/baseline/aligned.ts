// The aligned kernels in TypeScript: the same searches as assembly/aligned.ts, step for step, so
// both backends return the same GPUs. Sets of positions are 32-bit masks here (besteffort runs on at
// most 20 available GPUs); the 'topology' search works on index lists (nodes have up to 64 GPUs).
import type { AlignedKernels } from '../aligned.js';

/**
 * A DP entry's tag: the call's epoch from bit 21, bit 20 set when the value is only an upper bound (the
 * set was solved against a threshold it cannot reach), the chosen group (at most 20 positions) below.
 */
const _EPOCH_SHIFT = 21;
const _UPPER = 1 << 20;
const _GROUP_MASK = _UPPER - 1;
/** Epochs run 1..2047 (11 bits), then the table is cleared once and they start again. */
const _EPOCH_MAX = 2047;
/** Marks a set with no valid partition. */
const _NONE = -0x7fffffff;
/** A need below every partition's value (values are at least 0 and far below 2^28; twice it still fits an i32): solve exactly. */
const _NEED_ANY = -(1 << 28);
/** Rounds of swap search per greedy start above the exact range (same constant in assembly/aligned.ts). */
export const SWAP_ROUNDS = 64;

function _popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

function _ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** a before b in lexicographic order of their sorted members (same-size sets): the lowest differing member is a's. */
function _lexFirst(a: number, b: number): boolean {
  const d = a ^ b;
  return (d & -d & a) !== 0;
}

/** C(n, k) as a float (exact up to 2^53, saturates above). */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}

/** BestEffort's subset DP over positions, with its scratch tables reused between calls. */
class _BestEffortSearch {
  // memo[2 * set] = best sum over partitions of set (or an upper bound of it), memo[2 * set + 1] = its
  // tag (see _EPOCH_SHIFT): an entry is known in this call only when its epoch is the current one, so
  // the table is never cleared per call.
  private memo = new Int32Array(0);
  private epoch = 0;
  private pos = new Int32Array(0);
  private n = 0;
  private size = 0;
  private tail = 0;
  private req = 0;
  // The running best of the set being solved, per DP depth.
  private bestValue = new Int32Array(24);
  private bestGroup = new Int32Array(24);
  // Per DP depth: the value the set must reach to matter to its caller, and the highest bound of its
  // children that cannot reach it (the set's upper bound when none can).
  private needAt = new Int32Array(24);
  private upperAt = new Int32Array(24);
  // Per DP depth: top[depth * n + p] = p's size-1 best pair scores inside the set being solved, and their sum over the set.
  private top = new Int32Array(0);
  private topSum = new Int32Array(24);
  // Per DP depth: best1[depth * n + p] = p's best pair score inside the set being solved (0 alone).
  private best1 = new Int32Array(0);
  // The completion bound's candidate values, highest first (see completionCut).
  private picks = new Int32Array(24);
  // The same for the bound by the groups left (c + own, see completionCut).
  private picks2 = new Int32Array(24);
  // Per DP depth: rowIn[depth * n + p] = p's pair scores to the set being solved; setScore the set's own score.
  private rowIn = new Int32Array(0);
  private setScore = new Int32Array(24);
  // partners[p * n + k]: the positions other than p, best pair score first.
  private partners = new Int32Array(0);
  // Best score of one unpadded group, and of the padded group, anywhere among the positions.
  private bestFull = 0;
  private bestTail = 0;
  // groupsBoundOf[count]: at most this much for `count` positions (their groups, the padded one last,
  // each score at most the best single group of their size); a table, so no division per group tried.
  private groupsBoundOf = new Int32Array(33);

  run(matrix: Int32Array, gpus: number, available: Int32Array, required: Int32Array, size: number): Int32Array {
    const n = available.length;
    if (size === 1) return Int32Array.of(required.length > 0 ? required[0] : available[0]);
    if (size === n) return Int32Array.from(available).sort();
    if (this.memo.length < 2 << n) {
      this.memo = new Int32Array(2 << n);
      this.epoch = 0;
    }
    if (++this.epoch > _EPOCH_MAX) {
      this.memo.fill(0);
      this.epoch = 1;
    }
    if (this.pos.length < n * n) {
      this.pos = new Int32Array(n * n);
      this.partners = new Int32Array(n * n);
      this.top = new Int32Array(24 * n);
      this.rowIn = new Int32Array(24 * n);
      this.best1 = new Int32Array(24 * n);
    }
    // Every partition has the same number of scored pairs, so subtracting the smallest pair score
    // from every pair keeps each comparison (and tie) while tightening the bound below a lot.
    let floor = 0x7fffffff;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) floor = Math.min(floor, matrix[available[p] * gpus + available[q]]);
    for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) this.pos[p * n + q] = p === q ? 0 : matrix[available[p] * gpus + available[q]] - floor;
    for (let p = 0; p < n; p++) {
      // Insertion sort by score, descending; ties by position.
      let len = 0;
      for (let q = 0; q < n; q++) {
        if (q === p) continue;
        const s = this.pos[p * n + q];
        let k = len++;
        while (k > 0 && this.pos[p * n + this.partners[p * n + k - 1]] < s) {
          this.partners[p * n + k] = this.partners[p * n + k - 1];
          k--;
        }
        this.partners[p * n + k] = q;
      }
    }
    this.n = n;
    this.size = size;
    this.tail = n % size;
    let req = 0;
    for (const g of required) req |= 1 << available.indexOf(g);
    this.req = req;
    const full = n === 32 ? -1 : (1 << n) - 1;
    // With three or more groups, a remainder of j groups scores at most j times the best single group.
    if (n >= 2 * size + (this.tail === 0 ? size : this.tail)) {
      this.bestFull = this.bestSubset(size);
      this.bestTail = this.tail > 1 ? this.bestSubset(this.tail) : 0;
    } else {
      this.bestFull = 1 << 24;
      this.bestTail = 1 << 24;
    }
    for (let count = 0; count <= n; count++) {
      const paddedLeft = this.tail !== 0 && count % size !== 0;
      this.groupsBoundOf[count] = this.bestFull * ((count - (paddedLeft ? this.tail : 0)) / size) + (paddedLeft ? this.bestTail : 0);
    }
    // With three or more groups, one valid partition found greedily: the optimum reaches its value, so
    // the search prunes from the start (with two, every group is a leaf and the walk would cost as much).
    const start = n >= 2 * size + (this.tail === 0 ? size : this.tail) ? this.greedyValue(full) : _NEED_ANY;
    if (this.solve(full, 0, start) === _NONE) return new Int32Array(0);
    // Upstream's last step: the first group of the winning partition, unpadded and holding every
    // required GPU, with the strictly highest score.
    let chosen = 0;
    let chosenScore = -1;
    for (let rest = full; rest !== 0; ) {
      const g = this.isLastGroup(rest) ? rest : this.memo[2 * rest + 1] & _GROUP_MASK;
      rest ^= g;
      if (_popcount(g) !== size || (g & req) !== req) continue;
      const s = this.groupScore(g);
      if (s > chosenScore) {
        chosen = g;
        chosenScore = s;
      }
    }
    const out: number[] = [];
    for (let m = chosen; m !== 0; m &= m - 1) out.push(available[_ctz(m)]);
    return Int32Array.from(out).sort();
  }

  /** At most this much for `count` positions (see groupsBoundOf). */
  private groupsBound(count: number): number {
    return this.groupsBoundOf[count];
  }

  /**
   * The value of one valid partition of `set`, built greedily (each step: the highest-scoring valid
   * group holding the set's first position), or _NEED_ANY when the walk ends in an invalid last group.
   */
  private greedyValue(set: number): number {
    let total = 0;
    while (set !== 0) {
      const m = _popcount(set);
      if (this.lastCount(m)) return (set & this.req) !== 0 && m !== this.size ? _NEED_ANY : total + this.groupScore(set);
      const lo = set & -set;
      this.greedyScore = -1;
      if (m >= this.size) this.greedyPick(set ^ lo, this.size - 1, lo, 0, false);
      if (this.tail !== 0 && m % this.size !== 0) this.greedyPick(set ^ lo, this.tail - 1, lo, 0, true);
      if (this.greedyScore < 0) return _NEED_ANY;
      total += this.greedyScore;
      set ^= this.greedyGroup;
    }
    return total;
  }

  private greedyScore = -1;
  private greedyGroup = 0;

  /** The best valid group extending `group` by `need` positions of `from` (greedyValue's step). */
  private greedyPick(from: number, need: number, group: number, score: number, padded: boolean): void {
    if (need === 0) {
      const hit = group & this.req;
      if ((hit === 0 || (!padded && hit === this.req)) && score > this.greedyScore) {
        this.greedyScore = score;
        this.greedyGroup = group;
      }
      return;
    }
    const n = this.n;
    for (let avail = from; avail !== 0 && _popcount(avail) >= need; ) {
      const bit = avail & -avail;
      avail ^= bit;
      const p = _ctz(bit);
      let gain = 0;
      for (let g = group; g !== 0; g &= g - 1) gain += this.pos[p * n + _ctz(g)];
      this.greedyPick(avail, need - 1, group | bit, score + gain, padded);
    }
  }

  /** A set that is exactly one group: the last unpadded one, or the padded one. */
  private isLastGroup(set: number): boolean {
    return this.lastCount(_popcount(set));
  }

  /** A set of `count` positions is exactly one group. */
  private lastCount(count: number): boolean {
    return count === this.size || (this.tail !== 0 && count === this.tail);
  }

  /** The highest score of any `count` positions (exact below 2^15 candidates, else a top-pairs bound). */
  private bestSubset(count: number): number {
    const n = this.n;
    if (binomial(n, count) > 1 << 15) {
      // Each member scores at most its count-1 best pairs: the count largest such sums, halved.
      const tops: number[] = [];
      for (let p = 0; p < n; p++) {
        let t = 0;
        for (let k = 0; k < count - 1; k++) t += this.pos[p * n + this.partners[p * n + k]];
        tops.push(t);
      }
      tops.sort((a, b) => b - a);
      let sum = 0;
      for (let k = 0; k < count; k++) sum += tops[k];
      return Math.floor(sum / 2);
    }
    let best = 0;
    const picked: number[] = [];
    const visit = (from: number, score: number): void => {
      if (picked.length === count) {
        if (score > best) best = score;
        return;
      }
      for (let p = from; p <= n - (count - picked.length); p++) {
        let gain = 0;
        for (const q of picked) gain += this.pos[p * n + q];
        picked.push(p);
        visit(p + 1, score + gain);
        picked.pop();
      }
    };
    visit(0, 0);
    return best;
  }

  private groupScore(g: number): number {
    let s = 0;
    const n = this.n;
    for (let a = g; a !== 0; a &= a - 1) {
      const i = _ctz(a);
      for (let b = a & (a - 1); b !== 0; b &= b - 1) s += this.pos[i * n + _ctz(b)];
    }
    return s;
  }

  /**
   * Best sum of group scores over partitions of `set` (the positions still unassigned) when it is at
   * least `need`: then exact, and the memo keeps the set's winning group. Below `need` the caller cannot
   * use it, and any upper bound below `need` comes back instead (memoised as a bound, so that a later
   * caller with a lower need solves the set again). _NONE: no valid partition.
   */
  private solve(set: number, depth: number, need: number): number {
    if (set === 0) return 0;
    const memo = this.memo;
    const tag = memo[2 * set + 1];
    if (tag >>> _EPOCH_SHIFT === this.epoch && ((tag & _UPPER) === 0 || memo[2 * set] < need)) return memo[2 * set];
    const m = _popcount(set);
    const lo = set & -set;
    const rest = set ^ lo;
    this.bestValue[depth] = _NONE;
    this.bestGroup[depth] = 0;
    this.needAt[depth] = need;
    this.upperAt[depth] = _NONE;
    // Remainders of m - size (an unpadded group) or m - tail (the padded group, from a padded set):
    // row sums score those that are one last group; the bound prunes the others.
    const n = this.n;
    const padded = this.tail !== 0 && m % this.size !== 0;
    const unpaddedRest = m - this.size;
    const paddedRest = padded ? m - this.tail : -1;
    const needRows = this.lastCount(unpaddedRest) || this.lastCount(paddedRest);
    // Best pairs per position: the bound of remainders that are not one last group, and the set's own
    // bound whenever it has a need to reach (then it may be skipped before enumerating its groups).
    const needTop = (unpaddedRest > 0 && !this.lastCount(unpaddedRest)) || (paddedRest > 0 && !this.lastCount(paddedRest)) || (need > _NEED_ANY && m > this.size);
    let topSum = 0;
    let twice = 0;
    // The smallest gap, over the set, between a position's size-1 and tail-1 best pairs: the padded
    // group's tail positions score at most their tail-1 best pairs, so each gives up at least this much.
    let minGap = 0x7fffffff;
    for (let b = set; b !== 0; b &= b - 1) {
      const p = _ctz(b);
      // p's best pair in the set (0 when alone): the completion bound's pairs among added members.
      let best1 = 0;
      for (let k = 0; k < n - 1; k++) {
        const q = this.partners[p * n + k];
        if ((set >>> q) & 1) {
          best1 = this.pos[p * n + q];
          break;
        }
      }
      this.best1[depth * n + p] = best1;
      if (needRows) {
        let row = 0;
        for (let c = set; c !== 0; c &= c - 1) row += this.pos[p * n + _ctz(c)];
        this.rowIn[depth * n + p] = row;
        twice += row;
      }
      if (!needTop) continue;
      // Bound: each position scores at most its size-1 best pairs inside the set (twice-counted sums).
      let t = 0;
      let tt = 0;
      let found = 0;
      for (let k = 0; k < n - 1 && found < this.size - 1; k++) {
        const q = this.partners[p * n + k];
        if ((set >>> q) & 1) {
          t += this.pos[p * n + q];
          found++;
          if (found === this.tail - 1) tt = t;
        }
      }
      this.top[depth * n + p] = t;
      topSum += t;
      if (padded) minGap = Math.min(minGap, t - tt);
    }
    this.topSum[depth] = topSum;
    this.setScore[depth] = twice / 2;
    if (needTop) {
      // The whole set's bound (each position's best pairs in it, or its groups' best scores) below need: done.
      const twiceBound = Math.min(padded ? topSum - this.tail * minGap : topSum, 2 * this.groupsBound(m));
      if (twiceBound < 2 * need) {
        memo[2 * set] = twiceBound >> 1;
        memo[2 * set + 1] = (this.epoch << _EPOCH_SHIFT) | _UPPER;
        return twiceBound >> 1;
      }
    }
    // An unpadded group: the first position plus size-1 later ones.
    const topLo = this.top[depth * n + _ctz(lo)];
    const rowLo = this.rowIn[depth * n + _ctz(lo)];
    if (m >= this.size) this.extend(set, depth, rest, this.size - 1, lo, 0, topLo, rowLo, false);
    // The padded group (padding sorts last): the first position plus tail-1 later ones.
    if (padded) this.extend(set, depth, rest, this.tail - 1, lo, 0, topLo, rowLo, true);
    const v = this.bestValue[depth];
    if (v !== _NONE || this.upperAt[depth] === _NONE) {
      // Exact: the best child reached `need` (or no child has a valid partition at all).
      memo[2 * set] = v;
      memo[2 * set + 1] = (this.epoch << _EPOCH_SHIFT) | this.bestGroup[depth];
      return v;
    }
    const upper = this.upperAt[depth];
    memo[2 * set] = upper;
    memo[2 * set + 1] = (this.epoch << _EPOCH_SHIFT) | _UPPER;
    return upper;
  }

  /**
   * A partial group none of whose completions can reach the target (the set's need, or its best so
   * far: the weaker of the two tie rules): true, and the bound goes into the set's upper bound.
   * Per added member q, c = 2 gain[q] - own[q] + its pairs to the other added members, where own is
   * q's row in the set when the complete group leaves one last group (the value is then exactly
   * setScore + 2 score - groupRow) and its top pairs otherwise (twice the value is at most
   * 2 score + topSum - groupTop). Those pairs are at most need-1 times q's best pair in the set, and
   * at most own[q] - gain[q]; the bound adds the `need` largest c over the candidates. Without one
   * last group, twice the value is also at most 2 score + 2 groupsBound(left) plus the `need` largest
   * c + own[q] (the group's own pairs, with the groups left at their best).
   */
  private completionCut(set: number, depth: number, from: number, need: number, group: number, score: number, groupTop: number, groupRow: number): boolean {
    const left = _popcount(set) - _popcount(group) - need;
    if (left <= 0) return false;
    // One last group left: the value is setScore + 2 score - groupRow, exactly (see extend).
    const last = this.lastCount(left);
    const b = this.bestValue[depth];
    let target = this.needAt[depth];
    if (b !== _NONE && b > target) target = b;
    const n = this.n;
    const picks = this.picks;
    const picks2 = this.picks2;
    let len = 0;
    for (let a = from; a !== 0; a &= a - 1) {
      const q = _ctz(a);
      let gain = 0;
      for (let g = group; g !== 0; g &= g - 1) gain += this.pos[q * n + _ctz(g)];
      const pairs = (need - 1) * this.best1[depth * n + q];
      // q's pairs to the other added members: at most need-1 best pairs, and at most what its row
      // (last) or its best pairs (top) leave after its gain.
      const own = last ? this.rowIn[depth * n + q] : this.top[depth * n + q];
      const c = 2 * gain - own + Math.min(pairs, own - gain);
      const d = 2 * gain + Math.min(pairs, own - gain);
      if (!last) {
        let j = len < need ? len : need - 1;
        if (len < need || d > picks2[need - 1]) {
          while (j > 0 && picks2[j - 1] < d) {
            picks2[j] = picks2[j - 1];
            j--;
          }
          picks2[j] = d;
        }
      }
      // Keep the `need` largest, highest first.
      if (len === need && c <= picks[need - 1]) continue;
      let k = len < need ? len++ : need - 1;
      while (k > 0 && picks[k - 1] < c) {
        picks[k] = picks[k - 1];
        k--;
      }
      picks[k] = c;
    }
    if (len < need) return false;
    let sum = 0;
    for (let k = 0; k < need; k++) sum += picks[k];
    if (last) {
      const bound = 2 * score + this.setScore[depth] - groupRow + sum;
      if (bound >= target) return false;
      this.upperAt[depth] = Math.max(this.upperAt[depth], bound);
      return true;
    }
    let sum2 = 0;
    for (let k = 0; k < need; k++) sum2 += picks2[k];
    const twiceBound = 2 * score + Math.min(this.topSum[depth] - groupTop + sum, sum2 + 2 * this.groupsBound(left));
    if (twiceBound >= 2 * target) return false;
    this.upperAt[depth] = Math.max(this.upperAt[depth], twiceBound >> 1);
    return true;
  }

  /** Adds `need` more positions from `from` to `group` (lowest first, so groups come in lexicographic order). */
  private extend(set: number, depth: number, from: number, need: number, group: number, score: number, groupTop: number, groupRow: number, padded: boolean): void {
    if (need === 0) {
      const hit = group & this.req;
      if (hit !== 0 && (padded || hit !== this.req)) return;
      const remaining = set ^ group;
      // What this group's partitions must reach to matter: the set's need, and beating the best so far
      // (a tie only wins when this group is lexicographically first).
      const b = this.bestValue[depth];
      let target = this.needAt[depth];
      if (b !== _NONE) target = Math.max(target, _lexFirst(group, this.bestGroup[depth]) ? b : b + 1);
      let v: number;
      if (remaining !== 0 && this.isLastGroup(remaining)) {
        // One group left: its score is the set's minus this group's pairs to the rest, no recursion.
        if ((remaining & this.req) !== 0 && _popcount(remaining) !== this.size) return;
        v = score + this.setScore[depth] + score - groupRow;
      } else if (remaining === 0) {
        v = score;
      } else {
        // Skip it when even its bound cannot reach the target: first the bound of what is left (no memo
        // read: the table is large and read at random), then the bound an earlier solve of it memoised.
        const twiceNeed = 2 * (target - score);
        let twiceBound = Math.min(this.topSum[depth] - groupTop, 2 * this.groupsBound(_popcount(remaining)));
        if (twiceNeed <= twiceBound) {
          const tag = this.memo[2 * remaining + 1];
          if (tag >>> _EPOCH_SHIFT === this.epoch && (tag & _UPPER) !== 0) twiceBound = 2 * this.memo[2 * remaining];
        }
        if (twiceNeed > twiceBound) {
          // An upper bound of this child for the set's own bound (sums are integers, bounds are >= 0).
          this.upperAt[depth] = Math.max(this.upperAt[depth], score + (twiceBound >> 1));
          return;
        }
        const sub = this.solve(remaining, depth + 1, target - score);
        if (sub === _NONE) return;
        v = score + sub;
      }
      if (v < target) {
        this.upperAt[depth] = Math.max(this.upperAt[depth], v);
        return;
      }
      this.bestValue[depth] = v;
      this.bestGroup[depth] = group;
      return;
    }
    const n = this.n;
    if (need >= 2 && this.completionCut(set, depth, from, need, group, score, groupTop, groupRow)) return;
    let avail = from;
    // Keep at least need-1 positions after the one picked.
    while (avail !== 0 && _popcount(avail) >= need) {
      const bit = avail & -avail;
      avail ^= bit;
      const p = _ctz(bit);
      let gain = 0;
      for (let g = group; g !== 0; g &= g - 1) gain += this.pos[p * n + _ctz(g)];
      this.extend(set, depth, avail, need - 1, group | bit, score + gain, groupTop + this.top[depth * n + p], groupRow + this.rowIn[depth * n + p], padded);
    }
  }
}

/** The 'topology' search: exact enumeration or multi-start greedy with swaps, over index lists. */
class _TopologySearch {
  private matrix: Int32Array = new Int32Array(0);
  private gpus = 0;
  private free: number[] = [];
  private base: Int32Array = new Int32Array(0);
  private rowA: Int32Array = new Int32Array(0);
  private bestScore = 0;
  private bestComplement = 0;
  private bestSet: number[] = [];
  private found = false;
  private picked: number[] = [];

  run(matrix: Int32Array, gpus: number, available: Int32Array, required: Int32Array, size: number, exactSubsets: number): Int32Array {
    const n = gpus;
    const inA = new Uint8Array(n);
    const inR = new Uint8Array(n);
    for (const g of available) inA[g] = 1;
    for (const g of required) inR[g] = 1;
    const need = size - required.length;
    const reqSorted = Array.from(required).sort((a, b) => a - b);
    if (need === 0) return Int32Array.from(reqSorted);
    this.matrix = matrix;
    this.gpus = n;
    // rowA[i]: i's pair scores to every available GPU; base[i]: to every required GPU.
    const rowA = new Int32Array(n);
    const base = new Int32Array(n);
    const free: number[] = [];
    for (let i = 0; i < n; i++) {
      if (inA[i] === 0) continue;
      let ra = 0;
      let rb = 0;
      for (let j = 0; j < n; j++) {
        const s = matrix[i * n + j];
        if (inA[j] !== 0) ra += s;
        if (inR[j] !== 0) rb += s;
      }
      rowA[i] = ra;
      base[i] = rb;
      if (inR[i] === 0) free.push(i);
    }
    let reqScore = 0;
    let reqRow = 0;
    for (let a = 0; a < reqSorted.length; a++) {
      reqRow += rowA[reqSorted[a]];
      for (let b = a + 1; b < reqSorted.length; b++) reqScore += matrix[reqSorted[a] * n + reqSorted[b]];
    }
    this.free = free;
    this.base = base;
    this.rowA = rowA;
    this.found = false;
    this.bestSet = [];
    if (binomial(free.length, need) <= exactSubsets) {
      this.picked = [];
      this.exact(0, need, reqScore, reqRow);
    } else {
      this.greedy(need, reqScore, reqRow);
    }
    const out = reqSorted.concat(this.bestSet).sort((a, b) => a - b);
    return Int32Array.from(out);
  }

  /** Records a candidate when its key (score, remainder score, then lowest indices) is better. */
  private offer(score: number, complement: number, set: number[]): void {
    if (this.found) {
      if (score < this.bestScore || (score === this.bestScore && complement < this.bestComplement)) return;
      if (score === this.bestScore && complement === this.bestComplement && !_lexBefore(set, this.bestSet)) return;
    }
    this.found = true;
    this.bestScore = score;
    this.bestComplement = complement;
    this.bestSet = set.slice().sort((a, b) => a - b);
  }

  /** Every need-subset of free[from..], in lexicographic order; score and row sums are running totals. */
  private exact(from: number, need: number, score: number, rowSum: number): void {
    const { free, matrix, gpus: n } = this;
    if (need === 0) {
      const complement = score - rowSum;
      if (!this.found || score > this.bestScore || (score === this.bestScore && complement > this.bestComplement)) {
        this.found = true;
        this.bestScore = score;
        this.bestComplement = complement;
        this.bestSet = this.picked.slice();
      }
      return;
    }
    const picked = this.picked;
    for (let k = from; k <= free.length - need; k++) {
      const v = free[k];
      let gain = this.base[v];
      for (let t = 0; t < picked.length; t++) gain += matrix[v * n + picked[t]];
      picked.push(v);
      this.exact(k + 1, need - 1, score + gain, rowSum + this.rowA[v]);
      picked.pop();
    }
  }

  /** Above the exact range: from each free GPU, grow greedily, then apply best swaps. */
  private greedy(need: number, reqScore: number, reqRow: number): void {
    const { free, matrix, gpus: n, rowA } = this;
    const f = free.length;
    const gain = new Int32Array(f);
    const inX = new Uint8Array(f);
    for (let seed = 0; seed < f; seed++) {
      inX.fill(0);
      for (let i = 0; i < f; i++) gain[i] = this.base[free[i]];
      let score = reqScore;
      let rowSum = reqRow;
      let count = 0;
      let add = seed;
      for (;;) {
        const v = free[add];
        inX[add] = 1;
        score += gain[add];
        rowSum += rowA[v];
        count++;
        for (let i = 0; i < f; i++) gain[i] += matrix[free[i] * n + v];
        if (count === need) break;
        // Next: the highest gain, then the least connected to the rest, then the lowest index.
        add = -1;
        for (let i = 0; i < f; i++) {
          if (inX[i] !== 0) continue;
          if (add < 0 || gain[i] > gain[add] || (gain[i] === gain[add] && rowA[free[i]] < rowA[free[add]])) add = i;
        }
      }
      for (let round = 0; round < SWAP_ROUNDS; round++) {
        let bu = -1;
        let bv = -1;
        let bds = 0;
        let bdc = 0;
        for (let u = 0; u < f; u++) {
          if (inX[u] === 0) continue;
          const gu = free[u];
          for (let v = 0; v < f; v++) {
            if (inX[v] !== 0) continue;
            const ds = gain[v] - matrix[gu * n + free[v]] - gain[u];
            const dc = ds - rowA[free[v]] + rowA[gu];
            if (ds > bds || (ds === bds && dc > bdc)) {
              bu = u;
              bv = v;
              bds = ds;
              bdc = dc;
            }
          }
        }
        if (bu < 0) break;
        const gu = free[bu];
        const gv = free[bv];
        inX[bu] = 0;
        inX[bv] = 1;
        score += bds;
        rowSum += rowA[gv] - rowA[gu];
        for (let i = 0; i < f; i++) gain[i] += matrix[free[i] * n + gv] - matrix[free[i] * n + gu];
      }
      const set: number[] = [];
      for (let i = 0; i < f; i++) if (inX[i] !== 0) set.push(free[i]);
      this.offer(score, score - rowSum, set);
    }
  }
}

/** a before b: sorted lists of equal length, lexicographic. */
function _lexBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] < b[k];
  return false;
}

/** The aligned kernels in plain TypeScript. */
export function alignedTsKernels(): AlignedKernels {
  const bestEffort = new _BestEffortSearch();
  const topology = new _TopologySearch();
  return {
    alignedBestEffort: (matrix, gpus, available, required, size) => bestEffort.run(matrix, gpus, available, required, size),
    alignedTopology: (matrix, gpus, available, required, size, exactSubsets) => topology.run(matrix, gpus, available, required, size, exactSubsets),
  };
}
