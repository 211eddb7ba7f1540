// The node-level LP of bench/fleet-ideas-node-lp.ts (docs/fleet.md, "Node-level prices"): on openb's
// default trace it places 96.90 % of the GPU milli and prices CPU and memory at nothing on every node
// type; the node value built on its worths (`node-lp`, over the shapes expected 30 times or more) is
// 810 milli a free GPU, an upper bound of the best fill of a node's free GPUs, CPU and memory by those
// shapes (found here by exhaustive search), and never grows when a pod is placed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fleet } from '../../bench/fleet-ideas.js';
import { lagrangianGrid, nodePrices, nodeValue } from '../../bench/fleet-ideas-node-lp.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { ROOT } from '../support/cli.js';

const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(ROOT, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(ROOT, 'data/openb/openb_pod_list_default.csv'), 'utf8')));
const pr = await nodePrices(nodes, pods);
const THETAS = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16];
const grid = lagrangianGrid(pr, THETAS, false, false, 30);
/** A G2 node: 8 GPUs, 96 cores, 384 GiB. */
const g2 = nodes.findIndex((x) => x.gpus === 8 && x.cpu === 96000 && x.memory === 393216);

/** The most worth a set of the trace's GPU shapes (worth > 0, expected `least` times or more) fitting node k's free GPUs, CPU and memory is worth (exhaustive; a few pods at most). */
function bestFill(f: Fleet, k: number, least: number): number {
  const items = pr.shapes.map((s, si) => ({ ...s, worth: pr.worth[si] })).filter((s) => s.gpus > 0 && s.worth > 0 && s.n >= least);
  const walk = (from: number, g: number[], cpu: number, mem: number): number => {
    let best = 0;
    for (let j = from; j < items.length; j++) {
      const s = items[j];
      if (s.cpu > cpu + 1e-9 || s.mem > mem + 1e-9) continue;
      const tried = new Set<number>();
      if (s.milli < 1000) {
        for (let i = 0; i < g.length; i++) {
          if (g[i] < s.milli || tried.has(g[i])) continue;
          tried.add(g[i]);
          const next = [...g];
          next[i] -= s.milli;
          best = Math.max(best, s.worth + walk(j, next, cpu - s.cpu, mem - s.mem));
        }
      } else if (g.filter((v) => v === 1000).length >= s.gpus) {
        const next = [...g];
        for (let i = 0, left = s.gpus; left > 0; i++) if (next[i] === 1000) (next[i] = 0), left--;
        best = Math.max(best, s.worth + walk(j, next, cpu - s.cpu, mem - s.mem));
      }
    }
    return best;
  };
  return walk(0, [...f.g[k]], f.cpu[k] / 1000, f.mem[k] / 1024);
}

describe('the node-level LP on the default trace', () => {
  it('places 96.90 % of the GPU milli, under the loose-GPU bound of 96.98', () => {
    expect(pr.placed * 100).toBeGreaterThan(96.85);
    expect(pr.placed * 100).toBeLessThan(96.98);
  });

  it('prices CPU and memory at nothing and a GPU at 810 milli on every node type', () => {
    expect(pr.types.length).toBe(15);
    for (let t = 0; t < pr.types.length; t++) {
      expect(pr.core[t]).toBeLessThan(1e-6);
      expect(pr.gib[t]).toBeLessThan(1e-6);
      expect(pr.gpu[t]).toBeCloseTo(810, 6);
    }
    const worth = (gpus: number, milli: number) => new Set(pr.shapes.flatMap((s, si) => (s.gpus === gpus && s.milli === milli ? [Math.round(pr.worth[si] * 1000) / 1000] : [])));
    expect(worth(1, 1000)).toEqual(new Set([810]));
    expect(worth(1, 470)).toEqual(new Set([405]));
    expect(worth(1, 160)).toEqual(new Set([0]));
  });
});

describe('the node value', () => {
  it('is 810 a free GPU on a node with CPU to spare; an 810 share costs its GPU (the 190 left is worth nothing)', () => {
    const f = new Fleet(nodes, pods);
    expect(nodeValue(f, pr, grid, g2, 0, 0, -1, 0, 0)).toBeCloseTo(8 * 810, 6);
    expect(nodeValue(f, pr, grid, g2, 3152, 5120, 0, 810, 0)).toBeCloseTo(7 * 810, 6);
    expect(nodeValue(f, pr, grid, g2, 11300, 48 * 1024, -1, 0, 1)).toBeCloseTo(7 * 810, 6);
  });

  it('counts the CPU a node has left: with 4 cores, 8 free GPUs are worth about one common pod', () => {
    const f = new Fleet(nodes, pods);
    f.cpu[g2] = 4000;
    const v = nodeValue(f, pr, grid, g2, 0, 0, -1, 0, 0);
    expect(bestFill(f, g2, 30)).toBeCloseTo(810, 6); // one 810 or whole-GPU pod of 3.152 cores
    expect(v).toBeGreaterThanOrEqual(810 - 1e-6);
    expect(v).toBeLessThan(0.2 * 8 * 810);
    // Over every shape, the trace's few 1-core GPU pods (15 of 8,152) still fill four GPUs.
    const all = nodeValue(f, pr, lagrangianGrid(pr, THETAS, false, false), g2, 0, 0, -1, 0, 0);
    expect(bestFill(f, g2, 0)).toBeCloseTo(4 * 810, 6);
    expect(all).toBeGreaterThanOrEqual(4 * 810 - 1e-6);
  });

  it('bounds the best fill from above and never grows when a pod is placed', () => {
    const milli = fc.constantFrom(0, 30, 190, 350, 530, 680, 1000);
    fc.assert(
      fc.property(fc.array(milli, { minLength: 8, maxLength: 8 }), fc.integer({ min: 0, max: 7000 }), fc.integer({ min: 0, max: 40 * 1024 }), fc.nat(pods.length - 1), (g, cpu, mem, pick) => {
        const f = new Fleet(nodes, pods);
        f.g[g2].set(g);
        f.cpu[g2] = cpu;
        f.mem[g2] = mem;
        const before = nodeValue(f, pr, grid, g2, 0, 0, -1, 0, 0);
        expect(before).toBeGreaterThanOrEqual(bestFill(f, g2, 30) - 1e-6);
        const p = pods[pick];
        if (!f.fits(g2, p, -1)) return;
        const sharing = p.gpus === 1 && p.milli < 1000;
        for (let i = 0; i < 8; i++) {
          if (sharing && g[i] < p.milli) continue;
          const after = nodeValue(f, pr, grid, g2, p.cpu, p.memory, sharing ? i : -1, sharing ? p.milli : 0, sharing ? 0 : p.gpus);
          expect(after).toBeLessThanOrEqual(before + 1e-6);
        }
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});
