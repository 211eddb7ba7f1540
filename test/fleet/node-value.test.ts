// The node-lp value's tables (src/fleet/policies/node-value.ts) against the research copy they
// reproduce (bench/fleet-ideas-node-lp.ts: HiGHS for the LP, lagrangianGrid for the tables): its
// formulas on the default trace, HiGHS's LP on small random fleets (on openb's four traces:
// test/research/fleet-node-value.test.ts, HiGHS takes a second a trace), and the simplex
// (policies/simplex.ts) against HiGHS on random LPs of the node LP's form.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSolver } from '../../bench/fleet-bound-lp.js';
import { lagrangianGrid, type NodePrices, nodePrices, stateValue } from '../../bench/fleet-ideas-node-lp.js';
import { type NodeLpPrices, type NodeValueTables, nodeLpPrices, nodeStateValue, nodeValueTables } from '../../src/fleet/policies/index.js';
import { type LinearProgram, type RowSense, solveLp } from '../../src/fleet/policies/simplex.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { type NodeSpec, type Pod, validateNodes, validatePods } from '../../src/fleet/types.js';
import { AllocationError } from '../../src/shared/errors.js';
import { ROOT } from '../support/cli.js';
import { depth } from '../support/depth.js';

const THETAS = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16];
const highs = await loadSolver();

/** The research copy's prices as the engine's type (its shapes' models are mutable arrays). */
const asResearch = (p: NodeLpPrices): NodePrices => ({ ...p, shapes: p.shapes.map((s) => ({ ...s, models: [...s.models] })) });

/** Every entry of the tables the research grid's, to the bit. */
function expectSameTables(t: NodeValueTables, grid: ReturnType<typeof lagrangianGrid>): void {
  expect(t.types).toBe(grid.length);
  grid.forEach((points, ti) => {
    expect(points.length).toBe(t.lambdas);
    points.forEach(({ core, gib, table }, l) => {
      const k = ti * t.lambdas + l;
      if (t.core[k] !== core || t.gib[k] !== gib) expect([ti, l, t.core[k], t.gib[k]]).toEqual([ti, l, core, gib]);
      for (let r = 0; r <= 1000; r++) if (t.table[k * 1001 + r] !== table[r]) expect([ti, l, r, t.table[k * 1001 + r]]).toEqual([ti, l, r, table[r]]);
    });
  });
}

describe('the node value tables on the default trace', () => {
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(ROOT, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(ROOT, 'data/openb/openb_pod_list_default.csv'), 'utf8')));

  it("are the research formulas over the engine's prices, to the bit: a GPU at 810 and CPU and memory at nothing on every type", () => {
    const engine = nodeLpPrices(nodes, pods);
    const t = nodeValueTables(nodes, pods, { thetas: THETAS, least: 30 });
    expect(t.placed).toBeCloseTo(0.969, 3);
    expect([...t.typeOf]).toEqual([...engine.typeOf]);
    expect(t.lambdas).toBe(1 + 3 * THETAS.length);
    expect([...engine.core, ...engine.gib]).toEqual(new Array(2 * engine.types.length).fill(0));
    for (const g of engine.gpu) expect(g).toBe(810);
    const worth = (gpus: number, milli: number) => new Set(engine.shapes.flatMap((s, si) => (s.gpus === gpus && s.milli === milli ? [engine.worth[si]] : [])));
    expect(worth(1, 1000)).toEqual(new Set([810]));
    expect(worth(1, 470)).toEqual(new Set([405]));
    expect(worth(1, 160)).toEqual(new Set([0]));
    const grid = lagrangianGrid(asResearch(engine), THETAS, false, false, 30);
    expectSameTables(t, grid);
    // A G2 node (8 GPUs, 96 cores, 384 GiB), empty: 8 GPUs at 810; other states: stateValue's number.
    const g2 = nodes.findIndex((x) => x.gpus === 8 && x.cpu === 96000 && x.memory === 393216);
    expect(nodeStateValue(t, t.typeOf[g2]!, [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000], 96000, 393216)).toBe(8 * 810);
    for (const [g, cpu, mem] of [
      [[190, 1000, 530, 0, 1000, 1000, 1000, 1000], 4000, 20000],
      [[0, 0, 0, 0, 0, 0, 1000, 350], 30000, 100000],
    ] as const)
      expect(nodeStateValue(t, t.typeOf[g2]!, g, cpu, mem)).toBe(stateValue(grid, t.typeOf[g2]!, g, cpu, mem));
  });

  it('take +cpu and +tb as the research names do', () => {
    const engine = asResearch(nodeLpPrices(nodes, pods));
    const cpu = nodeValueTables(nodes, pods, { thetas: [0.5, 0, 2], least: 0, cpuOnly: true });
    expect(cpu.lambdas).toBe(3);
    expectSameTables(cpu, lagrangianGrid(engine, [0.5, 0, 2], true, false, 0));
    const tb = nodeValueTables(nodes, pods, { thetas: [1], least: 60, perType: true });
    expectSameTables(tb, lagrangianGrid(engine, [1], false, true, 60));
  });
});

const MODELS = ['A', 'B'];
const nodeArb = fc.record({
  cpu: fc.constantFrom(8000, 32000, 96000),
  memory: fc.constantFrom(32768, 131072, 393216),
  gpus: fc.constantFrom(1, 2, 4, 8),
  model: fc.constantFrom(...MODELS),
  copies: fc.integer({ min: 1, max: 4 }),
});
const podArb = fc.record({
  cpu: fc.constantFrom(0, 1000, 4000, 8000, 16000),
  memory: fc.constantFrom(1024, 8192, 65536),
  gpus: fc.constantFrom(0, 1, 1, 1, 2, 8),
  milli: fc.constantFrom(1000, 810, 500, 460, 300, 250, 100),
  models: fc.constantFrom([], ['A'], ['B']),
  copies: fc.integer({ min: 1, max: 6 }),
});

type NodeDraw = typeof nodeArb extends fc.Arbitrary<infer T> ? T : never;
type PodDraw = typeof podArb extends fc.Arbitrary<infer T> ? T : never;

function fleetOf(ns: NodeDraw[], ps: PodDraw[]): { nodes: NodeSpec[]; pods: Pod[] } {
  const nodes = ns.flatMap((x, i) => Array.from({ length: x.copies }, (_, c) => ({ id: `n${i}-${c}`, cpu: x.cpu, memory: x.memory, gpus: x.gpus, model: x.model, gpuMemory: 1 << 30 })));
  const pods = ps.flatMap((p, i) =>
    Array.from({ length: p.copies }, (_, c) => ({ id: `p${i}-${c}`, cpu: p.cpu, memory: p.memory, gpus: p.gpus, milli: p.gpus === 0 ? 0 : p.gpus > 1 ? 1000 : p.milli, models: [...p.models] })),
  );
  return { nodes, pods };
}

describe('the node value tables on small random fleets', () => {
  it("place what HiGHS's LP places, and keep the research formulas to the bit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(nodeArb, { minLength: 1, maxLength: 4 }), fc.array(podArb, { minLength: 1, maxLength: 8 }), async (ns, ps) => {
        const { nodes, pods } = fleetOf(ns, ps);
        fc.pre(pods.some((p) => p.gpus > 0));
        const engine = nodeLpPrices(nodes, pods);
        const t = nodeValueTables(nodes, pods, { thetas: [0.5, 2], least: 1 });
        expectSameTables(t, lagrangianGrid(asResearch(engine), [0.5, 2], false, false, 1));
        let research: NodePrices;
        try {
          research = await nodePrices(nodes, pods);
        } catch {
          return; // HiGHS: infeasible (CPU-only pods the fleet cannot hold); the engine drops that requirement
        }
        expect(Math.abs(t.placed - research.placed)).toBeLessThanOrEqual(1e-6 * Math.max(1e-9, research.placed));
      }),
      { numRuns: depth(3, 200) },
    );
  });
});

/** A random LP of the node LP's form: nonnegative entries, ≤ rows (the last bounds every column), some ≥ rows. */
const lpArb = fc.integer({ min: 1, max: 10 }).chain((n) =>
  fc.record({
    objective: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: n, maxLength: n }),
    le: fc.array(fc.record({ row: fc.array(fc.constantFrom(0, 0, 1, 2, 0.5, 3.25), { minLength: n, maxLength: n }), rhs: fc.integer({ min: 0, max: 40 }) }), { minLength: 0, maxLength: 6 }),
    ge: fc.array(fc.record({ row: fc.array(fc.constantFrom(0, 0, 1, 2), { minLength: n, maxLength: n }), rhs: fc.integer({ min: 0, max: 6 }) }), { minLength: 0, maxLength: 3 }),
    bound: fc.integer({ min: 1, max: 30 }),
  }),
);

describe('the simplex', () => {
  it('finds the optimum HiGHS finds, and duals that prove it (feasible, same objective)', () => {
    fc.assert(
      fc.property(lpArb, ({ objective, le, ge, bound }) => {
        const n = objective.length;
        const rows = [
          ...le.map((r) => ({ ...r, sense: 'le' as RowSense })),
          { row: new Array<number>(n).fill(1), rhs: bound, sense: 'le' as RowSense },
          ...ge.map((r) => ({ ...r, sense: 'ge' as RowSense })),
        ];
        const start = [0];
        const index: number[] = [];
        const value: number[] = [];
        for (let j = 0; j < n; j++) {
          rows.forEach((r, i) => r.row[j] !== 0 && (index.push(i), value.push(r.row[j]!)));
          start.push(index.length);
        }
        const lp: LinearProgram = { objective, start, index, value, sense: rows.map((r) => r.sense), rhs: rows.map((r) => r.rhs) };
        const mine = solveLp(lp);
        const terms = (c: readonly number[]) => c.map((v, j) => `${v} x${j}`).join(' + ');
        const text = ['Maximize', ` obj: ${terms(objective)}`, 'Subject To', ...rows.map((r, i) => ` r${i}: ${terms(r.row)} ${r.sense === 'le' ? '<=' : '>='} ${r.rhs}`), 'End'].join('\n');
        const theirs = highs.solve(text);
        if (theirs.Status === 'Infeasible') {
          expect(mine.status).toBe('infeasible');
          return;
        }
        expect(theirs.Status).toBe('Optimal');
        if (mine.status !== 'optimal') throw new Error(`simplex: ${mine.status}, HiGHS: optimal`);
        expect(mine.objective).toBeCloseTo(theirs.ObjectiveValue, 6);
        // Duals: sign by sense, every reduced cost ≤ 0, b·y = the optimum.
        rows.forEach((r, i) => expect(r.sense === 'le' ? mine.duals[i]! : -mine.duals[i]!).toBeGreaterThan(-1e-9));
        for (let j = 0; j < n; j++) expect(objective[j]! - rows.reduce((a, r, i) => a + r.row[j]! * mine.duals[i]!, 0)).toBeLessThan(1e-9);
        expect(rows.reduce((a, r, i) => a + r.rhs * mine.duals[i]!, 0)).toBeCloseTo(mine.objective, 6);
        // Primal: x ≥ 0 satisfies every row.
        rows.forEach((r) => {
          const lhs = r.row.reduce((a, v, j) => a + v * mine.x[j]!, 0);
          if (r.sense === 'le') expect(lhs).toBeLessThan(r.rhs + 1e-9);
          else expect(lhs).toBeGreaterThan(r.rhs - 1e-9);
        });
      }),
      { numRuns: depth(40, 3000) },
    );
  });
});

function error(fn: () => unknown): AllocationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AllocationError) return e;
    throw e;
  }
  throw new Error('expected an AllocationError');
}

describe('a workload the fleet cannot hold', () => {
  it('is not an error: CPU-only pods that fit no node or too many for its CPU leave the GPU pods their LP', () => {
    const nodes: NodeSpec[] = [{ id: 'n0', cpu: 8000, memory: 32768, gpus: 2, model: 'A', gpuMemory: 1 << 30 }];
    const gpu: Pod = { id: 'g', cpu: 1000, memory: 1024, gpus: 1, milli: 1000, models: [] };
    const cpuOnly = (id: string, cpu: number): Pod => ({ id, cpu, memory: 1024, gpus: 0, milli: 0, models: [] });
    // Scaled to the fleet's 2 GPUs, 2 GPU pods (2 cores) and 20 CPU-only pods of 4 cores (80 cores on 8): the LP without "all placed" rows.
    const crowded = nodeLpPrices(nodes, [gpu, ...Array.from({ length: 10 }, (_, i) => cpuOnly(`c${i}`, 4000))]);
    expect(crowded.placed).toBe(1);
    // A CPU-only pod of 16 cores fits no node: no "all placed" row for its shape.
    const t = nodeValueTables(nodes, [gpu, cpuOnly('big', 16000)], { thetas: [1], least: 0 });
    expect(t.placed).toBe(1);
    expect(nodeStateValue(t, 0, [1000, 1000], 8000, 32768)).toBe(2000);
  });
});

describe('bad input', () => {
  const nodes: NodeSpec[] = [{ id: 'n0', cpu: 8000, memory: 32768, gpus: 2, model: 'A', gpuMemory: 1 << 30 }];
  const pods: Pod[] = [{ id: 'p0', cpu: 1000, memory: 1024, gpus: 1, milli: 500, models: [] }];
  const options = { thetas: [1], least: 0 };
  it('is an AllocationError naming the field and the value', () => {
    expect(error(() => nodeValueTables([], pods, options))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'nodes' });
    const cpuOnly = error(() => nodeValueTables(nodes, [{ ...pods[0]!, gpus: 0, milli: 0 }], options));
    expect(cpuOnly).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'workload' });
    expect(cpuOnly.message).toContain('1 pods without GPUs');
    const nan = error(() => nodeValueTables([{ ...nodes[0]!, cpu: Number.NaN }], pods, options));
    expect(nan).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'nodes[0].cpu' });
    expect(nan.message).toContain('NaN');
    expect(error(() => nodeValueTables(nodes, [{ ...pods[0]!, memory: Number.POSITIVE_INFINITY }], options))).toMatchObject({ field: 'workload[0].memoryMiB' });
    expect(error(() => nodeValueTables(nodes, pods, { thetas: [1, Number.NaN], least: 0 }))).toMatchObject({ field: 'options.thetas[1]' });
    expect(error(() => nodeValueTables(nodes, pods, { thetas: [1], least: -1 }))).toMatchObject({ field: 'options.least' });
    expect(error(() => nodeValueTables(nodes, pods, { ...options, perTipe: true } as never))).toMatchObject({ field: 'options.perTipe' });
    expect(error(() => nodeValueTables([{ ...nodes[0]!, gpus: 0 }], pods, options))).toMatchObject({ field: 'nodes' });
  });
});
