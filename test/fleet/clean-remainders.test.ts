// The default policy's clean-remainder table (policies/ours.ts cleanRemainders): a remainder r is
// clean when it is a dead hole (r < dead) or when the typical shares, any number of each size, fill it
// to within what they leave of a whole GPU. Checked against a brute-force enumeration of the sums.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLEAN_SIZE } from '../../src/fleet/layout.js';
import { cleanRemainders, deadHole } from '../../src/fleet/policies/ours.js';
import { parsePodCsv } from '../../src/fleet/trace.js';
import { validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { ROOT } from '../support/cli.js';

const share = (milli: number) => ({ gpus: 1, milli });

/** Every sum ≤ 1000 of a multiset of `sizes` (breadth-first over the sums reached so far). */
function reachableSums(sizes: number[]): Set<number> {
  const seen = new Set<number>([0]);
  const queue = [0];
  while (queue.length > 0) {
    const at = queue.shift() as number;
    for (const m of sizes) {
      if (at + m <= 1000 && !seen.has(at + m)) {
        seen.add(at + m);
        queue.push(at + m);
      }
    }
  }
  return seen;
}

/** The table by its definition: the closest sum at or below r, by enumeration. */
function oracle(sizes: number[], dead: number): number[] {
  const sums = [...reachableSums(sizes)];
  const closest = (r: number) => Math.max(...sums.filter((x) => x <= r));
  const slack = 1000 - closest(1000);
  return Array.from({ length: CLEAN_SIZE }, (_, r) => (r < dead || r - closest(r) <= slack ? 1 : 0));
}

describe('fleet: the clean-remainder table of the default policy', () => {
  it('matches the brute-force definition on random share sizes and dead-hole sizes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 999 }), { maxLength: 6 }), fc.integer({ min: 0, max: 400 }), (sizes, dead) => {
        expect(Array.from(cleanRemainders(sizes.map(share), dead))).toEqual(oracle(sizes, dead));
      }),
      { numRuns: 200 },
    );
  });

  it('ignores whole-GPU, multi-GPU and CPU-only typical pods', () => {
    const withOthers = [share(300), { gpus: 1, milli: 1000 }, { gpus: 8, milli: 1000 }, { gpus: 0, milli: 0 }];
    expect(Array.from(cleanRemainders(withOthers, 0))).toEqual(Array.from(cleanRemainders([share(300)], 0)));
  });

  it('a workload of 300-milli shares alone: 700, 400 and up to 100 left are clean (each loses at most the 100 a whole GPU loses), 500 and 200 are not', () => {
    const clean = cleanRemainders([share(300)], 0);
    for (const r of [0, 50, 100, 300, 400, 600, 700, 900, 999]) expect(clean[r], `r = ${r}`).toBe(1);
    for (const r of [101, 200, 250, 500, 550, 800]) expect(clean[r], `r = ${r}`).toBe(0);
  });

  it('no typical shares: every remainder is clean (nothing fills a whole GPU either), so the rule leaves the order to FGD', () => {
    expect(Array.from(cleanRemainders([{ gpus: 1, milli: 1000 }], 0))).toEqual(new Array(CLEAN_SIZE).fill(1));
  });

  it('only large shares (810): what is left beside one (≤ 190) is clean, remainders it cannot share a GPU with (191..809) are not', () => {
    const clean = cleanRemainders([share(810)], 0);
    for (let r = 0; r < CLEAN_SIZE; r++) expect(clean[r], `r = ${r}`).toBe(r <= 190 || r >= 810 ? 1 : 0);
  });

  it('openb default trace: a whole GPU is filled exactly, so a remainder is clean only when sizes sum to it or it is a dead hole', () => {
    const file = join(ROOT, 'data/openb/openb_pod_list_default.csv');
    const pods = parsePodCsv(file, readFileSync(file, 'utf8'));
    const dead = deadHole(pods);
    expect(dead).toBe(110);
    const clean = cleanRemainders(typicalPods(validatePods('pods', pods)), dead);
    expect(clean[530]).toBe(1); // 370 + 160: a 470 opening a GPU
    expect(clean[60]).toBe(1); // 470 + 470: a dead hole
    expect(clean[210]).toBe(0); // 470 on a GPU holding 320: 160 fits, 50 is lost
    expect(clean[190]).toBe(0); // 650 on a GPU holding 160: 160 fits, 30 is lost
    expect(clean[350]).toBe(0); // 320 on a GPU holding 330: 320 fits, 30 is lost
  });
});
