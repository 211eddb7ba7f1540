// The engine's node-level LP (src/fleet/policies/node-value.ts, its own simplex) against HiGHS's (the
// research copy bench/fleet-ideas-node-lp.ts) on every openb trace: the same optimum within 1e-6, the
// same worth for every GPU shape and the same GPU price for every node type within 1e-6, and CPU and
// memory prices of 0 on every type where HiGHS gives 0 or rounding residue (below 1e-9, about 1e-14
// on a few types of every trace). The residue is what separates the two: the research grid of a type
// with a residue price shrinks to λ ≈ 0 (the node's CPU and memory uncharged), the engine's does not
// (docs/fleet.md, "Node-level prices"); with the residue read as 0, N's tables are the research grid's
// within 1e-6.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lagrangianGrid, nodePrices } from '../../bench/fleet-ideas-node-lp.js';
import { nodeLpPrices, nodeValueTables } from '../../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { ROOT } from '../support/cli.js';

const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(ROOT, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));

describe.each(['default', 'gpushare40', 'gpuspec33', 'multigpu20'])('the node LP on openb %s', (trace) => {
  it("gives HiGHS's optimum, worths and prices", async () => {
    const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(ROOT, `data/openb/openb_pod_list_${trace}.csv`), 'utf8')));
    const highs = await nodePrices(nodes, pods);
    const engine = nodeLpPrices(nodes, pods);
    expect(Math.abs(engine.placed - highs.placed)).toBeLessThan(1e-6 * highs.placed);
    expect(engine.types.length).toBe(highs.types.length);
    expect(engine.shapes.length).toBe(highs.shapes.length);
    highs.shapes.forEach((s, si) => {
      if (s.gpus > 0 && Math.abs(engine.worth[si]! - highs.worth[si]!) > 1e-6) expect([si, engine.worth[si]]).toEqual([si, highs.worth[si]]);
    });
    highs.types.forEach((_, t) => {
      expect(engine.gpu[t]).toBeCloseTo(highs.gpu[t]!, 6);
      for (const [mine, theirs] of [
        [engine.core[t]!, highs.core[t]!],
        [engine.gib[t]!, highs.gib[t]!],
      ])
        if (theirs < 1e-9) expect(mine).toBe(0);
        else expect(mine).toBeCloseTo(theirs, 6);
    });
    // N's tables: the research grid over HiGHS's prices, residue read as 0, within 1e-6 (the engine's prices lie on the grid of 2⁻²⁴: 940/3 moves by 2e-8).
    const thetas = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16];
    const t = nodeValueTables(nodes, pods, { thetas, least: 30 });
    const clean = (d: number[]) => d.map((v) => (v < 1e-9 ? 0 : v));
    const grid = lagrangianGrid({ ...highs, core: clean(highs.core), gib: clean(highs.gib) }, thetas, false, false, 30);
    let worst = 0;
    grid.forEach((points, ti) =>
      points.forEach(({ core, gib, table }, l) => {
        const k = ti * t.lambdas + l;
        worst = Math.max(worst, Math.abs(t.core[k]! - core), Math.abs(t.gib[k]! - gib));
        for (let r = 0; r <= 1000; r++) worst = Math.max(worst, Math.abs(t.table[k * 1001 + r]! - table[r]!));
      }),
    );
    expect(worst).toBeLessThan(1e-6);
  });
});
