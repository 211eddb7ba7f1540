// More ideas for the research copy of the fleet simulator (bench/fleet-ideas.ts): node states valued
// by the dual prices of a node-level LP that sees CPU and memory as well as GPUs. The LP (HiGHS) puts
// the workload's pod shapes (CPU, memory, GPUs, GPU milli; the distribution at 100 % arrived, not the
// order) on the fleet's node types: y[t][s] pods of shape s on nodes of type t, at most the shape's
// expected count, every CPU-only pod placed; each type's CPU, memory and GPUs are capacities, a share
// costing the fraction of a GPU the share LP prices it at (policies/share-values.ts: the packing of
// shares inside GPUs). Maximize the GPU milli placed. Its duals: a worth per shape (milli less the
// shape's scarcity price) and, per node type, a price per core, per GiB and per GPU. A node with GPUs
// g, c cores and m GiB free is worth the Lagrangian bound of the best fill of its free resources by the
// shapes at their worths, V = min over λ of λ_c·c + λ_m·m + Σ_i V_λ(g_i), V_λ(r) the best fill of r free
// milli by one-GPU items of worth less λ's charge for their CPU and memory (a whole pod of k GPUs
// counts as k items of a k-th of its worth and resources), over a grid of λ: θ times the type's CPU and
// memory duals or, where they are 0 (on every openb type), a G2 GPU's worth per core and per GiB.
// A pod goes where the loss V(before) − V(after) is least (its own worth is the same on every node).
// Names (docs/fleet.md, "Node-level prices"): [plan+|strand+]node-lp[:w][@θ/θ/…][~step][%c][+cpu][+tb][+typ:n][+reserve:n][+from:x]
// (plan+ and strand+: fgd-lp's or strand-all:2+reserve:10's rules with w/100 of the loss per milli off
// FGD's score; otherwise the loss first, in steps of `step` milli (default 10), then FGD; %c: c milli of
// loss per point of FGD's score; +cpu: no memory in the value; +tb: the grid scaled per node type;
// +typ:n: only the shapes expected n times or more in the value;
// +reserve:n: fleet-ideas.ts's reserve; +from:x: fgd-lp's rules while x % of the GPUs or more are free).
//   npm run build && node dist/bench/fleet-ideas-node-lp.js --ideas=plan,node-lp~1+reserve:10 --seeds=42..46
// NODE_LP_TABLES=engine: the prices and the grid from the engine's nodeLpPrices and nodeValueTables
// (src/fleet/policies/node-value.ts: its own simplex, no HiGHS) instead of HiGHS and lagrangianGrid;
// NODE_LP_TABLES=highs-clean: HiGHS's, with the rounding residue it leaves as a price read as 0.
import { fileURLToPath } from 'node:url';
import { nodeLpPrices, nodeValueTables } from '../src/fleet/policies/index.js';
import type { NodeSpec, Pod } from '../src/fleet/types.js';
import { loadSolver } from './fleet-bound-lp.js';
import { type Fleet, main, plan, type Rules, ruleOf } from './fleet-ideas.js';

type Shape = { cpu: number; mem: number; gpus: number; milli: number; models: string[]; n: number };
type NodeType = { cpu: number; mem: number; gpus: number; model: string; count: number };

/** The node-level LP's optimum (the share of the fleet's GPU milli it places) and duals: per node type its prices per core, per GiB and per GPU; per shape its worth (milli). */
export type NodePrices = { placed: number; types: NodeType[]; typeOf: Int32Array; shapes: Shape[]; core: number[]; gib: number[]; gpu: number[]; worth: number[] };

/** Shapes and node types of a trace, and the LP's duals. */
export async function nodePrices(nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<NodePrices> {
  const capacity = nodes.reduce((a, x) => a + x.gpus, 0) * 1000;
  const scale = capacity / pods.reduce((a, p) => a + p.gpus * p.milli, 0);
  const byShape = new Map<string, Shape>();
  for (const p of pods) {
    const key = `${p.cpu},${p.memory},${p.gpus},${p.milli},${p.models.join('|')}`;
    const s = byShape.get(key) ?? { cpu: p.cpu / 1000, mem: p.memory / 1024, gpus: p.gpus, milli: p.milli, models: p.models, n: 0 };
    s.n += scale;
    byShape.set(key, s);
  }
  const shapes = [...byShape.values()];
  const byType = new Map<string, NodeType>();
  const typeOf = new Int32Array(nodes.length);
  nodes.forEach((x, k) => {
    const key = `${x.cpu},${x.memory},${x.gpus},${x.model}`;
    if (!byType.has(key)) byType.set(key, { cpu: x.cpu / 1000, mem: x.memory / 1024, gpus: x.gpus, model: x.model, count: 0 });
    const t = byType.get(key) as NodeType;
    t.count++;
    typeOf[k] = [...byType.keys()].indexOf(key);
  });
  const types = [...byType.values()];
  const { price } = plan(pods);
  const gpuCost = (s: Shape) => (s.gpus === 0 ? 0 : s.milli === 1000 ? s.gpus : price(s.milli));
  const fits = (t: NodeType, s: Shape) => s.cpu <= t.cpu && s.mem <= t.mem && s.gpus <= t.gpus && (s.gpus === 0 || s.models.length === 0 || s.models.includes(t.model));
  const v = (t: number, s: number) => `y${t}_${s}`;
  const obj: string[] = [];
  types.forEach((t, ti) => shapes.forEach((s, si) => fits(t, s) && s.gpus > 0 && obj.push(`${s.gpus * s.milli} ${v(ti, si)}`)));
  const lines = ['Maximize', ` obj: ${obj.join(' + ')}`, 'Subject To'];
  const row = (name: string, terms: string[], rhs: string) => lines.push(` ${name}: ${terms.length === 0 ? '0 y0_0' : terms.join(' + ')} ${rhs}`);
  types.forEach((t, ti) => {
    const on = shapes.map((s, si) => [s, si] as const).filter(([s]) => fits(t, s));
    row(
      `c${ti}`,
      on.map(([s, si]) => `${s.cpu} ${v(ti, si)}`),
      `<= ${t.cpu * t.count}`,
    );
    row(
      `m${ti}`,
      on.map(([s, si]) => `${s.mem} ${v(ti, si)}`),
      `<= ${t.mem * t.count}`,
    );
    row(
      `g${ti}`,
      on.filter(([s]) => gpuCost(s) > 0).map(([s, si]) => `${gpuCost(s)} ${v(ti, si)}`),
      `<= ${t.gpus * t.count}`,
    );
  });
  shapes.forEach((s, si) => {
    const terms = types.flatMap((t, ti) => (fits(t, s) ? [`1 ${v(ti, si)}`] : []));
    row(`s${si}`, terms, `<= ${s.n}`);
    if (s.gpus === 0) row(`f${si}`, terms, `>= ${s.n}`);
  });
  lines.push('End');
  const highs = await loadSolver();
  const solution = highs.solve(lines.join('\n'));
  if (solution.Status !== 'Optimal') throw new Error(`HiGHS: ${solution.Status}`);
  const dual = new Map<string, number>();
  for (const r of solution.Rows) if ('Dual' in r) dual.set(r.Name, Math.abs(r.Dual));
  const d = (name: string) => dual.get(name) ?? 0;
  const worth = shapes.map((s, si) => (s.gpus === 0 ? d(`f${si}`) : s.gpus * s.milli - d(`s${si}`)));
  if (process.env.NODE_LP_DEBUG) {
    process.stderr.write(`node LP: ${solution.ObjectiveValue.toFixed(0)} of ${capacity} milli\n`);
    types.forEach((t, ti) =>
      process.stderr.write(`type ${ti} ${t.count}× ${t.gpus}G ${t.cpu}c ${t.mem}GiB ${t.model}: core ${d(`c${ti}`).toFixed(2)} GiB ${d(`m${ti}`).toFixed(2)} GPU ${d(`g${ti}`).toFixed(1)}\n`),
    );
    shapes.forEach((s, si) => s.n > 20 && process.stderr.write(`shape ${s.gpus}×${s.milli} ${s.cpu}c ${s.mem.toFixed(0)}GiB n=${s.n.toFixed(0)}: worth ${worth[si]!.toFixed(1)}\n`));
  }
  return {
    placed: solution.ObjectiveValue / capacity,
    types,
    typeOf,
    shapes,
    core: types.map((_, ti) => d(`c${ti}`)),
    gib: types.map((_, ti) => d(`m${ti}`)),
    gpu: types.map((_, ti) => d(`g${ti}`)),
    worth,
  };
}

/** Per node type, the Lagrangian grid: for each λ (core, GiB) the table V_λ(r), r = 0..1000. */
export type Grid = { core: number; gib: number; table: Float64Array }[][];

/** The grid of λ: θ·d for θ in `thetas` and each direction d of (the type's duals; when they are 0, a GPU's worth per core and per GiB of the biggest type's share: 810/12, 810/48) taken as core only, memory only and both. */
export function lagrangianGrid(pr: NodePrices, thetas: readonly number[], cpuOnly: boolean, perType: boolean, least = 0): Grid {
  return pr.types.map((_t, ti) => {
    const t = pr.types[ti]!;
    const base: [number, number] = pr.core[ti]! + pr.gib[ti]! > 0 ? [pr.core[ti]!, pr.gib[ti]!] : perType ? [(810 * t.gpus) / t.cpu, (810 * t.gpus) / t.mem] : [810 / 12, 810 / 48];
    const lams: [number, number][] = [[0, 0]];
    for (const th of thetas)
      if (th > 0)
        lams.push(
          ...((cpuOnly
            ? [[th * base[0], 0]]
            : [
                [th * base[0], 0],
                [0, th * base[1]],
                [th * base[0], th * base[1]],
              ]) as [number, number][]),
        );
    return lams.map(([core, gib]) => {
      const items: { milli: number; profit: number }[] = [];
      pr.shapes.forEach((s, si) => {
        if (s.gpus === 0 || s.n < least || s.gpus > t.gpus || s.cpu > t.cpu || s.mem > t.mem) return;
        if (s.models.length > 0 && !s.models.includes(t.model)) return;
        const profit = (pr.worth[si]! - core * s.cpu - gib * s.mem) / s.gpus;
        if (profit > 0) items.push({ milli: s.milli, profit });
      });
      const table = new Float64Array(1001);
      for (let r = 1; r <= 1000; r++) {
        table[r] = table[r - 1]!;
        for (const it of items) if (it.milli <= r && table[r - it.milli]! + it.profit > table[r]!) table[r] = table[r - it.milli]! + it.profit;
      }
      return { core, gib, table };
    });
  });
}

/** V of node k's state after a pod takes cpu, mem, `milli` of GPU i (or `whole` wholly free GPUs). */
export function nodeValue(f: Fleet, pr: NodePrices, gr: Grid, k: number, cpu: number, mem: number, i: number, milli: number, whole: number): number {
  return stateValue(gr, pr.typeOf[k]!, f.g[k]!, f.cpu[k]! - cpu, f.mem[k]! - mem, i, milli, whole);
}

/** V of a state of a node of type `type`: free GPU milli g, cpu milli-cores and mem MiB free, after `milli` of GPU i (or `whole` wholly free GPUs) are taken. */
export function stateValue(gr: Grid, type: number, g: ArrayLike<number>, cpu: number, mem: number, i = -1, milli = 0, whole = 0): number {
  const c = cpu / 1000;
  const m = mem / 1024;
  let best = Number.POSITIVE_INFINITY;
  for (const { core, gib, table } of gr[type]!) {
    let v = core * c + gib * m;
    for (let j = 0, w = whole; j < g.length; j++) {
      let r = j === i ? g[j]! - milli : g[j]!;
      if (w > 0 && r === 1000) (r = 0), w--;
      v += table[r]!;
    }
    if (v < best) best = v;
  }
  return best;
}

/** The tables of `nodePrices` and `lagrangianGrid` flat, as the engine's fgd-node reads them (src/fleet/policies/fgd-node.ts NodeValues). */
export function flatNodeValues(pr: NodePrices, gr: Grid): { lambdas: number; typeOf: Int32Array; core: Float64Array; gib: Float64Array; table: Float64Array } {
  const lambdas = gr[0]?.length ?? 0;
  const entries = gr.flat();
  if (gr.some((t) => t.length !== lambdas)) throw new Error('every node type has as many λ');
  const table = new Float64Array(entries.length * 1001);
  entries.forEach((e, i) => table.set(e.table, i * 1001));
  return { lambdas, typeOf: pr.typeOf, core: Float64Array.from(entries, (e) => e.core), gib: Float64Array.from(entries, (e) => e.gib), table };
}

/** The prices and grid of a name's options: HiGHS and lagrangianGrid, or the engine's tables under NODE_LP_TABLES=engine. */
async function pricesAndGrid(nodes: readonly NodeSpec[], pods: readonly Pod[], thetas: readonly number[], cpuOnly: boolean, perType: boolean, least: number): Promise<{ pr: NodePrices; gr: Grid }> {
  if (process.env.NODE_LP_TABLES !== 'engine') {
    const pr = await nodePrices(nodes, pods);
    // highs-clean: HiGHS's prices with its rounding residue (core and GiB prices below 1e-9, about 1e-14 on a few types) read as 0, as the engine's simplex gives them.
    if (process.env.NODE_LP_TABLES === 'highs-clean') for (const d of [pr.core, pr.gib]) d.forEach((v, i) => v < 1e-9 && (d[i] = 0));
    return { pr, gr: lagrangianGrid(pr, thetas, cpuOnly, perType, least) };
  }
  const lp = nodeLpPrices(nodes, pods);
  const pr: NodePrices = { ...lp, shapes: lp.shapes.map((s) => ({ ...s, models: [...s.models] })) };
  const t = nodeValueTables(nodes, pods, { thetas, least, perType, cpuOnly });
  const gr: Grid = Array.from({ length: t.types }, (_, ti) =>
    Array.from({ length: t.lambdas }, (_, l) => {
      const k = ti * t.lambdas + l;
      return { core: t.core[k]!, gib: t.gib[k]!, table: t.table.subarray(k * 1001, (k + 1) * 1001) };
    }),
  );
  return { pr, gr };
}

const NAME = /^(plan\+|strand\+)?node-lp(?::([0-9.]+))?(?:@([0-9./]+))?(?:~([0-9.]+))?(?:%([0-9.]+))?(\+cpu)?(\+tb)?(?:\+typ:([0-9]+))?(?:\+reserve:([0-9]+))?(?:\+from:([0-9.]+))?$/;

/** The node value of an idea of this file (its θ grid, +cpu, +tb and +typ:n), as a function of a node's state (node k's type; free GPU milli, milli-cores and MiB); undefined for a name of fleet-ideas.ts. */
export async function nodeValueOf(idea: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<((k: number, g: ArrayLike<number>, cpu: number, mem: number) => number) | undefined> {
  const m = NAME.exec(idea);
  if (m === null) return undefined;
  const { pr, gr } = await pricesAndGrid(nodes, pods, (m[3] ?? '0.125/0.25/0.5/1/2').split('/').map(Number), m[6] !== undefined, m[7] !== undefined, Number(m[8] ?? '0'));
  return (k, g, cpu, mem) => stateValue(gr, pr.typeOf[k]!, g, cpu, mem);
}

/** A node's loss V(before) − V(after) when pod p takes `milli` of GPU i (or `whole` wholly free GPUs), V over grid `gr` with node k of type typeOf[k] (`cpuOnly`: no memory). */
export type Loss = (f: Fleet, k: number, p: Pod, i: number, milli: number, whole: number) => number;

/** The loss over grid `gr` (V(before) kept per pod). */
export function lossOf(gr: Grid, typeOf: Int32Array, nodes: number, cpuOnly: boolean): Loss {
  const before = new Float64Array(nodes).fill(Number.NaN);
  let lastPod: Pod | undefined;
  const value = (f: Fleet, k: number, cpu: number, mem: number, i: number, milli: number, whole: number) => stateValue(gr, typeOf[k]!, f.g[k]!, f.cpu[k]! - cpu, f.mem[k]! - mem, i, milli, whole);
  return (f, k, p, i, milli, whole) => {
    if (p !== lastPod) (lastPod = p), before.fill(Number.NaN);
    if (Number.isNaN(before[k])) before[k] = value(f, k, 0, 0, -1, 0, 0);
    return before[k]! - value(f, k, p.cpu, cpuOnly ? 0 : p.memory, i, milli, whole);
  };
}

/**
 * The loss first (in steps of `step` milli), FGD's score inside (`c`: c milli of loss per point of FGD's score, the two blended;
 * 0: FGD only inside); reserve n ≥ 0 holds whole nodes of 4 GPUs or more for pods of 4 GPUs or more once at most n 8-GPU nodes are wholly free (fleet-ideas.ts's reserve).
 */
export function nodeLpRules(loss: Loss, step: number, c: number, n: number): Rules {
  const held = (f: Fleet, k: number) => f.g[k]!.length >= 4 && f.idle8 <= n && f.full(k) === f.g[k]!.length;
  return {
    share: (f, k, p, i, _v, q) => (held(f, k) ? -1e15 : 0) + -Math.round((loss(f, k, p, i, p.milli, 0) - c * q) / step) * 1000 + q,
    cpu: (f, k, p, q) => (held(f, k) ? -1e15 : 0) + -Math.round((loss(f, k, p, -1, 0, 0) - c * q) / step) * 1e9 + q * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0),
    whole: (f, k, p, q) =>
      (p.gpus < 4 && held(f, k) ? -1e18 : 0) +
      -Math.round((loss(f, k, p, -1, 0, p.gpus) - c * q) / step) * 1e12 +
      q * 8589934592 +
      (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1)),
  };
}

/** The ideas of this file (their names: the header above); undefined for a name of fleet-ideas.ts. */
export async function nodeIdeas(idea: string, nodes: readonly NodeSpec[], pods: readonly Pod[]): Promise<Rules | undefined> {
  const m = NAME.exec(idea);
  if (m === null) return undefined;
  const thetas = (m[3] ?? '0.125/0.25/0.5/1/2').split('/').map(Number);
  const { pr, gr } = await pricesAndGrid(nodes, pods, thetas, m[6] !== undefined, m[7] !== undefined, Number(m[8] ?? '0'));
  const cpuOnly = m[6] !== undefined;
  const loss = lossOf(gr, pr.typeOf, nodes.length, cpuOnly);
  if (m[1] === undefined) {
    const rules = nodeLpRules(loss, Number(m[4] ?? '10'), Number(m[5] ?? '0'), m[9] === undefined ? -1 : Number(m[9]));
    if (m[10] === undefined) return rules;
    // Adaptive (`+from:x`): fgd-lp's rules while at least x % of the GPUs are wholly free, these after.
    const below = (Number(m[10]) / 100) * nodes.reduce((a, x) => a + x.gpus, 0);
    const early = (await ruleOf('plan', nodes, pods)) as Rules;
    return {
      share: (f, k, p, i, v, q) => (f.idle < below ? rules.share(f, k, p, i, v, q) : early.share(f, k, p, i, v, q)),
      cpu: (f, k, p, q) => (f.idle < below ? (rules.cpu as NonNullable<Rules['cpu']>)(f, k, p, q) : q * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0)),
      whole: (f, k, p, q) =>
        f.idle < below ? (rules.whole as NonNullable<Rules['whole']>)(f, k, p, q) : q * 8589934592 + (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1)),
    };
  }
  // fgd-lp (or strand-all:2+reserve:10) with the loss (w/100 per milli) taken off FGD's score.
  const w = Number(m[2] ?? '5') / 100;
  const base = (await ruleOf(m[1] === 'plan+' ? 'plan' : 'strand-all:2+reserve:10', nodes, pods)) as Rules;
  const pen = (x: number) => Math.round(w * x);
  return {
    share: (f, k, p, i, v, q) => base.share(f, k, p, i, v, q - Math.min(900, pen(loss(f, k, p, i, p.milli, 0)))),
    cpu: (f, k, p, q) => {
      const q2 = q - Math.min(90, pen(loss(f, k, p, -1, 0, 0)));
      return base.cpu !== undefined ? base.cpu(f, k, p, q2) : q2 * 1e6 - f.g[k]!.reduce((a, v) => a + v, 0);
    },
    whole: (f, k, p, q) => {
      const q2 = q - Math.min(90, pen(loss(f, k, p, -1, 0, p.gpus)));
      return base.whole !== undefined ? base.whole(f, k, p, q2) : q2 * 8589934592 + (f.wanted[k] !== 0 ? 0 : 4294967296 - (f.cpu[k]! - p.cpu) / (f.full(k) - p.gpus + 1));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(nodeIdeas);
