// Editing the cluster on the page (add with a count, duplicate, remove, release), the slots an option
// evicts marked on the option, on the tile and on the node drawing, stale slots marked, and the
// header's backend label following the backend. The page's state is checked against a ClusterState
// changed the same way in Node, through the exported state file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterState, type Engine, getPreset, nodeFromInventory, openEngine } from '../../src/index.js';
import { addNodes, clearCluster, exportState, openPage, type PageSession, plan, reload, shownOptions, showView } from './page.js';

let s: PageSession;
let engine: Engine;

function fileText(state: ClusterState): string {
  return JSON.stringify(state.toJSON(), null, 2) + '\n';
}

beforeAll(async () => {
  engine = await openEngine({ backend: 'ts' });
  s = await openPage();
});

afterAll(async () => {
  await s?.close();
});

describe('editing the cluster', () => {
  it('adds with a count, duplicates after the node and removes with its slots, as the state file shows', async () => {
    const { page } = s;
    await clearCluster(page);
    await addNodes(page, 'preset:dgx-h100', 3);
    await addNodes(page, 'preset:4x-rtx8000', 1);
    await plan(page, { name: 'llama-3-8b', memory: '18GiB' });
    await page.click('[data-testid="commit-button"]');
    // Duplicate dgx-h100-2: an empty copy right after it, named with the next free number.
    await page.click('[data-testid="node-tile"][data-node="dgx-h100-2"] [data-testid="duplicate-node"]');
    expect(await page.$$eval('[data-testid="node-tile"]', (ts) => ts.map((t) => (t as HTMLElement).dataset.node))).toEqual(['dgx-h100-1', 'dgx-h100-2', 'dgx-h100-4', 'dgx-h100-3', '4x-rtx8000-1']);
    expect(await page.textContent('[data-testid="cluster-types"]')).toBe('4 × dgx-h100, 1 × 4x-rtx8000');
    const mirror = engine.createClusterState({
      nodes: ['dgx-h100-1', 'dgx-h100-2', 'dgx-h100-4', 'dgx-h100-3']
        .map((id) => nodeFromInventory(getPreset('dgx-h100'), { id }))
        .concat([nodeFromInventory(getPreset('4x-rtx8000'), { id: '4x-rtx8000-1' })]),
    });
    const first = mirror.plan({ memory: 18 * 2 ** 30, model: 'llama-3-8b', tensorParallelSizes: [1, 2, 4, 8], policy: 'spread', allowEviction: true, limit: 16 }).options[0];
    mirror.commit(first);
    expect((await exportState(page)).text).toBe(fileText(mirror));
    // Remove the node that holds the slot: the slot goes with it.
    await page.click(`[data-testid="node-tile"][data-node="${first.node}"] [data-testid="remove-node"]`);
    expect(await page.locator(`[data-testid="node-tile"][data-node="${first.node}"]`).count()).toBe(0);
    expect(await page.getAttribute('[data-testid="cluster-slots"]', 'data-count')).toBe('0');
    const json = mirror.toJSON();
    const rest = engine.restoreClusterState({ ...json, nodes: json.nodes.filter((n) => n.id !== first.node) });
    expect((await exportState(page)).text).toBe(fileText(rest));
  });

  it('marks the slots an option evicts on the option, the tile and the node drawing, and evicts exactly those on commit', async () => {
    const { page } = s;
    await clearCluster(page);
    await addNodes(page, 'preset:4x-rtx8000', 1);
    // The page's node is the one nodeFromInventory makes; slot numbers go on from the earlier test's (nextSlot is kept).
    const mirror = engine.restoreClusterState((await exportState(page)).text);
    expect(mirror.toJSON().nodes).toEqual([{ ...nodeFromInventory(getPreset('4x-rtx8000'), { id: '4x-rtx8000-1' }), slots: [] }]);
    const request = (model: string) => ({ memory: 90 * 2 ** 30, model, tensorParallelSizes: [2], policy: 'spread' as const, allowEviction: true, limit: 16 });
    const ids: string[] = [];
    for (const model of ['model-a', 'model-b']) {
      await plan(page, { name: model, memory: '90GiB', tp: [2] });
      await page.click('[data-testid="commit-button"]');
      ids.push(mirror.commit(mirror.plan(request(model)).options[0]));
    }
    // Full: a third model has no option until model-a is marked stale.
    await plan(page, { name: 'model-c', memory: '90GiB', tp: [2] });
    expect(await page.isVisible('[data-testid="no-option"]')).toBe(true);
    await page.click(`[data-testid="stale-${ids[0]}"]`);
    mirror.markStale(ids[0]);
    expect(await page.$$eval(`[data-testid="tile-slot"][data-slot="${ids[0]}"]`, (es) => es.map((e) => [(e as HTMLElement).dataset.stale, e.classList.contains('stale')]))).toEqual([
      ['true', true],
      ['true', true],
    ]);
    await plan(page, { name: 'model-c', memory: '90GiB', tp: [2] });
    const expected = mirror.plan(request('model-c'));
    expect(expected.options[0].evict).toEqual([ids[0]]);
    expect(await shownOptions(page)).toEqual(expected.options.map((o) => ({ node: o.node, gpus: o.gpus, memoryPerGpu: o.memoryPerGpu, score: o.score, evict: o.evict })));
    // On the option: the evicted slot by ID and model.
    expect(await page.$$eval('[data-testid="option-row"][data-rank="1"] [data-testid="evict-tag"]', (es) => es.map((e) => [(e as HTMLElement).dataset.slot, e.textContent]))).toEqual([
      [ids[0], `${ids[0]} · model-a`],
    ]);
    // On the tile: model-a's segments crossed out, model-b's not.
    expect(await page.$$eval('[data-testid="tile-slot"]', (es) => es.map((e) => [(e as HTMLElement).dataset.slot, (e as HTMLElement).dataset.evicted]))).toEqual([
      [ids[0], 'true'],
      [ids[0], 'true'],
      [ids[1], 'false'],
      [ids[1], 'false'],
    ]);
    // The planned share sits where model-a was (nothing else stays on those GPUs), over its crossed-out segments.
    expect(
      await page.$$eval('[data-testid="tile-planned"]', (es) => es.map((e) => [Number(e.closest('[data-testid="tile-gpu"]')?.getAttribute('data-gpu')), (e as HTMLElement).style.bottom])),
    ).toEqual(expected.options[0].gpus.map((g) => [g, '0%']));
    // On the node drawing too.
    await page.click('[data-testid="node-tile"] [data-testid="tile-id"]');
    expect(await page.$$eval('[data-testid="memory-segment"][data-evicted="true"]', (es) => es.map((e) => (e as SVGElement).dataset.slot))).toEqual([ids[0], ids[0]]);
    expect(await page.$$eval('[data-testid="gpu-card"][data-chosen="true"]', (cs) => cs.map((c) => Number((c as SVGElement).dataset.gpu)))).toEqual(expected.options[0].gpus);
    // There too the planned share starts where the evicted segment does (over it, not after it).
    const starts = await page.$$eval('[data-testid="gpu-card"][data-chosen="true"]', (cs) =>
      cs.map((c) => [c.querySelector('[data-testid="memory-planned"]')?.getAttribute('x'), c.querySelector('[data-testid="memory-segment"][data-evicted="true"]')?.getAttribute('x')]),
    );
    expect(starts).toHaveLength(expected.options[0].gpus.length);
    for (const [planned, evicted] of starts) {
      expect(planned).toBeDefined();
      expect(Number(planned)).toBe(Number(evicted));
    }
    await page.click('[data-testid="commit-button"]');
    mirror.commit(expected.options[0]);
    expect(await page.$$eval('[data-testid="workload"]', (ws) => ws.map((w) => (w as HTMLElement).dataset.slot))).toEqual(mirror.listSlots().map((x) => x.id));
    expect(mirror.listSlots().map((x) => x.id)).not.toContain(ids[0]);
    expect((await exportState(page)).text).toBe(fileText(mirror));
    await showView(page, 'cluster');
  });

  it('releases a slot from the page', async () => {
    const { page } = s;
    const before = JSON.parse((await exportState(page)).text) as { nodes: Array<{ slots: Array<{ id: string }> }> };
    const id = before.nodes[0].slots[0].id;
    await page.click(`[data-testid="release-${id}"]`);
    const after = JSON.parse((await exportState(page)).text) as { nodes: Array<{ slots: Array<{ id: string }> }> };
    expect(after.nodes[0].slots.map((x) => x.id)).toEqual(before.nodes[0].slots.slice(1).map((x) => x.id));
    expect(await page.locator(`[data-testid="tile-slot"][data-slot="${id}"]`).count()).toBe(0);
  });

  it('labels the header with the backend in use, after a switch and after a reload', async () => {
    const { page } = s;
    expect(await page.getAttribute('[data-testid="engine-status"]', 'data-backend')).toBe('wasm');
    expect(await page.textContent('[data-testid="engine-status"]')).toContain('wasm backend');
    await page.click('[data-testid="backend-ts"]');
    expect(await page.getAttribute('[data-testid="engine-status"]', 'data-backend')).toBe('ts');
    const label = await page.textContent('[data-testid="engine-status"]');
    expect(label).toContain('ts backend');
    expect(label).not.toContain('wasm');
    await plan(page, { name: 'small', memory: '8GiB' });
    expect(await page.textContent('[data-testid="decision-backend"]')).toBe('ts');
    await reload(page);
    expect(await page.getAttribute('[data-testid="engine-status"]', 'data-backend')).toBe('ts');
    expect(await page.textContent('[data-testid="engine-status"]')).not.toContain('wasm');
    await page.click('[data-testid="backend-wasm"]');
    expect(await page.textContent('[data-testid="engine-status"]')).toContain('wasm backend');
  });

  it('says so when localStorage is full, and keeps working (the export still has everything)', async () => {
    const { page } = s;
    await page.evaluate(() => {
      // Fill what is left, in smaller and smaller pieces.
      let k = 0;
      for (const size of [512 * 1024, 16 * 1024, 512, 16]) {
        try {
          for (;;) localStorage.setItem(`filler-${k++}`, 'x'.repeat(size));
        } catch {
          // full at this size
        }
      }
    });
    await addNodes(page, 'preset:dgx2', 3);
    await page.waitForSelector('[data-testid="error-banner"]:not([hidden])');
    expect(await page.textContent('[data-testid="error-title"]')).toBe('saving to localStorage: the cluster is larger than this browser keeps; use Export state to keep it · QuotaExceededError');
    const exported = JSON.parse((await exportState(page)).text) as { nodes: Array<{ id: string }> };
    expect(exported.nodes.map((n) => n.id).slice(-3)).toEqual(['dgx2-1', 'dgx2-2', 'dgx2-3']);
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) if (key.startsWith('filler-')) localStorage.removeItem(key);
    });
  });

  it('raised no uncaught error in the page', () => {
    expect(s.errors).toEqual([]);
  });
});
