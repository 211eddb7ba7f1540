// A linear program solver with dual prices, in plain TypeScript, for the node-level LP of the
// 'node-lp' value (policies/node-value.ts): max c·x subject to rows a_i·x ≤, ≥ or = b_i, x ≥ 0, with
// sparse columns (the node LP has a few thousand columns of at most five entries and a few hundred
// rows). The revised simplex method in two phases: phase 1 drives artificial variables (one per ≥ or =
// row, or ≤ row with b < 0) to zero, phase 2 maximizes c·x with them held at zero. The basis inverse
// is kept dense (m × m) and updated by each pivot (Gauss–Jordan on its column), and rebuilt from the
// basis columns every REFACTOR pivots and at the end, so the solution and the prices are those of the
// final basis, not of an accumulated update. Pricing is Dantzig's rule (the largest reduced cost,
// lowest index on a tie), switching to Bland's rule (lowest index; no cycling) after DEGENERATE pivots
// in a row that do not move. Deterministic: the same program gives the same bits.
// The duals are those of the final basis: y = c_B·B⁻¹, ≥ 0 on a ≤ row, ≤ 0 on a ≥ row (a maximization),
// exactly 0 on a row whose slack is basic or below 1e-9 (a price tested against 0 is not rounding noise).
// Index reads carry `!`: every array is sized from m, n or the column starts at construction, and
// basis entries are variable indices below n + 2m.
import { AllocationError } from '../../shared/errors.js';

/** A row's sense: a·x ≤ b, a·x ≥ b or a·x = b. */
export type RowSense = 'le' | 'ge' | 'eq';

/** A linear program max c·x, rows a_i·x (sense_i) b_i, x ≥ 0; column j's entries are rows `index[k]`, values `value[k]` for k in start[j]..start[j+1]. */
export type LinearProgram = {
  /** The objective's coefficient of each variable (maximized). */
  objective: ArrayLike<number>;
  /** Column starts into `index` and `value` (length: variables + 1). */
  start: ArrayLike<number>;
  /** The row of each entry. */
  index: ArrayLike<number>;
  /** The value of each entry. */
  value: ArrayLike<number>;
  /** Each row's sense. */
  sense: readonly RowSense[];
  /** Each row's right-hand side. */
  rhs: ArrayLike<number>;
};

/** An LP's answer: 'optimal' with the solution, the optimum and each row's dual price; or 'infeasible' / 'unbounded'. */
export type LpResult = { status: 'optimal'; objective: number; x: Float64Array; duals: Float64Array } | { status: 'infeasible' | 'unbounded' };

const EPS = 1e-9;
/** Pivots between rebuilds of the basis inverse. */
const REFACTOR = 1000;
/** Pivots in a row without progress before Bland's rule. */
const DEGENERATE = 50;

/** Solves `lp` (see LinearProgram); at most 50,000 pivots (INTERNAL beyond: cannot happen on the node LP's few hundred rows). */
export function solveLp(lp: LinearProgram): LpResult {
  return new Revised(lp).solve();
}

class Revised {
  private readonly m: number;
  private readonly n: number;
  /** Basic variable of each row: j < n structural, n + i the slack of row i, n + m + i its artificial. */
  private readonly basis: Int32Array;
  /** The position of each variable in the basis, -1 when non-basic. */
  private readonly where: Int32Array;
  /** B⁻¹, row-major m × m. */
  private readonly inverse: Float64Array;
  /** The basic variables' values, B⁻¹·b. */
  private readonly xb: Float64Array;
  /** The sign of each row's slack (+1 for ≤, −1 for ≥, 0 for =) and of its artificial column (the sign of b). */
  private readonly slack: Int8Array;
  private readonly artificial: Int8Array;
  private readonly cost: Float64Array;
  private readonly y: Float64Array;
  private readonly column: Float64Array;
  private readonly nonzero: Int32Array;
  /** [B | I] during a rebuild (m × 2m). */
  private readonly work: Float64Array;
  private pivots = 0;

  constructor(private readonly lp: LinearProgram) {
    const m = lp.rhs.length;
    const n = lp.objective.length;
    this.m = m;
    this.n = n;
    this.basis = new Int32Array(m);
    this.where = new Int32Array(n + 2 * m).fill(-1);
    this.inverse = new Float64Array(m * m);
    this.xb = new Float64Array(m);
    this.slack = new Int8Array(m);
    this.artificial = new Int8Array(m);
    this.cost = new Float64Array(n + 2 * m);
    this.y = new Float64Array(m);
    this.column = new Float64Array(m);
    this.nonzero = new Int32Array(2 * m);
    this.work = new Float64Array(2 * m * m);
    for (let i = 0; i < m; i++) {
      const b = lp.rhs[i]!;
      const sense = lp.sense[i]!;
      this.slack[i] = sense === 'le' ? 1 : sense === 'ge' ? -1 : 0;
      this.artificial[i] = b < 0 ? -1 : 1;
      // A ≤ row with b ≥ 0 starts on its slack; any other row on its artificial (value |b|).
      const start = sense === 'le' && b >= 0 ? n + i : n + m + i;
      this.basis[i] = start;
      this.where[start] = i;
      this.inverse[i * m + i] = start < n + m ? 1 : this.artificial[i]!;
      this.xb[i] = Math.abs(b);
    }
  }

  solve(): LpResult {
    const { m, n } = this;
    let artificials = false;
    for (let i = 0; i < m; i++) if (this.basis[i]! >= n + m) artificials = true;
    if (artificials) {
      // Phase 1: maximize −Σ artificials.
      for (let i = 0; i < m; i++) this.cost[n + m + i] = -1;
      if (this.run(true) === 'unbounded') throw new AllocationError('INTERNAL', 'simplex: phase 1 unbounded (cannot happen: its objective is at most 0)');
      let infeasibility = 0;
      for (let i = 0; i < m; i++) if (this.basis[i]! >= n + m) infeasibility += this.xb[i]!;
      let scale = 1;
      for (let i = 0; i < m; i++) scale = Math.max(scale, Math.abs(this.lp.rhs[i]!));
      if (infeasibility > 1e-7 * scale) return { status: 'infeasible' };
      this.cost.fill(0);
    }
    for (let j = 0; j < n; j++) this.cost[j] = this.lp.objective[j]!;
    if (this.run(false) === 'unbounded') return { status: 'unbounded' };
    this.refactor();
    this.prices();
    // A row whose slack is basic has a price of exactly 0 (complementary slackness), not c_B·B⁻¹'s rounding residue.
    for (let i = 0; i < m; i++) if (this.where[n + i]! >= 0 || Math.abs(this.y[i]!) < EPS) this.y[i] = 0;
    const x = new Float64Array(n);
    let objective = 0;
    for (let i = 0; i < m; i++) {
      const j = this.basis[i]!;
      if (j < n) x[j] = Math.max(0, this.xb[i]!);
    }
    for (let j = 0; j < n; j++) objective += this.lp.objective[j]! * x[j]!;
    return { status: 'optimal', objective, x, duals: Float64Array.from(this.y) };
  }

  /** y = c_B·B⁻¹. */
  private prices(): void {
    const { m, inverse, y } = this;
    y.fill(0);
    for (let i = 0; i < m; i++) {
      const c = this.cost[this.basis[i]!]!;
      if (c === 0) continue;
      const row = i * m;
      for (let k = 0; k < m; k++) y[k]! += c * inverse[row + k]!;
    }
  }

  /** Variable j's reduced cost c_j − y·a_j (artificials enter only in phase 1). */
  private reduced(j: number): number {
    const { n, m, lp, y } = this;
    if (j < n) {
      let d = this.cost[j]!;
      for (let k = lp.start[j]!, end = lp.start[j + 1]!; k < end; k++) d -= y[lp.index[k]!]! * lp.value[k]!;
      return d;
    }
    if (j < n + m) return -this.slack[j - n]! * y[j - n]!;
    return this.cost[j]! - this.artificial[j - n - m]! * y[j - n - m]!;
  }

  /** column = B⁻¹·a_j. */
  private direction(j: number): void {
    const { n, m, lp, inverse, column } = this;
    column.fill(0);
    const add = (row: number, v: number) => {
      for (let i = 0; i < m; i++) column[i]! += inverse[i * m + row]! * v;
    };
    if (j < n) for (let k = lp.start[j]!, end = lp.start[j + 1]!; k < end; k++) add(lp.index[k]!, lp.value[k]!);
    else if (j < n + m) add(j - n, this.slack[j - n]!);
    else add(j - n - m, this.artificial[j - n - m]!);
  }

  /** Pivots until no reduced cost is above EPS; 'unbounded' when a column can grow without limit. */
  private run(phase1: boolean): 'optimal' | 'unbounded' {
    const { n, m } = this;
    const last = phase1 ? n + 2 * m : n + m;
    let stalled = 0;
    this.prices();
    for (let iteration = 0; iteration < 50000; iteration++) {
      // Entering: the largest reduced cost (Dantzig), or the lowest index above EPS once stalled (Bland).
      const bland = stalled >= DEGENERATE;
      let enter = -1;
      let best = EPS;
      for (let j = 0; j < last; j++) {
        if (this.where[j]! >= 0) continue;
        if (j < n + m && j >= n && this.slack[j - n] === 0) continue;
        const d = this.reduced(j);
        if (d > best) {
          enter = j;
          best = d;
          if (bland) break;
        }
      }
      if (enter < 0) return 'optimal';
      this.direction(enter);
      const { column, xb, basis } = this;
      // Leaving: the least ratio x_i / α_i over α_i > EPS; a basic artificial (phase 2) leaves at once on any α_i ≠ 0, so it stays at 0.
      let leave = -1;
      let ratio = Number.POSITIVE_INFINITY;
      for (let i = 0; i < m; i++) {
        const a = column[i]!;
        let r: number;
        if (!phase1 && basis[i]! >= n + m && Math.abs(a) > EPS) r = 0;
        else if (a > EPS) r = Math.max(0, xb[i]!) / a;
        else continue;
        if (leave < 0 || r < ratio - 1e-12 || (r <= ratio + 1e-12 && (bland ? basis[i]! < basis[leave]! : Math.abs(a) > Math.abs(column[leave]!)))) {
          leave = i;
          ratio = r;
        }
      }
      if (leave < 0) return 'unbounded';
      stalled = ratio > 1e-12 ? 0 : stalled + 1;
      this.pivot(leave, enter, best);
    }
    throw new AllocationError('INTERNAL', 'simplex: no optimum after 50,000 pivots');
  }

  /** Variable `enter` (reduced cost d) replaces the basic variable of row `leave` (column = B⁻¹·a_enter); y moves by d/α_r times B⁻¹'s row r. */
  private pivot(leave: number, enter: number, d: number): void {
    const { m, inverse, column, xb, nonzero, y } = this;
    const p = column[leave]!;
    const theta = xb[leave]! / p;
    const pr = leave * m;
    // The pivot row's nonzero entries (B⁻¹ stays sparse on the node LP): only they change the other rows.
    let count = 0;
    for (let k = 0; k < m; k++) {
      const v = inverse[pr + k]!;
      if (v === 0) continue;
      inverse[pr + k] = v / p;
      nonzero[count++] = k;
    }
    for (let i = 0; i < m; i++) {
      if (i === leave) continue;
      const a = column[i]!;
      if (a === 0) continue;
      const row = i * m;
      for (let c = 0; c < count; c++) {
        const k = nonzero[c]!;
        inverse[row + k]! -= a * inverse[pr + k]!;
      }
      xb[i]! -= theta * a;
    }
    for (let c = 0; c < count; c++) {
      const k = nonzero[c]!;
      y[k]! += d * inverse[pr + k]!;
    }
    xb[leave] = theta;
    this.where[this.basis[leave]!] = -1;
    this.basis[leave] = enter;
    this.where[enter] = leave;
    if (++this.pivots % REFACTOR === 0) {
      this.refactor();
      this.prices();
    }
  }

  /**
   * Rebuilds B⁻¹ from the basis columns and x_B = B⁻¹·b: Gauss–Jordan on [B | I], the unit columns
   * (slacks, artificials) first, each on its own row (no elimination), then the structural columns,
   * each on the unused row of its largest entry; only the pivot row's nonzero entries are touched.
   */
  private refactor(): void {
    const { m, n, lp, nonzero } = this;
    const width = 2 * m;
    const a = this.work;
    a.fill(0);
    for (let i = 0; i < m; i++) {
      const j = this.basis[i]!;
      if (j < n) for (let k = lp.start[j]!, end = lp.start[j + 1]!; k < end; k++) a[lp.index[k]! * width + i] = lp.value[k]!;
      else if (j < n + m) a[(j - n) * width + i] = this.slack[j - n]!;
      else a[(j - n - m) * width + i] = this.artificial[j - n - m]!;
      a[i * width + m + i] = 1;
    }
    const used = new Uint8Array(m);
    const rowOf = new Int32Array(m);
    for (const structural of [false, true])
      for (let c = 0; c < m; c++) {
        if (this.basis[c]! < n !== structural) continue;
        let p = -1;
        let best = 1e-12;
        for (let r = 0; r < m; r++) {
          const v = Math.abs(a[r * width + c]!);
          if (used[r] === 0 && v > best) (p = r), (best = v);
        }
        if (p < 0) throw new AllocationError('INTERNAL', 'simplex: a singular basis');
        used[p] = 1;
        rowOf[c] = p;
        const pivot = a[p * width + c]!;
        let count = 0;
        for (let k = 0; k < width; k++) {
          const v = a[p * width + k]!;
          if (v === 0) continue;
          a[p * width + k] = v / pivot;
          nonzero[count++] = k;
        }
        for (let r = 0; r < m; r++) {
          if (r === p) continue;
          const f = a[r * width + c]!;
          if (f === 0) continue;
          for (let q = 0; q < count; q++) {
            const k = nonzero[q]!;
            a[r * width + k]! -= f * a[p * width + k]!;
          }
        }
      }
    // Row rowOf[i] of a's right half is B⁻¹'s row i (basic variable i).
    for (let i = 0; i < m; i++) {
      const row = rowOf[i]! * width + m;
      let v = 0;
      for (let k = 0; k < m; k++) {
        const b = a[row + k]!;
        this.inverse[i * m + k] = b;
        v += b * lp.rhs[k]!;
      }
      this.xb[i] = v;
    }
  }
}
