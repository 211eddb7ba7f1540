// The cluster view at 200 nodes of four machine types, filled with a few hundred slots (some stale,
// some nodes with memory in use by other processes): every tile drawn, no two pieces of text
// overlapping (checked on the element boxes of every element that holds text), no node name cut,
// the chosen option outlined on its node, and a screenshot (test-results/cluster-200.png; the
// README's docs/cluster-view.png is a copy of it).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterState, type Engine, getPreset, type Inventory, nodeFromInventory, openEngine } from '../../src/index.js';
import { addNodes, clearCluster, importState, openPage, type PageSession, plan, RESULTS, shownOptions } from './page.js';

const TYPES = [
  { preset: 'dgx-a100', count: 120 },
  { preset: '8x-l40s-pcie', count: 50 },
  { preset: 'dgx-h100', count: 20 },
  { preset: 'dgx2', count: 10 },
];

let s: PageSession;
let engine: Engine;
let mirror: ClusterState;

/** A preset with memory used by other processes on some GPUs (as `gpualloc discover` reports it). */
function busy(name: string, k: number): Inventory {
  const inv = structuredClone(getPreset(name)) as Inventory & { gpus: Array<{ memoryUsed?: number }> };
  inv.gpus[k % inv.gpus.length].memoryUsed = (4 + (k % 5) * 3) * 2 ** 30;
  return inv;
}

/** 200 nodes as the page names them, about 300 slots of 10 models, every 9th slot stale, every 7th node with used memory. */
function filledState(): ClusterState {
  const nodes = TYPES.flatMap((t) => Array.from({ length: t.count }, (_, k) => nodeFromInventory(k % 7 === 3 ? busy(t.preset, k) : getPreset(t.preset), { id: `${t.preset}-${k + 1}` })));
  const state = engine.createClusterState({ nodes });
  const models = [
    ['llama-3-70b', 140],
    ['qwen-2.5-32b', 70],
    ['mistral-7b', 16],
    ['mixtral-8x22b', 280],
    ['llama-3-8b', 18],
    ['deepseek-v2-lite', 36],
    ['gemma-2-27b', 60],
    ['phi-3-medium', 30],
    ['command-r', 80],
    ['llama-3-405b', 820],
  ] as const;
  for (let k = 0; k < 300; k++) {
    const [model, gib] = models[(k * 7) % models.length];
    const p = state.plan({ memory: gib * 2 ** 30, model, policy: k % 2 === 0 ? 'pack' : 'spread', allowEviction: false, limit: 1 });
    if (p.options.length === 0) continue;
    const id = state.commit(p.options[0]);
    if (k % 9 === 4) state.markStale(id);
  }
  return state;
}

beforeAll(async () => {
  engine = await openEngine({ backend: 'wasm' });
  s = await openPage({ width: 1440, height: 1000 });
});

afterAll(async () => {
  await s?.close();
});

describe('the cluster view at 200 nodes', () => {
  it('adds 200 nodes of four types from the form and imports a filled state of the same nodes', async () => {
    const { page } = s;
    await clearCluster(page);
    for (const t of TYPES) await addNodes(page, `preset:${t.preset}`, t.count);
    expect(await page.textContent('[data-testid="cluster-types"]')).toBe('120 × dgx-a100, 50 × 8x-l40s-pcie, 20 × dgx-h100, 10 × dgx2');
    mirror = filledState();
    const slots = mirror.listSlots().length;
    expect(slots).toBeGreaterThan(250);
    await importState(page, 'fleet.json', JSON.stringify(mirror.toJSON(), null, 2) + '\n');
    await expect.poll(() => page.getAttribute('[data-testid="cluster-slots"]', 'data-count')).toBe(String(slots));
    expect(await page.locator('[data-testid="node-tile"]').count()).toBe(200);
    // The nodes keep their machine types: the state file has none, the page recognises the machines.
    expect(await page.textContent('[data-testid="cluster-types"]')).toBe('120 × dgx-a100, 50 × 8x-l40s-pcie, 20 × dgx-h100, 10 × dgx2');
    expect(await page.locator('[data-testid="tile-gpu"]').count()).toBe(TYPES.reduce((t, x) => t + x.count * getPreset(x.preset).gpus.length, 0));
    expect(await page.locator('[data-testid="tile-slot"][data-stale="true"]').count()).toBe(
      mirror
        .listSlots()
        .filter((x) => x.stale === true)
        .reduce((t, x) => t + (x.parts === undefined ? x.gpus.length : x.parts.reduce((u, part) => u + part.gpus.length, 0)), 0),
    );
    expect(await page.locator('[data-testid="tile-others"]').count()).toBe(mirror.toJSON().nodes.reduce((t, n) => t + n.gpus.filter((g) => (g.memoryUsed ?? 0) > 0).length, 0));
  });

  it('outlines the chosen option on its node, among 200', async () => {
    const { page } = s;
    await plan(page, { name: 'llama-3-70b', memory: '140GiB', tp: [2, 4] });
    const expected = mirror.plan({ memory: 140 * 2 ** 30, model: 'llama-3-70b', tensorParallelSizes: [2, 4], policy: 'spread', allowEviction: true, limit: 16 });
    expect((await shownOptions(page)).map((o) => [o.node, o.gpus])).toEqual(expected.options.map((o) => [o.node, o.gpus]));
    expect(await page.$$eval('[data-testid="node-tile"][data-chosen="true"]', (ts) => ts.map((t) => (t as HTMLElement).dataset.node))).toEqual([expected.options[0].node]);
  });

  it('draws no two pieces of text on the page over each other and cuts no node name', async () => {
    const { page } = s;
    const report = await page.evaluate(() => {
      const root = document.querySelector('[data-testid="cluster-section"]') as HTMLElement;
      // Every text on the page (header, forms, the 200 tiles, the plan), not only the tiles.
      const boxes: Array<{ el: HTMLElement; text: string; x: number; y: number; w: number; h: number }> = [];
      for (const el of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
        const own = Array.from(el.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
        if (own.length === 0) continue;
        if (!el.checkVisibility({ checkVisibilityCSS: true })) continue; // closed <details>, hidden views
        // The part of the box a user can see: clipped by every scrolling or clipping ancestor.
        const r = el.getBoundingClientRect();
        let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
        for (let a = el.parentElement; a !== null; a = a.parentElement) {
          if (getComputedStyle(a).overflow === 'visible') continue;
          const c = a.getBoundingClientRect();
          [left, top, right, bottom] = [Math.max(left, c.left), Math.max(top, c.top), Math.min(right, c.right), Math.min(bottom, c.bottom)];
        }
        if (right - left <= 0 || bottom - top <= 0) continue;
        boxes.push({ el, text: (el.textContent ?? '').trim().slice(0, 40), x: left, y: top, w: right - left, h: bottom - top });
      }
      const overlaps: string[] = [];
      // Sweep by top edge: only boxes whose vertical ranges meet can overlap.
      boxes.sort((a, b) => a.y - b.y);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length && boxes[j].y < boxes[i].y + boxes[i].h; j++) {
          const a = boxes[i];
          const b = boxes[j];
          // Text nested in text (a count inside the summary line) flows inline with it: not an overlap.
          if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
          const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
          const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
          if (w > 0.5 && h > 0.5) overlaps.push(`${JSON.stringify(a.text)} × ${JSON.stringify(b.text)}`);
        }
      }
      const cut = Array.from(root.querySelectorAll<HTMLElement>('[data-testid="tile-id"]'))
        .filter((e) => e.scrollWidth > e.clientWidth + 0.5)
        .map((e) => e.textContent);
      const section = root.getBoundingClientRect();
      const outside = Array.from(root.querySelectorAll<HTMLElement>('[data-testid="node-tile"]'))
        .filter((t) => t.getBoundingClientRect().right > section.right + 0.5)
        .map((t) => t.dataset.node);
      return { count: boxes.length, overlaps, cut, outside };
    });
    // 200 names, 200 percentages, 400 buttons, the summary, the legend, the forms, the plan.
    expect(report.count).toBeGreaterThan(900);
    expect(report.overlaps).toEqual([]);
    expect(report.cut).toEqual([]);
    expect(report.outside).toEqual([]);
    await page.locator('[data-testid="cluster-section"]').screenshot({ path: join(RESULTS, 'cluster-200.png') });
    await page.screenshot({ path: join(RESULTS, 'cluster-200-page.png'), fullPage: true });
  });

  it('raised no uncaught error in the page', () => {
    expect(s.errors).toEqual([]);
  });
});
