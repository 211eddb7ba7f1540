// The tables of the 'node-lp' node value (docs/fleet.md, "Node-level prices"): a node's state is worth
// the Lagrangian bound of the best fill of its free GPUs, CPU and memory by the workload's pod shapes,
// each at its worth from the dual prices of a node-level LP. The LP puts the workload's pod shapes
// (CPU, memory, GPUs, GPU milli and models; their counts scaled to the fleet's GPU capacity, as at
// 100 % arrived) on the fleet's node types: y(t, s) pods of shape s on nodes of type t, at most the
// expected count of each shape, every CPU-only pod placed; each type's CPU (cores), memory (GiB) and
// GPUs are capacities, a share costing the fraction of a GPU the share LP prices it at
// (share-values.ts). Maximize the GPU milli placed. Its duals give a price per core, per GiB and per
// GPU on each node type and a worth per shape (its milli less its row's dual). The value of a node of
// type t with free GPU milli g_i, c cores and m GiB is min over a grid of λ of λ_c·c + λ_m·m +
// Σ_i V_λ(g_i), where V_λ(r) is the best fill of r milli by one-GPU items, each GPU shape's worth less
// λ's charge for its CPU and memory (a pod of k GPUs as k items of a k-th). λ runs over 0 and
// θ·(the type's core and GiB prices, or where both are 0 — on every openb type — a G2 GPU's worth per
// core and per GiB, 810/12 and 810/48; with perType 810 × the type's GPUs per core and per GiB),
// taken as core only, GiB only and both (cpuOnly: core only). The LP is solved by simplex.ts (no
// HiGHS at run time); the formulas and their order are those of bench/fleet-ideas-node-lp.ts, whose
// runs the tables reproduce.
// Index reads carry `!`: typeOf, shape and type indices come from this file's own maps, and the tables
// are sized types × lambdas × 1001 at construction.
import { AllocationError } from '../../shared/errors.js';
import { fail, rejectUnknownKeys } from '../../shared/validate.js';
import type { NodeSpec, Pod } from '../types.js';
import { shareCounts, sharePrices } from './share-values.js';
import { type RowSense, solveLp } from './simplex.js';

/** The node value's options: the research name's @θ/θ/… (thetas), +typ:n (least), +tb (perType), +cpu (cpuOnly). */
export type NodeValueOptions = {
  /** The grid's multiples θ of the price direction (a θ of 0 adds nothing: λ = 0 is always in). */
  thetas: readonly number[];
  /** Only shapes expected at least this many times at 100 % arrived are in V_λ. */
  least: number;
  /** The direction scaled per node type (810 × the type's GPUs per core and per GiB) where its duals are 0. */
  perType?: boolean;
  /** No memory in the grid (λ charges CPU only). */
  cpuOnly?: boolean;
};

/** The node value's tables: value of a node of type t with free GPU milli g_i, c milli-cores and m MiB = min over l of core·c/1000 + gib·m/1024 + Σ_i table[r = g_i]. */
export type NodeValueTables = {
  /** Node types (distinct CPU, memory, GPUs, model), in first-seen node order. */
  types: number;
  /** λ points per type: 1 + 3 per θ > 0 (1 + 1 per θ > 0 with cpuOnly). */
  lambdas: number;
  /** Each node's type (input order). */
  typeOf: Int32Array;
  /** [type·lambdas + l]: price per core. */
  core: Float64Array;
  /** [type·lambdas + l]: price per GiB. */
  gib: Float64Array;
  /** [(type·lambdas + l)·1001 + r]: V_λ(r), the best fill of r free milli of one GPU, r = 0..1000. */
  table: Float64Array;
  /** The LP's optimum as a share of the fleet's GPU milli. */
  placed: number;
};

/** A pod shape of the node LP: CPU in cores, memory in GiB, its expected count n at 100 % arrived. */
export type NodeLpShape = { cpu: number; mem: number; gpus: number; milli: number; models: readonly string[]; n: number };
/** A node type of the node LP: CPU in cores, memory in GiB, how many nodes. */
export type NodeLpType = { cpu: number; mem: number; gpus: number; model: string; count: number };

/** The node-level LP's optimum (the share of the fleet's GPU milli it places) and duals (absolute values): per type its prices per core, per GiB and per GPU; per shape its worth (milli). */
export type NodeLpPrices = {
  placed: number;
  types: NodeLpType[];
  typeOf: Int32Array;
  shapes: NodeLpShape[];
  core: number[];
  gib: number[];
  gpu: number[];
  worth: number[];
};

const OPTION_KEYS = ['thetas', 'least', 'perType', 'cpuOnly'];
/** The grid's θ at most (more points cost time per placement and no figure asked for more). */
const MAX_THETAS = 64;

function requireFinite(field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) fail('INVALID_ARGUMENT', field, `a finite number ≥ ${min}`, value);
  return value;
}

function checkInput(nodes: readonly NodeSpec[], pods: readonly Pod[]): void {
  if (!Array.isArray(nodes) || nodes.length === 0) fail('INVALID_ARGUMENT', 'nodes', 'at least one node', nodes);
  if (!Array.isArray(pods)) fail('INVALID_ARGUMENT', 'workload', 'an array of pods', pods);
  let gpus = 0;
  nodes.forEach((x, k) => {
    requireFinite(`nodes[${k}].cpu`, x.cpu, 0);
    requireFinite(`nodes[${k}].memoryMiB`, x.memory, 0);
    if (!Number.isInteger(x.gpus) || x.gpus < 0) fail('INVALID_ARGUMENT', `nodes[${k}].gpus`, 'an integer ≥ 0', x.gpus);
    gpus += x.gpus;
  });
  if (gpus === 0) fail('INVALID_ARGUMENT', 'nodes', 'a fleet with at least one GPU', `${nodes.length} nodes without GPUs`);
  let milli = 0;
  pods.forEach((p, k) => {
    requireFinite(`workload[${k}].cpu`, p.cpu, 0);
    requireFinite(`workload[${k}].memoryMiB`, p.memory, 0);
    if (!Number.isInteger(p.gpus) || p.gpus < 0) fail('INVALID_ARGUMENT', `workload[${k}].gpus`, 'an integer ≥ 0', p.gpus);
    if (p.gpus > 0 && (!Number.isInteger(p.milli) || p.milli < 1 || p.milli > 1000)) fail('INVALID_ARGUMENT', `workload[${k}].milli`, 'an integer in 1..1000', p.milli);
    milli += p.gpus * p.milli;
  });
  if (milli === 0) fail('INVALID_ARGUMENT', 'workload', 'a workload with at least one GPU pod (the LP scales the workload to the fleet by its GPU milli)', `${pods.length} pods without GPUs`);
}

/**
 * The node-level LP's prices (the research copy's nodePrices, solved by simplex.ts). A CPU-only shape
 * that fits no node type has no "all placed" row; when the fleet cannot hold every CPU-only pod, the
 * LP is solved without those rows (the research copy stops there).
 */
export function nodeLpPrices(nodes: readonly NodeSpec[], pods: readonly Pod[]): NodeLpPrices {
  checkInput(nodes, pods);
  const capacity = nodes.reduce((a, x) => a + x.gpus, 0) * 1000;
  const scale = capacity / pods.reduce((a, p) => a + p.gpus * p.milli, 0);
  const byShape = new Map<string, NodeLpShape>();
  for (const p of pods) {
    const key = `${p.cpu},${p.memory},${p.gpus},${p.milli},${p.models.join('|')}`;
    const s = byShape.get(key) ?? { cpu: p.cpu / 1000, mem: p.memory / 1024, gpus: p.gpus, milli: p.milli, models: p.models, n: 0 };
    // Summed pod by pod, as the research copy does (the same bits).
    s.n += scale;
    byShape.set(key, s);
  }
  const shapes = [...byShape.values()];
  const typeIndex = new Map<string, number>();
  const types: NodeLpType[] = [];
  const typeOf = new Int32Array(nodes.length);
  nodes.forEach((x, k) => {
    const key = `${x.cpu},${x.memory},${x.gpus},${x.model}`;
    let t = typeIndex.get(key);
    if (t === undefined) {
      t = types.length;
      typeIndex.set(key, t);
      types.push({ cpu: x.cpu / 1000, mem: x.memory / 1024, gpus: x.gpus, model: x.model, count: 0 });
    }
    types[t]!.count++;
    typeOf[k] = t;
  });
  const { sizes, counts } = shareCounts(pods);
  const solved = sharePrices(sizes, counts);
  const price = new Map(sizes.map((s, i) => [s, solved[i]!]));
  const gpuCost = (s: NodeLpShape) => (s.gpus === 0 ? 0 : s.milli === 1000 ? s.gpus : (price.get(s.milli) ?? 0));
  const fits = (t: NodeLpType, s: NodeLpShape) => s.cpu <= t.cpu && s.mem <= t.mem && s.gpus <= t.gpus && (s.gpus === 0 || s.models.length === 0 || s.models.includes(t.model));
  // Rows: per type c (cores), m (GiB), g (GPUs); per shape s (at most n); per CPU-only shape that fits some type f (at least n).
  const T = types.length;
  const shapeRow = 3 * T;
  const fRow = new Int32Array(shapes.length).fill(-1);
  let rows = shapeRow + shapes.length;
  const placeable = shapes.map((s) => types.some((t) => fits(t, s)));
  shapes.forEach((s, si) => {
    if (s.gpus === 0 && placeable[si]) fRow[si] = rows++;
  });
  const solve = (withF: boolean) => {
    const m = withF ? rows : shapeRow + shapes.length;
    const objective: number[] = [];
    const start: number[] = [0];
    const index: number[] = [];
    const value: number[] = [];
    const sense: RowSense[] = [];
    const rhs = new Float64Array(m);
    types.forEach((t, ti) => {
      sense.push('le', 'le', 'le');
      rhs[3 * ti] = t.cpu * t.count;
      rhs[3 * ti + 1] = t.mem * t.count;
      rhs[3 * ti + 2] = t.gpus * t.count;
    });
    shapes.forEach((s, si) => {
      sense.push('le');
      rhs[shapeRow + si] = s.n;
    });
    if (withF)
      shapes.forEach((s, si) => {
        if (fRow[si]! >= 0) {
          sense.push('ge');
          rhs[fRow[si]!] = s.n;
        }
      });
    // Columns by type, then shape (the research copy's variable order).
    types.forEach((t, ti) =>
      shapes.forEach((s, si) => {
        if (!fits(t, s)) return;
        objective.push(s.gpus > 0 ? s.gpus * s.milli : 0);
        const entry = (row: number, v: number) => {
          if (v !== 0) index.push(row), value.push(v);
        };
        entry(3 * ti, s.cpu);
        entry(3 * ti + 1, s.mem);
        entry(3 * ti + 2, gpuCost(s));
        entry(shapeRow + si, 1);
        if (withF && fRow[si]! >= 0) entry(fRow[si]!, 1);
        start.push(index.length);
      }),
    );
    return solveLp({ objective, start, index, value, sense, rhs });
  };
  let result = solve(true);
  if (result.status === 'infeasible') result = solve(false);
  if (result.status !== 'optimal') throw new AllocationError('INTERNAL', `node LP: ${result.status} (cannot happen: y = 0 is feasible and every variable is bounded by its shape's count)`);
  const { duals } = result;
  const d = (row: number) => (row >= 0 && row < duals.length ? snap(Math.abs(duals[row]!)) : 0);
  return {
    placed: result.objective / capacity,
    types,
    typeOf,
    shapes,
    core: types.map((_, ti) => d(3 * ti)),
    gib: types.map((_, ti) => d(3 * ti + 1)),
    gpu: types.map((_, ti) => d(3 * ti + 2)),
    worth: shapes.map((s, si) => (s.gpus === 0 ? d(fRow[si]!) : s.gpus * s.milli - d(shapeRow + si))),
  };
}

/** A price on the grid of 2⁻²⁴ (6e-8): the simplex's rounding residue (about 1e-13) is gone, so equal worths are equal numbers and a loss of 202.5 is 202.5. */
function snap(v: number): number {
  return Math.round(v * 16777216) / 16777216;
}

/** The node value's tables (see NodeValueTables) for a fleet and the workload whose shapes it expects. */
export function nodeValueTables(nodes: readonly NodeSpec[], workload: readonly Pod[], options: NodeValueOptions): NodeValueTables {
  if (typeof options !== 'object' || options === null) fail('INVALID_ARGUMENT', 'options', 'an object { thetas, least, perType?, cpuOnly? }', options);
  rejectUnknownKeys('options', options as Record<string, unknown>, OPTION_KEYS);
  if (!Array.isArray(options.thetas) || options.thetas.length > MAX_THETAS) fail('INVALID_ARGUMENT', 'options.thetas', `an array of at most ${MAX_THETAS} numbers`, options.thetas);
  const thetas = options.thetas.map((th, i) => requireFinite(`options.thetas[${i}]`, th, 0));
  const least = requireFinite('options.least', options.least, 0);
  for (const key of ['perType', 'cpuOnly'] as const) if (options[key] !== undefined && typeof options[key] !== 'boolean') fail('INVALID_ARGUMENT', `options.${key}`, 'a boolean', options[key]);
  const cpuOnly = options.cpuOnly === true;
  const pr = nodeLpPrices(nodes, workload);
  const per = cpuOnly ? 1 : 3;
  const lambdas = 1 + per * thetas.filter((th) => th > 0).length;
  const T = pr.types.length;
  const core = new Float64Array(T * lambdas);
  const gib = new Float64Array(T * lambdas);
  const table = new Float64Array(T * lambdas * 1001);
  const items: { milli: number; profit: number }[] = [];
  pr.types.forEach((t, ti) => {
    const base: [number, number] = pr.core[ti]! + pr.gib[ti]! > 0 ? [pr.core[ti]!, pr.gib[ti]!] : options.perType === true ? [perUnit(t.gpus, t.cpu), perUnit(t.gpus, t.mem)] : [810 / 12, 810 / 48];
    let l = ti * lambdas;
    const point = (c: number, g: number) => {
      core[l] = c;
      gib[l] = g;
      fill(pr, t, c, g, least, items, table, l * 1001);
      l++;
    };
    point(0, 0);
    for (const th of thetas) {
      if (th <= 0) continue;
      point(th * base[0], 0);
      if (cpuOnly) continue;
      point(0, th * base[1]);
      point(th * base[0], th * base[1]);
    }
  });
  return { types: T, lambdas, typeOf: pr.typeOf, core, gib, table, placed: pr.placed };
}

/** 810 milli × GPUs per unit (a type without the unit: 0, where the research copy would divide by 0). */
function perUnit(gpus: number, units: number): number {
  return units > 0 ? (810 * gpus) / units : 0;
}

/** V_λ(r) for r = 0..1000 into table[at..at+1000]: the best fill of r milli by the type's GPU shapes (expected `least` times or more) at their worth less λ's charge. */
function fill(pr: NodeLpPrices, t: NodeLpType, core: number, gib: number, least: number, items: { milli: number; profit: number }[], table: Float64Array, at: number): void {
  items.length = 0;
  pr.shapes.forEach((s, si) => {
    if (s.gpus === 0 || s.n < least || s.gpus > t.gpus || s.cpu > t.cpu || s.mem > t.mem) return;
    if (s.models.length > 0 && !s.models.includes(t.model)) return;
    const profit = (pr.worth[si]! - core * s.cpu - gib * s.mem) / s.gpus;
    if (profit <= 0) return;
    // One item per size, at its best profit: the fill's maximum is the same number (a + p grows with p), from fewer items.
    const same = items.find((it) => it.milli === s.milli);
    if (same === undefined) items.push({ milli: s.milli, profit });
    else if (profit > same.profit) same.profit = profit;
  });
  table[at] = 0;
  for (let r = 1; r <= 1000; r++) {
    let v = table[at + r - 1]!;
    for (const it of items) if (it.milli <= r && table[at + r - it.milli]! + it.profit > v) v = table[at + r - it.milli]! + it.profit;
    table[at + r] = v;
  }
}

/** The node value of a state (the research copy's stateValue): a node of type `type` with free GPU milli `free`, `cpu` milli-cores and `mem` MiB free. */
export function nodeStateValue(tables: NodeValueTables, type: number, free: ArrayLike<number>, cpu: number, mem: number): number {
  const c = cpu / 1000;
  const m = mem / 1024;
  let best = Number.POSITIVE_INFINITY;
  for (let l = type * tables.lambdas, end = l + tables.lambdas; l < end; l++) {
    let v = tables.core[l]! * c + tables.gib[l]! * m;
    for (let j = 0; j < free.length; j++) v += tables.table[l * 1001 + free[j]!]!;
    if (v < best) best = v;
  }
  return best;
}
