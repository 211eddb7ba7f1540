// The aligned kernels in TypeScript: the same searches as assembly/aligned.ts and
// assembly/besteffort.ts, step for step (the same groups, bounds and visits; the core computes some
// steps four lanes at a time with v128 where this twin loops), so both backends return the same GPUs. Sets of positions are 32-bit masks here (besteffort runs on at
// most 20 available GPUs); the 'topology' search works on index lists (nodes have up to 64 GPUs).
// Index reads are in range by construction (hence the `!`): positions below n, sets below 2^n into
// tables of 4 << n, group lists sized by reserve(), GPU indices below the matrix's side.
import type { AlignedKernels } from '../devices/aligned.js';
import { binomial, ctz, lexBefore, popcount } from '../shared/bits.js';

/** Rounds of swap search per greedy start above the exact range (same constant in assembly/aligned.ts). */
export const SWAP_ROUNDS = 64;

/** Slack of an invalid group (it splits the required GPUs or pads them): never a candidate. */
const _INF = 0x3fffffff;
const _FAIL = -0x7fffffff;
/** Shell sort gaps (Ciura), as in assembly/besteffort.ts. */
const _GAPS = [701, 301, 132, 57, 23, 10, 4, 1];

/**
 * BestEffort (go-gpuallocator's, exactly) without enumerating partitions: assembly/besteffort.ts
 * step for step (the method is described there and in docs/besteffort.md). Scratch tables are kept
 * between calls and only grow.
 */
class _BestEffortSearch {
  private n = 0;
  private k = 0;
  private r = 0;
  private req = 0;
  private delta = 0;
  private epoch = 0;
  private nf = 0;
  private nt = 0;
  private root = 0;
  private budget = 0;
  private liveStale = false;
  private bestValue = -1;
  private pos = new Int32Array(0);
  private ku = new Int32Array(20);
  private kuBytes = new Int32Array(3 * 256);
  // Per set of positions: score, slack (groups of size or tail positions), upper bound, its epoch.
  private table = new Int32Array(0);
  private gMask = new Int32Array(0);
  private gScore = new Int32Array(0);
  private gSlack = new Int32Array(0);
  private tMask = new Int32Array(0);
  private tScore = new Int32Array(0);
  private tSlack = new Int32Array(0);
  private live = new Int32Array(0);
  private liveSlack = new Int32Array(0);
  // Groups of up to three sum their members' potentials directly (no byte tables).
  private kuDirect = false;
  private candMask = new Int32Array(0);
  private candSlack = new Int32Array(0);
  private gStart = new Int32Array(22);
  private tStart = new Int32Array(22);
  private liveStart = new Int32Array(22);
  private path = new Int32Array(32);
  // gains[d * 32 + q]: pair scores of q to the first d + 1 members of the group being enumerated.
  private gains = new Int32Array(24 * 32);
  private grp = new Int32Array(20);
  private conn = new Int32Array(20 * 32);
  private row = new Int32Array(20);
  // Enumeration state.
  private enC = 0;
  private enFull = false;
  private enCount = 0;
  private enMask: Int32Array = new Int32Array(0);
  private enScore: Int32Array = new Int32Array(0);
  // Two-group state.
  private twBest = _FAIL;
  private twGroup = 0;
  private twSet = 0;
  private twSetScore = 0;

  run(matrix: Int32Array, gpus: number, available: ArrayLike<number>, required: ArrayLike<number>, size: number): number[] {
    const n = available.length;
    if (size === 1) return [required.length > 0 ? required[0]! : available[0]!];
    if (size === n) return Array.from(available).sort((a, b) => a - b);
    this.n = n;
    this.k = size;
    this.r = n % size;
    let floor = 0x7fffffff;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) floor = Math.min(floor, matrix[available[p]! * gpus + available[q]!]!);
    if (this.pos.length < n * n) this.pos = new Int32Array(n * n);
    for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) this.pos[p * n + q] = p === q ? 0 : matrix[available[p]! * gpus + available[q]!]! - floor;
    let req = 0;
    for (let k = 0; k < required.length; k++) req |= 1 << Array.prototype.indexOf.call(available, required[k]!);
    this.req = req;
    const full = (1 << n) - 1;
    if (Math.floor(n / size) + (this.r > 0 ? 1 : 0) <= 2) {
      if (!this.twoGroups(full)) return [];
    } else {
      this.reserve(n, binomial(n, size), this.r > 0 ? binomial(n, this.r) : 0);
      if (++this.epoch > 0x3fffffff) {
        this.table.fill(0);
        this.epoch = 1;
      }
      this.ku.fill(0, 0, n);
      this.nf = this.enumerateGroups(size, true, this.gMask, this.gScore, this.gStart);
      this.nt = this.r > 0 ? this.enumerateGroups(this.r, false, this.tMask, this.tScore, this.tStart) : 0;
      this.fitPotentials();
      const ku = this.kuOf(full);
      const root = ku + (this.r > 0 ? this.delta : 0);
      // Once the first partition reaches the bound, no partition is better: no swaps, no branch and bound.
      let value = this.dive(full);
      if (value >= 0 && root >= size * (value + 1)) value = this.improve(full, value);
      if (value < 0 || root >= size * (value + 1)) {
        // The best value: branch and bound, least slack first, above the first partition's value.
        this.bestValue = value;
        this.root = root;
        this.liveStale = false;
        this.budget = root - size * (value + 1);
        this.buildLive(this.budget);
        this.bestValueOf(full, ku, 0, 0);
        value = this.bestValue;
        if (value < 0) return [];
      }
      // The first partition in upstream's order with that value.
      this.budget = root - size * value;
      this.buildLive(this.budget);
      if (this.lexFirst(full, ku, value, 0, 0) === _FAIL) throw new Error('besteffort: the best value has no partition');
    }
    // The winner's first unpadded group holding every required GPU with the strictly highest score.
    let chosen = 0;
    let chosenScore = -1;
    let set = full;
    for (let d = 0; set !== 0; d++) {
      const g = this.isLast(set) ? set : this.path[d]!;
      set ^= g;
      if (popcount(g) !== size || (g & req) !== req) continue;
      const s = this.groupScore(g);
      if (s > chosenScore) {
        chosen = g;
        chosenScore = s;
      }
    }
    const out: number[] = [];
    for (let a = chosen; a !== 0; a &= a - 1) out.push(available[ctz(a)]!);
    return out.sort((a, b) => a - b);
  }

  private pending(set: number): boolean {
    return this.r !== 0 && popcount(set) % this.k !== 0;
  }

  private isLast(set: number): boolean {
    const m = popcount(set);
    return this.pending(set) ? m === this.r : m === this.k;
  }

  private valid(set: number, full: boolean): boolean {
    const hit = set & this.req;
    return hit === 0 || (full && hit === this.req);
  }

  private groupScore(set: number): number {
    const { pos, n } = this;
    let s = 0;
    for (let a = set; a !== 0; ) {
      const i = ctz(a);
      a &= a - 1;
      for (let b = a; b !== 0; b &= b - 1) s += pos[i * n + ctz(b)]!;
    }
    return s;
  }

  private reserve(n: number, nf: number, nt: number): void {
    if (this.table.length < 4 << n) {
      this.table = new Int32Array(4 << n);
      this.epoch = 0;
    }
    const capF = (nf + 3) & ~3;
    const capT = (nt + 3) & ~3;
    if (this.gMask.length < capF) {
      this.gMask = new Int32Array(capF);
      this.gScore = new Int32Array(capF);
      this.gSlack = new Int32Array(capF);
    }
    if (this.tMask.length < capT) {
      this.tMask = new Int32Array(capT);
      this.tScore = new Int32Array(capT);
      this.tSlack = new Int32Array(capT);
    }
    if (this.live.length < capF + capT) {
      this.live = new Int32Array(capF + capT);
      this.liveSlack = new Int32Array(capF + capT);
      this.candMask = new Int32Array(capF + capT);
      this.candSlack = new Int32Array(capF + capT);
    }
  }

  /**
   * The enC-subsets extending `mask` (depth members) by positions from `from`, in lexicographic order
   * (assembly/besteffort.ts enumerate): the score of mask ∪ {p} is score + gains[(depth - 1) * 32 + p].
   */
  private enumerate(from: number, depth: number, mask: number, score: number): number {
    const { n, pos, ku, enFull, gains } = this;
    const at = (depth - 1) * 32;
    let best = -1;
    const lastLevel = depth === this.enC - 1;
    for (let p = from; p <= n - (this.enC - depth); p++) {
      const s = score + gains[at + p]!;
      const m = mask | (1 << p);
      if (lastLevel) {
        if (this.recordGroup(m, s, enFull) && enFull) {
          if (s > ku[p]!) ku[p] = s;
          if (s > best) best = s;
        }
        continue;
      }
      for (let q = 0; q < n; q++) gains[at + 32 + q] = gains[at + q]! + pos[p * n + q]!;
      const b = this.enumerate(p + 1, depth + 1, m, s);
      if (b >= 0 && enFull) {
        if (b > ku[p]!) ku[p] = b;
        if (b > best) best = b;
      }
    }
    return best;
  }

  /** Group m of score s into the table (valid, or _INF) and, when valid, onto the list being enumerated; returns whether it is valid (assembly/besteffort.ts recordGroup). */
  private recordGroup(m: number, s: number, full: boolean): boolean {
    const { table } = this;
    const valid = this.valid(m, full);
    table[4 * m] = s;
    table[4 * m + 1] = valid ? 0 : _INF;
    if (valid) {
      this.enMask[this.enCount] = m;
      this.enScore[this.enCount] = s;
      this.enCount++;
    }
    return valid;
  }

  private enumerateGroups(c: number, full: boolean, mask: Int32Array, score: Int32Array, start: Int32Array): number {
    const { n, pos, ku } = this;
    this.enC = c;
    this.enFull = full;
    this.enMask = mask;
    this.enScore = score;
    this.enCount = 0;
    for (let p = 0; p <= n - c; p++) {
      start[p] = this.enCount;
      const m = 1 << p;
      if (c === 1) {
        this.recordGroup(m, 0, full);
        continue;
      }
      for (let q = 0; q < n; q++) this.gains[q] = pos[p * n + q]!;
      const b = this.enumerate(p + 1, 1, m, 0);
      if (b >= 0 && full && b > ku[p]!) ku[p] = b;
    }
    for (let p = n - c + 1; p <= n; p++) start[p] = this.enCount;
    for (let i = this.enCount; i < ((this.enCount + 3) & ~3); i++) {
      mask[i] = 0;
      score[i] = 0;
    }
    return this.enCount;
  }

  private fillKuBytes(): void {
    if (this.kuDirect) return;
    const { kuBytes, ku, n } = this;
    for (let j = 0; j < 3; j++) {
      kuBytes[j * 256] = 0;
      if (j * 8 >= n) continue;
      for (let b = 1; b < 256; b++) {
        const p = j * 8 + ctz(b);
        kuBytes[j * 256 + b] = kuBytes[j * 256 + (b & (b - 1))]! + (p < n ? ku[p]! : 0);
      }
    }
  }

  private kuOf(set: number): number {
    if (this.kuDirect) {
      let sum = 0;
      for (let a = set; a !== 0; a &= a - 1) sum += this.ku[ctz(a)]!;
      return sum;
    }
    const t = this.kuBytes;
    return t[set & 0xff]! + t[256 + ((set >>> 8) & 0xff)]! + t[512 + (set >>> 16)]!;
  }

  private fitPotentials(): void {
    const { n, k, nf, gMask, gScore, gSlack, gStart, ku } = this;
    this.kuDirect = k <= 3;
    this.fillKuBytes();
    const padded = (nf + 3) & ~3;
    for (let i = 0; i < padded; i++) gSlack[i] = this.kuOf(gMask[i]!) - k * gScore[i]!;
    // One Gauss-Seidel sweep: lower each potential by the least slack of the groups through it
    // (those whose first position is p or lower: the lists are in lexicographic order).
    for (let p = 0; p < n; p++) {
      const bit = 1 << p;
      const end = gStart[p + 1]!;
      let d = _INF;
      for (let i = 0; i < end; i++) if ((gMask[i]! & bit) !== 0 && gSlack[i]! < d) d = gSlack[i]!;
      if (d === _INF) d = 0;
      ku[p]! -= d;
      if (d !== 0) for (let i = 0; i < end; i++) if ((gMask[i]! & bit) !== 0) gSlack[i]! -= d;
    }
    this.fillKuBytes();
    const { nt, tMask, tScore, tSlack } = this;
    let delta = 0;
    if (nt > 0) {
      delta = -_INF;
      for (let i = 0; i < nt; i++) {
        const e = k * tScore[i]! - this.kuOf(tMask[i]!);
        tSlack[i] = -e;
        if (e > delta) delta = e;
      }
      for (let i = 0; i < nt; i++) tSlack[i]! += delta;
    }
    this.delta = delta;
  }

  private dive(full: number): number {
    const { gStart, gMask, gSlack, gScore, tStart, tMask, tSlack, tScore } = this;
    let set = full;
    let total = 0;
    let d = 0;
    while (!this.isLast(set)) {
      const m = ctz(set);
      let pick = 0;
      let pickScore = 0;
      let least = _INF;
      // The full groups, then (while the set owes it) the padded ones; a tie keeps the earlier group.
      for (let list = 0, lists = this.pending(set) ? 2 : 1; list < lists; list++) {
        const start = list === 0 ? gStart : tStart;
        const masks = list === 0 ? gMask : tMask;
        const slacks = list === 0 ? gSlack : tSlack;
        const scores = list === 0 ? gScore : tScore;
        for (let i = start[m]!, end = start[m + 1]!; i < end; i++) {
          if ((masks[i]! & ~set) === 0 && slacks[i]! < least) {
            least = slacks[i]!;
            pick = masks[i]!;
            pickScore = scores[i]!;
          }
        }
      }
      if (pick === 0) return -1;
      this.path[d++] = pick;
      total += pickScore;
      set ^= pick;
    }
    if (this.table[4 * set + 1]! >= _INF) return -1;
    this.path[d] = set;
    return total + this.table[4 * set]!;
  }

  private improve(full: number, value: number): number {
    const { n, pos, grp, conn, req } = this;
    let set = full;
    let groups = 0;
    while (set !== 0) {
      const g = this.path[groups]!;
      for (let a = g; a !== 0; a &= a - 1) grp[ctz(a)] = groups;
      set ^= g;
      groups++;
    }
    for (let p = 0; p < n; p++) {
      for (let j = 0; j < groups; j++) conn[p * 32 + j] = 0;
      for (let q = 0; q < n; q++) if (q !== p) conn[p * 32 + grp[q]!]! += pos[p * n + q]!;
    }
    let v = value;
    for (let round = 0; round < 64; round++) {
      let bd = 0;
      let bp = -1;
      let bq = -1;
      for (let p = 0; p < n; p++) {
        if (((req >>> p) & 1) !== 0) continue;
        const a = grp[p]!;
        for (let q = p + 1; q < n; q++) {
          if (((req >>> q) & 1) !== 0) continue;
          const b = grp[q]!;
          if (a === b) continue;
          const pq = pos[p * n + q]!;
          const d = conn[q * 32 + a]! - pq - conn[p * 32 + a]! + conn[p * 32 + b]! - pq - conn[q * 32 + b]!;
          if (d > bd) {
            bd = d;
            bp = p;
            bq = q;
          }
        }
      }
      if (bp < 0) break;
      const a = grp[bp]!;
      const b = grp[bq]!;
      for (let x = 0; x < n; x++) {
        const dx = pos[x * n + bq]! - pos[x * n + bp]!;
        conn[x * 32 + a]! += dx;
        conn[x * 32 + b]! -= dx;
      }
      grp[bp] = b;
      grp[bq] = a;
      v += bd;
    }
    return v;
  }

  private buildLive(budget: number): void {
    const { n, gStart, gMask, gSlack, tStart, tMask, tSlack, live, liveSlack, liveStart } = this;
    let i = 0;
    let j = 0;
    let c = 0;
    for (let m = 0; m < n; m++) {
      liveStart[m] = c;
      const iEnd = gStart[m + 1]!;
      const jEnd = this.nt > 0 ? tStart[m + 1]! : 0;
      for (;;) {
        while (i < iEnd && gSlack[i]! > budget) i++;
        while (j < jEnd && tSlack[j]! > budget) j++;
        if (i < iEnd && !(j < jEnd && lexBefore(tMask[j]!, gMask[i]!))) {
          liveSlack[c] = gSlack[i]!;
          live[c++] = gMask[i++]!;
        } else if (j < jEnd) {
          liveSlack[c] = tSlack[j]!;
          live[c++] = tMask[j++]!;
        } else break;
      }
    }
    liveStart[n] = c;
  }

  private setUpper(set: number, v: number): void {
    const t = this.table;
    if (t[4 * set + 3] !== this.epoch || v < t[4 * set + 2]!) {
      t[4 * set + 2] = v;
      t[4 * set + 3] = this.epoch;
    }
  }

  private sortBySlack(from: number, to: number): void {
    const { candMask, candSlack } = this;
    const count = to - from;
    let gi = 0;
    while (gi < 8 && _GAPS[gi]! >= count) gi++;
    for (; gi < 8; gi++) {
      const gap = _GAPS[gi]!;
      for (let i = from + gap; i < to; i++) {
        const m = candMask[i]!;
        const sl = candSlack[i]!;
        let j = i;
        while (j - gap >= from) {
          const pm = candMask[j - gap]!;
          const ps = candSlack[j - gap]!;
          if (ps < sl || (ps === sl && lexBefore(pm, m))) break;
          candMask[j] = pm;
          candSlack[j] = ps;
          j -= gap;
        }
        candMask[j] = m;
        candSlack[j] = sl;
      }
    }
  }

  /**
   * Pushes the live groups through `set`'s first position that fit in `set` and within `gap` onto the
   * candidate stack from `top` (lexicographic order); returns the new top. collectedUpper: the highest
   * bound, (bound - slack) / size, of the groups left out (assembly/besteffort.ts collect).
   */
  private collect(set: number, bound: number, gap: number, top: number): number {
    const { k, live, liveSlack, candMask, candSlack } = this;
    // Every set searched here holds two groups or more, so a set that owes the padded group may take it.
    const tailOk = this.pending(set);
    let upper = Math.trunc((bound - this.budget - 1) / k);
    const m = ctz(set);
    let end = top;
    for (let i = this.liveStart[m]!, last = this.liveStart[m + 1]!; i < last; i++) {
      const g = live[i]!;
      if ((g & ~set) !== 0) continue;
      if (!tailOk && popcount(g) !== k) continue;
      const slack = liveSlack[i]!;
      if (slack > gap) {
        const b = Math.trunc((bound - slack) / k);
        if (b > upper) upper = b;
        continue;
      }
      candMask[end] = g;
      candSlack[end] = slack;
      end++;
    }
    this.collectedUpper = upper;
    return end;
  }
  private collectedUpper = 0;

  /** Score of g plus the last group `set ^ g`, or _FAIL when that group is invalid. */
  private withLastGroup(set: number, g: number): number {
    const rest = set ^ g;
    return this.table[4 * rest + 1]! >= _INF ? _FAIL : this.table[4 * g]! + this.table[4 * rest]!;
  }

  private boundOf(set: number, ku: number): number {
    return this.pending(set) ? ku + this.delta : ku;
  }

  private twoLeft(set: number): boolean {
    return popcount(set) === (this.pending(set) ? this.k + this.r : 2 * this.k);
  }

  /** Potentials summed over a group: slack plus size times score (the padded group's slack includes delta). */
  private kuOfGroup(g: number, slack: number): number {
    return (popcount(g) !== this.k ? slack - this.delta : slack) + this.k * this.table[4 * g]!;
  }

  /** Branch and bound for the best value, least slack first (assembly/besteffort.ts bestValue). */
  private bestValueOf(set: number, ku: number, acc: number, top: number): number {
    if (this.liveStale) {
      this.liveStale = false;
      this.budget = this.root - this.k * (this.bestValue + 1);
      this.buildLive(this.budget);
    }
    const { k, table, candMask, candSlack } = this;
    if (table[4 * set + 3] === this.epoch && acc + table[4 * set + 2]! <= this.bestValue) return table[4 * set + 2]!;
    const bound = this.boundOf(set, ku);
    if (bound < k * (this.bestValue + 1 - acc)) {
      const b = bound >= 0 ? Math.trunc(bound / k) : -1;
      this.setUpper(set, b);
      return b;
    }
    const end = this.collect(set, bound, bound - k * (this.bestValue + 1 - acc), top);
    let upper = this.collectedUpper;
    const two = this.twoLeft(set);
    if (!two && end - top > 1) this.sortBySlack(top, end);
    for (let c = top; c < end; c++) {
      const g = candMask[c]!;
      const slack = candSlack[c]!;
      if (slack > bound - k * (this.bestValue + 1 - acc)) {
        const b = Math.trunc((bound - slack) / k);
        if (b > upper) upper = b;
        if (two) continue;
        break;
      }
      if (two) {
        const v = this.withLastGroup(set, g);
        if (v === _FAIL) continue;
        if (v > upper) upper = v;
        if (acc + v > this.bestValue) {
          this.bestValue = acc + v;
          this.liveStale = true;
        }
        continue;
      }
      const s = table[4 * g]!;
      const sub = this.bestValueOf(set ^ g, ku - this.kuOfGroup(g, slack), acc + s, end);
      if (s + sub > upper) upper = s + sub;
    }
    this.setUpper(set, upper);
    return upper;
  }

  /** The first partition of `set` in upstream's order reaching `need` (assembly/besteffort.ts lexFirst). */
  private lexFirst(set: number, ku: number, need: number, depth: number, top: number): number {
    const { k, table, candMask, candSlack } = this;
    if (table[4 * set + 3] === this.epoch && table[4 * set + 2]! < need) return _FAIL;
    const bound = this.boundOf(set, ku);
    if (bound < k * need) {
      this.setUpper(set, bound >= 0 ? Math.trunc(bound / k) : -1);
      return _FAIL;
    }
    const end = this.collect(set, bound, bound - k * need, top);
    let upper = this.collectedUpper;
    const two = this.twoLeft(set);
    for (let c = top; c < end; c++) {
      const g = candMask[c]!;
      if (two) {
        const v = this.withLastGroup(set, g);
        if (v >= need) {
          this.path[depth] = g;
          return v;
        }
        if (v > upper) upper = v;
        continue;
      }
      const s = table[4 * g]!;
      const rest = set ^ g;
      const sub = this.lexFirst(rest, ku - this.kuOfGroup(g, candSlack[c]!), need - s, depth + 1, end);
      if (sub !== _FAIL) {
        this.path[depth] = g;
        return s + sub;
      }
      // Every way lexFirst fails leaves the rest's upper bound memoised in this search (epoch).
      const b = s + table[4 * rest + 2]!;
      if (b > upper) upper = b;
    }
    this.setUpper(set, upper);
    return _FAIL;
  }

  /** At most two groups: the best first group on path[0]; false when no partition is valid (assembly/besteffort.ts twoGroups). */
  private twoGroups(full: number): boolean {
    const { n, pos, row, gains } = this;
    let total = 0;
    for (let p = 0; p < n; p++) {
      let s = 0;
      for (let q = 0; q < n; q++) s += pos[p * n + q]!;
      row[p] = s;
      total += s;
    }
    this.twSet = full;
    this.twSetScore = total / 2;
    this.twBest = _FAIL;
    this.twGroup = 0;
    for (let q = 0; q < n; q++) gains[q] = pos[q]!;
    this.twoGroupsFrom(1, 0, 1, 0, row[0]!);
    if (this.twBest === _FAIL) return false;
    this.path[0] = this.twGroup;
    return true;
  }

  private twOffer(g: number, score: number, rowSum: number): void {
    if (!this.valid(g, popcount(g) === this.k)) return;
    const rest = this.twSet ^ g;
    if (!this.valid(rest, popcount(rest) === this.k)) return;
    const v = 2 * score + this.twSetScore - rowSum;
    if (v > this.twBest) {
      this.twBest = v;
      this.twGroup = g;
    }
  }

  private twoGroupsFrom(from: number, chosen: number, g: number, score: number, rowSum: number): void {
    const { n, k, r, pos, row, gains } = this;
    const at = chosen * 32;
    const left = k - 1 - chosen;
    const tailLeft = r > 0 && r - 1 > chosen ? r - 1 - chosen : left;
    for (let p = from; p <= n - tailLeft; p++) {
      const s = score + gains[at + p]!;
      const bit = 1 << p;
      const rs = rowSum + row[p]!;
      if (left === 1) this.twOffer(g | bit, s, rs);
      else {
        for (let q = 0; q < n; q++) gains[at + 32 + q] = gains[at + q]! + pos[p * n + q]!;
        this.twoGroupsFrom(p + 1, chosen + 1, g | bit, s, rs);
      }
    }
    // The padded group (position 0 and `chosen` others): after every full group extending it.
    if (r > 0 && chosen === r - 1) this.twOffer(g, score, rowSum);
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

  run(matrix: Int32Array, gpus: number, available: ArrayLike<number>, required: ArrayLike<number>, size: number, exactSubsets: number): number[] {
    const n = gpus;
    const inA = new Uint8Array(n);
    const inR = new Uint8Array(n);
    for (let k = 0; k < available.length; k++) inA[available[k]!] = 1;
    for (let k = 0; k < required.length; k++) inR[required[k]!] = 1;
    const need = size - required.length;
    const reqSorted = Array.from(required).sort((a, b) => a - b);
    if (need === 0) return reqSorted;
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
        const s = matrix[i * n + j]!;
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
      reqRow += rowA[reqSorted[a]!]!;
      for (let b = a + 1; b < reqSorted.length; b++) reqScore += matrix[reqSorted[a]! * n + reqSorted[b]!]!;
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
    return reqSorted.concat(this.bestSet).sort((a, b) => a - b);
  }

  /**
   * Records a candidate when its key (score, remainder score, then lowest indices) is better. `set`:
   * ascending GPU indices (taken from `free`, which is ascending), an array the caller gives up.
   */
  private offer(score: number, complement: number, set: number[]): void {
    if (this.found) {
      if (score < this.bestScore || (score === this.bestScore && complement < this.bestComplement)) return;
      if (score === this.bestScore && complement === this.bestComplement && !_listBefore(set, this.bestSet)) return;
    }
    this.found = true;
    this.bestScore = score;
    this.bestComplement = complement;
    this.bestSet = set;
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
      const v = free[k]!;
      let gain = this.base[v]!;
      for (let t = 0; t < picked.length; t++) gain += matrix[v * n + picked[t]!]!;
      picked.push(v);
      this.exact(k + 1, need - 1, score + gain, rowSum + this.rowA[v]!);
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
      for (let i = 0; i < f; i++) gain[i] = this.base[free[i]!]!;
      let score = reqScore;
      let rowSum = reqRow;
      let count = 0;
      let add = seed;
      for (;;) {
        const v = free[add]!;
        inX[add] = 1;
        score += gain[add]!;
        rowSum += rowA[v]!;
        count++;
        for (let i = 0; i < f; i++) gain[i]! += matrix[free[i]! * n + v]!;
        if (count === need) break;
        // Next: the highest gain, then the least connected to the rest, then the lowest index.
        add = -1;
        for (let i = 0; i < f; i++) {
          if (inX[i] !== 0) continue;
          if (add < 0 || gain[i]! > gain[add]! || (gain[i] === gain[add] && rowA[free[i]!]! < rowA[free[add]!]!)) add = i;
        }
      }
      for (let round = 0; round < SWAP_ROUNDS; round++) {
        let bu = -1;
        let bv = -1;
        let bds = 0;
        let bdc = 0;
        for (let u = 0; u < f; u++) {
          if (inX[u] === 0) continue;
          const gu = free[u]!;
          for (let v = 0; v < f; v++) {
            if (inX[v] !== 0) continue;
            const ds = gain[v]! - matrix[gu * n + free[v]!]! - gain[u]!;
            const dc = ds - rowA[free[v]!]! + rowA[gu]!;
            if (ds > bds || (ds === bds && dc > bdc)) {
              bu = u;
              bv = v;
              bds = ds;
              bdc = dc;
            }
          }
        }
        if (bu < 0) break;
        const gu = free[bu]!;
        const gv = free[bv]!;
        inX[bu] = 0;
        inX[bv] = 1;
        score += bds;
        rowSum += rowA[gv]! - rowA[gu]!;
        for (let i = 0; i < f; i++) gain[i]! += matrix[free[i]! * n + gv]! - matrix[free[i]! * n + gu]!;
      }
      const set: number[] = [];
      for (let i = 0; i < f; i++) if (inX[i] !== 0) set.push(free[i]!);
      this.offer(score, score - rowSum, set);
    }
  }
}

/** a before b: ascending index lists of equal length, lexicographic (lexBefore's rule over lists instead of masks). */
function _listBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! < b[k]!;
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
