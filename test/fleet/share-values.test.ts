// fgd-lp's share prices: the dual of the configuration LP of bin packing, solved in TypeScript by
// constraint generation. Checked against HiGHS (the dev dependency the upper-bound bench uses) and
// against every configuration enumerated by brute force: the prices are dual feasible (no GPU's
// worth of shares costs more than one GPU) and their objective equals the LP's optimum (so they are
// optimal, by strong duality).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configurations, loadSolver, type Solver } from '../../bench/fleet-bound-lp.js';
import { MAX_PRICED_SIZES, planTables, shareCounts, sharePrices } from '../../src/fleet/policies/share-values.js';
import { parsePodCsv } from '../../src/fleet/trace.js';
import { ROOT } from '../support/cli.js';
import { depth } from '../support/depth.js';

const solver = await loadSolver();

/** The fewest GPUs that cover `counts` shares of `sizes` (the configuration LP's optimum), by HiGHS. */
function fewestGpus(h: Solver, sizes: readonly number[], counts: readonly number[]): number {
  const configs = configurations(sizes, counts);
  const lines = ['Minimize', ` obj: ${configs.map((_, j) => `x${j}`).join(' + ')}`, 'Subject To'];
  sizes.forEach((s, i) =>
    lines.push(
      ` s${s}: ${configs
        .map((c, j) => (c[i] > 0 ? `${c[i]} x${j}` : ''))
        .filter((t) => t !== '')
        .join(' + ')} >= ${counts[i]}`,
    ),
  );
  lines.push('End');
  const solution = h.solve(lines.join('\n'));
  expect(solution.Status).toBe('Optimal');
  return solution.ObjectiveValue;
}

const openb = (trace: string) => {
  const file = join(ROOT, `data/openb/openb_pod_list_${trace}.csv`);
  return parsePodCsv(file, readFileSync(file, 'utf8'));
};

describe('fleet: fgd-lp share prices (configuration-LP duals)', () => {
  it('openb default: an 810 costs a GPU, 650/590/550 two thirds, 480/470/460 a half, 440..320 a third, 290..230 a quarter, 220 a twelfth, 160 and below nothing', () => {
    const { sizes, counts } = shareCounts(openb('default'));
    expect(sizes).toEqual([810, 650, 590, 550, 480, 470, 460, 440, 370, 350, 330, 320, 290, 270, 230, 220, 160, 140, 110, 50]);
    const y = sharePrices(sizes, counts);
    const expected = [1, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 4, 1 / 4, 1 / 4, 1 / 12, 0, 0, 0, 0];
    y.forEach((v, i) => expect(v, `price of ${sizes[i]}`).toBeCloseTo(expected[i], 9));
    const objective = y.reduce((a, v, i) => a + v * counts[i], 0);
    expect(objective).toBeCloseTo(fewestGpus(solver, sizes, counts), 6);
  });

  it('on random share mixes: dual feasible on every configuration, and optimal (the objective is the fewest GPUs HiGHS finds)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 6, maxLength: 6 }), (raw, rawCounts) => {
        const sizes = [...raw].sort((a, b) => b - a);
        const counts = sizes.map((_, i) => rawCounts[i]);
        const y = sharePrices(sizes, counts);
        for (const v of y) expect(v).toBeGreaterThanOrEqual(0);
        for (const c of configurations(sizes, counts)) expect(c.reduce((a, k, i) => a + k * y[i], 0)).toBeLessThanOrEqual(1 + 1e-9);
        expect(y.reduce((a, v, i) => a + v * counts[i], 0)).toBeCloseTo(fewestGpus(solver, sizes, counts), 6);
      }),
      { numRuns: depth(15, 60) },
    );
  });

  it(`prices the ${MAX_PRICED_SIZES} most frequent sizes; any other share is on plan wherever it fits`, () => {
    // 40 sizes, size s asked by s pods: the 32 largest are the most frequent.
    const pods = Array.from({ length: 40 }, (_, k) => 100 + 20 * k).flatMap((s) => Array.from({ length: s }, () => ({ gpus: 1, milli: s })));
    const { sizes } = shareCounts(pods);
    expect(sizes).toHaveLength(MAX_PRICED_SIZES);
    expect(Math.min(...sizes)).toBe(100 + 20 * 8);
    const { value, price } = planTables(pods);
    for (const m of [100, 120, 240]) for (let v = m; v <= 1000; v += 10) expect(value[v] - price[m] - value[v - m]).toBeLessThan(1e-9);
  });

  it('plan tables on openb default: a 470 on an idle GPU or beside a 470 is on plan; a 370 beside a 470 is not (it leaves 160, which fgd-close calls clean), nor a 320 beside a 470', () => {
    const { value, price } = planTables(openb('default'));
    const loss = (v: number, m: number) => value[v] - price[m] - value[v - m];
    expect(value[1000]).toBeCloseTo(1, 12);
    expect(loss(1000, 470)).toBeLessThan(1e-9);
    expect(loss(530, 470)).toBeLessThan(1e-9);
    expect(loss(530, 370)).toBeCloseTo(1 / 6, 9); // a 470 is worth 1/2, a 370 1/3 and the 160 left nothing
    expect(loss(530, 320)).toBeCloseTo(1 / 6, 9);
    expect(loss(1000, 160)).toBeLessThan(1e-9); // an 810 still fits beside it
    expect(loss(190, 160)).toBeLessThan(1e-9);
    for (let v = 1; v <= 1000; v++) for (const m of [50, 230, 470, 810]) if (m <= v) expect(loss(v, m)).toBeGreaterThan(-1e-9);
  });
});
