// The page's PCIe tree (web/planner/pcie-tree.ts): GPUs grouped by the switch level that joins them. On a
// hierarchical topology (every real PCIe tree) the lowest joint above two GPUs is their pair's level;
// on any topology it is never farther than the pair's level (single linkage).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getPreset, type Link, PCIE_LEVELS, type PcieLevel } from '../../src/index.js';
import { jointLevel, type PcieTreeNode, pcieTree } from '../../web/planner/pcie-tree.js';

function leaves(n: PcieTreeNode): number[] {
  return n.kind === 'gpu' ? [n.gpu] : n.children.flatMap(leaves);
}

function joints(n: PcieTreeNode): Array<Extract<PcieTreeNode, { kind: 'joint' }>> {
  return n.kind === 'gpu' ? [] : [n, ...n.children.flatMap(joints)];
}

const rank = (l: PcieLevel): number => PCIE_LEVELS.indexOf(l);

/** Each GPU's place in a machine: socket, host bridge, PXB group, PCIe switch. */
const placeArb = fc.tuple(fc.nat(1), fc.nat(1), fc.nat(1), fc.nat(2));

/** The level two places meet at: the first part they differ in. */
function meet(a: number[], b: number[]): PcieLevel {
  if (a[0] !== b[0]) return 'SYS';
  if (a[1] !== b[1]) return 'NODE';
  if (a[2] !== b[2]) return 'PHB';
  if (a[3] !== b[3]) return 'PXB';
  return 'PIX';
}

describe('pcieTree', () => {
  it('reproduces every pair level of a hierarchical machine, each GPU a leaf once', () => {
    fc.assert(
      fc.property(fc.array(placeArb, { minLength: 1, maxLength: 16 }), (places) => {
        const gpus = places.map((_, k) => k);
        const links: Link[] = [];
        for (let a = 0; a < gpus.length; a++) for (let b = a + 1; b < gpus.length; b++) links.push({ a, b, pcie: meet(places[a], places[b]) });
        const tree = pcieTree(gpus, links);
        expect([...leaves(tree)].sort((x, y) => x - y)).toEqual(gpus);
        for (const l of links) expect(jointLevel(tree, l.a, l.b)).toBe(l.pcie);
        // Every joint joins at least two children, and a child joint is nearer than its parent.
        for (const j of joints(tree)) {
          expect(j.children.length).toBeGreaterThanOrEqual(2);
          for (const c of j.children) if (c.kind === 'joint') expect(rank(c.level)).toBeLessThan(rank(j.level));
        }
      }),
      { numRuns: 300, seed: 22 },
    );
  });

  it('never puts two GPUs under a joint farther than their own pair level, on any topology', () => {
    const levelArb = fc.constantFrom<PcieLevel>(...PCIE_LEVELS);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.array(levelArb, { minLength: (n * (n - 1)) / 2, maxLength: (n * (n - 1)) / 2 }))),
        ([n, levels]) => {
          const links: Link[] = [];
          let k = 0;
          for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) links.push({ a, b, pcie: levels[k++] });
          const tree = pcieTree(
            Array.from({ length: n }, (_, g) => g),
            links,
          );
          for (const l of links) expect(rank(jointLevel(tree, l.a, l.b) as PcieLevel)).toBeLessThanOrEqual(rank(l.pcie as PcieLevel));
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it('draws the 8-GPU PCIe preset as two NUMA nodes of two switches of two GPUs, and DGX-1 by its PCIe levels', () => {
    const l40s = getPreset('8x-l40s-pcie');
    const tree = pcieTree(
      l40s.gpus.map((g) => g.index),
      l40s.links,
    );
    expect(tree).toEqual({
      kind: 'joint',
      level: 'SYS',
      children: [
        {
          kind: 'joint',
          level: 'NODE',
          children: [
            {
              kind: 'joint',
              level: 'PIX',
              children: [
                { kind: 'gpu', gpu: 0 },
                { kind: 'gpu', gpu: 1 },
              ],
            },
            {
              kind: 'joint',
              level: 'PIX',
              children: [
                { kind: 'gpu', gpu: 2 },
                { kind: 'gpu', gpu: 3 },
              ],
            },
          ],
        },
        {
          kind: 'joint',
          level: 'NODE',
          children: [
            {
              kind: 'joint',
              level: 'PIX',
              children: [
                { kind: 'gpu', gpu: 4 },
                { kind: 'gpu', gpu: 5 },
              ],
            },
            {
              kind: 'joint',
              level: 'PIX',
              children: [
                { kind: 'gpu', gpu: 6 },
                { kind: 'gpu', gpu: 7 },
              ],
            },
          ],
        },
      ],
    });
    for (const name of ['8x-l40s-pcie', 'dgx1-volta']) {
      const inv = getPreset(name);
      const t = pcieTree(
        inv.gpus.map((g) => g.index),
        inv.links,
      );
      for (const l of inv.links) expect(jointLevel(t, l.a, l.b)).toBe(l.pcie);
    }
  });

  it('counts a pair with no link as SYS', () => {
    const tree = pcieTree([0, 1, 2], [{ a: 0, b: 1, pcie: 'PIX' }]);
    expect(jointLevel(tree, 0, 1)).toBe('PIX');
    expect(jointLevel(tree, 0, 2)).toBe('SYS');
    expect(jointLevel(tree, 1, 2)).toBe('SYS');
  });
});
