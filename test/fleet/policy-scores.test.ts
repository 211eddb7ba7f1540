// The published policies' scores (FGD.md §4) on hand-computed cases, and the node each picks.
import { describe, expect, it } from 'vitest';
import { bestfitScore } from '../../src/fleet/policies/bestfit.js';
import { clusteringScore, podTag } from '../../src/fleet/policies/clustering.js';
import { dotprodScore } from '../../src/fleet/policies/dotprod.js';
import { packingScore } from '../../src/fleet/policies/packing.js';
import type { Pod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';
import { fleetOnState } from '../support/fleet-on-state.js';

describe('fleet policy scores', () => {
  it('dotprod: ⌊100·(1 − ½·[(cL/128000)(c/128000) + (G/8000)(r/8000)])⌋', () => {
    // 1 − ½(0.75·0.03125 + 1·0.0625) = 0.95703125; 1 − ½(0.125·0.03125 + 0.25·0.0625) = 0.990234375
    expect(dotprodScore(96000, 8000, 4000, 500)).toBe(95);
    expect(dotprodScore(16000, 2000, 4000, 500)).toBe(99);
    expect(dotprodScore(1000, 2000, 4000, 500)).toBe(0); // CPU does not fit
  });
  it('bestfit: ⌊100·(1 − [½(cL−c)/128000 + ½(G−r)/8000])⌋', () => {
    expect(bestfitScore(96000, 8000, 4000, 500)).toBe(17); // 1 − (0.359375 + 0.46875)
    expect(bestfitScore(16000, 2000, 4000, 500)).toBe(85); // 1 − (0.046875 + 0.09375)
  });
  it('clustering: b = ⌊25(8000−G)/8000⌋ plus 75 / 50 / 25 / 0', () => {
    const tags = new Int32Array(9);
    expect(clusteringScore(8000, tags, 0, 8, podTag(1, 500))).toBe(25); // no GPU pod yet
    tags[0] = 2; // two sharing pods
    expect(clusteringScore(7100, tags, 0, 8, podTag(1, 300))).toBe(2 + 75); // ⌊25·900/8000⌋ = 2
    expect(clusteringScore(7100, tags, 0, 8, podTag(1, 1000))).toBe(2); // a 1-GPU pod: other tags only
    tags[1] = 1;
    expect(clusteringScore(6100, tags, 0, 8, podTag(1, 300))).toBe(5 + 50); // ⌊25·1900/8000⌋ = 5
    expect(clusteringScore(6100, tags, 0, 8, podTag(0, 0))).toBe(0); // CPU-only pod
  });
  it('packing: idle max(33−F, F); a whole GPU taken max(50−k, 33); else max(100 − ⌊Σ⌊g/10⌋/10⌋, 50)', () => {
    const g = new Int32Array([1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]);
    expect(packingScore(g, 0, 8, 8, 1, 500)).toBe(25);
    expect(packingScore(g, 0, 2, 2, 1, 500)).toBe(31);
    const used = new Int32Array([300, 1000, 650, 1000]);
    expect(packingScore(used, 0, 4, 2, 1, 200)).toBe(97); // takes 300: 100 − ⌊30/10⌋
    expect(packingScore(used, 0, 4, 2, 1, 600)).toBe(94); // takes 650: 100 − ⌊65/10⌋
    expect(packingScore(used, 0, 4, 2, 1, 700)).toBe(49); // takes a whole GPU
    expect(packingScore(used, 0, 4, 2, 2, 1000)).toBe(48);
    expect(packingScore(used, 0, 4, 2, 0, 0)).toBe(0);
  });
});

describe('fleet policies: the node and GPU each picks', async () => {
  const { wasm, ts } = await engines();
  const nodes = [
    { id: 'big', cpu: 96000, memoryMiB: 1 << 20, gpus: 8, model: 'G2' },
    { id: 'small', cpu: 16000, memoryMiB: 1 << 20, gpus: 2, model: 'P100' },
  ];
  const pod = (id: string, milli: number, cpu = 4000, gpus = 1, models: string[] = []): Pod => ({ id, cpu, memory: 1, gpus, milli, models });
  for (const engine of [wasm, ts]) {
    const first = (policy: string, ranks: number[], pods: Pod[], list = nodes) => {
      const fleet = fleetOnState(engine, policy, list, [{ cpu: 4000, milli: 500, gpus: 1, models: [], count: 1, weight: 1 }], ranks, pods);
      try {
        return pods.map((p) => fleet.place(p));
      } finally {
        fleet.scheduler.close();
      }
    };
    it(`${engine.backend}: bestfit, dotprod and packing put a share on the small node whatever the ranks`, () => {
      for (const policy of ['bestfit', 'dotprod', 'packing']) {
        expect(first(policy, [0, 1], [pod('a', 500)])[0]).toEqual({ node: 1, gpus: [0] });
        expect(first(policy, [1, 0], [pod('a', 500)])[0]).toEqual({ node: 1, gpus: [0] });
      }
    });
    it(`${engine.backend}: a tie goes to the smallest rank (two idle nodes of one shape), under every policy`, () => {
      const twins = [nodes[0], { ...nodes[0], id: 'twin' }];
      for (const policy of ['dotprod', 'clustering', 'packing', 'bestfit', 'fgd', 'fgd-close']) {
        expect(first(policy, [0, 1], [pod('a', 500)], twins)[0]?.node).toBe(0);
        expect(first(policy, [1, 0], [pod('a', 500)], twins)[0]?.node).toBe(1);
      }
      // clustering: the small idle node scores b = ⌊25·6000/8000⌋ = 18 (+25) against 0 (+25).
      expect(first('clustering', [0, 1], [pod('a', 500)])[0]?.node).toBe(1);
    });
    it(`${engine.backend}: 'best' GPU choice takes the least free GPU that fits; models and whole GPUs are honoured`, () => {
      const placed = first('bestfit', [0, 1], [pod('a', 700), pod('b', 200), pod('c', 250), pod('d', 1000, 1000, 2, ['G2']), pod('e', 100, 1000, 1, ['X'])]);
      expect(placed[0]).toEqual({ node: 1, gpus: [0] }); // 300 left on small/0
      expect(placed[1]).toEqual({ node: 1, gpus: [0] }); // 300 is the least free that fits 200
      expect(placed[2]).toEqual({ node: 1, gpus: [1] }); // 100 left on GPU 0: 250 goes to GPU 1
      expect(placed[3]).toEqual({ node: 0, gpus: [0, 1] }); // G2 only, the lowest-index whole GPUs
      expect(placed[4]).toBeNull(); // no node has model X
    });
  }
});
