// The node view draws PCIe as a tree by switch level, not a line per GPU pair: on the 8-GPU PCIe
// preset every pair's lowest joint in the drawing is the pair's level, the tree has one edge per
// non-root element, and no two edges of different joints cross.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/index.js';
import { addNodes, clearCluster, openPage, type PageSession } from './page.js';

let s: PageSession;

beforeAll(async () => {
  s = await openPage();
});

afterAll(async () => {
  await s?.close();
});

type Seg = { parent: string; x1: number; y1: number; x2: number; y2: number };

/** The axis-aligned pieces of an elbow path `M x y V y1 H x1 V y2`. */
function pieces(parent: string, d: string): Seg[] {
  const m = /^M ([\d.]+) ([\d.]+) V ([\d.]+) H ([\d.]+) V ([\d.]+)$/.exec(d);
  if (m === null) throw new Error(`unexpected edge path ${d}`);
  const [x, y, bus, kx, ky] = m.slice(1).map(Number);
  return [
    { parent, x1: x, y1: y, x2: x, y2: bus },
    { parent, x1: Math.min(x, kx), y1: bus, x2: Math.max(x, kx), y2: bus },
    { parent, x1: kx, y1: bus, x2: kx, y2: ky },
  ];
}

/** Whether two axis-aligned segments share a point. */
function meet(a: Seg, b: Seg): boolean {
  return Math.max(a.x1, b.x1) <= Math.min(a.x2, b.x2) + 0.01 && Math.max(Math.min(a.y1, a.y2), Math.min(b.y1, b.y2)) <= Math.min(Math.max(a.y1, a.y2), Math.max(b.y1, b.y2)) + 0.01;
}

async function openOne(preset: string): Promise<void> {
  const { page } = s;
  await clearCluster(page);
  await addNodes(page, `preset:${preset}`, 1);
  await page.click('[data-testid="node-tile"] [data-testid="tile-id"]');
}

describe('the PCIe tree', () => {
  it("draws the 8 × L40S PCIe server as a tree whose joints are the pairs' levels, with no pair lines and no crossings", async () => {
    const { page } = s;
    await openOne('8x-l40s-pcie');
    const inventory = getPreset('8x-l40s-pcie');
    // No NVLink: the tree shows without asking, and PCIe pairs are not drawn as lines.
    expect(await page.isVisible('[data-testid="pcie-tree"]')).toBe(true);
    expect(await page.locator('[data-testid="node-drawing"] [data-testid="link"]').count()).toBe(0);
    const joints = await page.$$eval('[data-testid="pcie-joint"]', (js) =>
      js.map((j) => ({ level: j.getAttribute('data-level') as string, gpus: (/joining GPUs ([\d, ]+)$/.exec(j.querySelector('title')?.textContent ?? '')?.[1] ?? '').split(', ').map(Number) })),
    );
    expect(joints.map((j) => j.level).sort()).toEqual(['NODE', 'NODE', 'PIX', 'PIX', 'PIX', 'PIX', 'SYS']);
    for (const l of inventory.links) {
      const lowest = joints.filter((j) => j.gpus.includes(l.a) && j.gpus.includes(l.b)).sort((x, y) => x.gpus.length - y.gpus.length)[0];
      expect([l.a, l.b, lowest?.level]).toEqual([l.a, l.b, l.pcie]);
    }
    // Leaves left to right in tree order; one edge per element but the root.
    const leaves = await page.$$eval('[data-testid="pcie-gpu"]', (gs) => gs.map((g) => [Number(g.getAttribute('data-gpu')), g.getBoundingClientRect().left] as const));
    expect([...leaves].sort((a, b) => a[1] - b[1]).map(([g]) => g)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const edges = await page.$$eval('[data-testid="pcie-edge"]', (es) => es.map((e) => [e.getAttribute('data-parent') as string, e.getAttribute('d') as string] as const));
    expect(edges.length).toBe(joints.length + leaves.length - 1);
    const segs = edges.flatMap(([parent, d]) => pieces(parent, d));
    const crossings: string[] = [];
    for (let i = 0; i < segs.length; i++)
      for (let j = i + 1; j < segs.length; j++) if (segs[i].parent !== segs[j].parent && meet(segs[i], segs[j])) crossings.push(`${JSON.stringify(segs[i])} × ${JSON.stringify(segs[j])}`);
    expect(crossings).toEqual([]);
  });

  it('shows the tree of an NVLink machine when asked, by its PCIe levels', async () => {
    const { page } = s;
    await openOne('dgx1-volta');
    expect(await page.isVisible('[data-testid="pcie-tree"]')).toBe(false);
    await page.check('[data-testid="show-pcie"]');
    expect(await page.isVisible('[data-testid="pcie-tree"]')).toBe(true);
    const levels = await page.$$eval('[data-testid="pcie-joint"]', (js) => js.map((j) => j.getAttribute('data-level')).sort());
    // DGX-1: GPU pairs on a PCIe switch (PIX), pairs of pairs under a host bridge (PHB), the two halves across sockets (SYS).
    expect(levels).toEqual(['PHB', 'PHB', 'PIX', 'PIX', 'PIX', 'PIX', 'SYS']);
    await page.uncheck('[data-testid="show-pcie"]');
  });

  it('raised no uncaught error in the page', () => {
    expect(s.errors).toEqual([]);
  });
});
