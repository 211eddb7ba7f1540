// The browser planning page's node view, built (web/dist) and driven in headless Chromium. Every
// number the page shows is checked against what the engine returns in Node for the same input.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AllocationError,
  type ClusterState,
  type Engine,
  estimateMemory,
  formatBytes,
  getPreset,
  type Inventory,
  nodeFromInventory,
  openEngine,
  type PlacementOption,
  type PlacementPlan,
  validateInventory,
} from '../../src/index.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';
import { launchChromium } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const resultsDir = join(root, 'test-results');

let server: StaticServer;
let browser: Browser;
let page: Page;
let engine: Engine;
const pageErrors: string[] = [];
const wasmResponses: Array<{ url: string; status: number; body: Promise<Buffer> }> = [];

/** What the page sends for a model: the same request goes to the Node engine. */
type ModelInput = { name: string; memory: string; memoryBytes: number; tp: number[] };

/** The page names the first node of preset P `P-1`. */
function nodeState(e: Engine, inventory: Inventory, id: string): ClusterState {
  return e.createClusterState({ nodes: [nodeFromInventory(inventory, { id })] });
}

/** The node view plans with planPlacement over the node as the state holds it (per-GPU rejections even when options exist). */
function nodePlan(state: ClusterState, m: ModelInput): PlacementPlan {
  const node = state.toJSON().nodes[0];
  return engine.planPlacement({
    gpus: node.gpus,
    slots: node.slots,
    ...(node.topology ? { topology: node.topology } : {}),
    memory: m.memoryBytes,
    model: m.name,
    tensorParallelSizes: m.tp,
    policy: 'spread',
    allowEviction: true,
    limit: 16,
  });
}

/** Commits an option to the Node state as the page does. */
function nodeCommit(state: ClusterState, option: PlacementOption): void {
  state.commit({ ...option, node: state.nodes()[0] });
}

/** Makes the cluster one node of a machine type and opens it in the node view. */
async function oneNode(typeKey: string, source: string): Promise<void> {
  await page.click('[data-testid="clear-cluster"]');
  await page.selectOption('[data-testid="add-type"]', typeKey);
  await page.fill('[data-testid="add-count"]', '1');
  await page.click('[data-testid="add-nodes"]');
  await page.click('[data-testid="node-tile"] [data-testid="tile-id"]');
  await expect.poll(() => page.textContent('[data-testid="node-source"]')).toBe(source);
  expect(await page.isVisible('[data-testid="node-section"]')).toBe(true);
}

async function pickPreset(name: string): Promise<void> {
  await oneNode(`preset:${name}`, `preset ${name}`);
}

async function setTp(sizes: number[]): Promise<void> {
  const boxes = page.locator('[data-testid="model-tp"] input');
  for (let k = 0; k < (await boxes.count()); k++) {
    const box = boxes.nth(k);
    const want = sizes.includes(Number(await box.getAttribute('value')));
    if ((await box.isChecked()) !== want) await page.locator('[data-testid="model-tp"] label').nth(k).click();
    expect(await box.isChecked()).toBe(want);
  }
}

async function planOnPage(m: ModelInput): Promise<void> {
  await page.click('[data-testid="tab-model"]');
  await page.fill('[data-testid="model-name"]', m.name);
  await page.fill('[data-testid="model-memory"]', m.memory);
  await setTp(m.tp);
  await page.click('[data-testid="plan-button"]');
  await page.waitForSelector('[data-testid="decision-ms"]');
}

/** The option table as the page shows it. */
async function shownOptions(): Promise<Array<{ gpus: number[]; memoryPerGpu: number; score: number; evict: string[]; text: string }>> {
  return page.$$eval('[data-testid="option-row"]', (rows) =>
    rows.map((r) => {
      const el = r as HTMLElement;
      return {
        gpus: (el.dataset.gpus ?? '')
          .split(',')
          .filter((x) => x !== '')
          .map(Number),
        memoryPerGpu: Number(el.dataset.memoryPerGpu),
        score: Number(el.dataset.score),
        evict: (el.dataset.evict ?? '').split(',').filter((x) => x !== ''),
        text: (el.textContent ?? '').replace(/\s+/g, ' ').trim(),
      };
    }),
  );
}

async function chosenGpus(): Promise<number[]> {
  return page.$$eval('[data-testid="gpu-card"][data-chosen="true"]', (cards) => cards.map((c) => Number((c as SVGElement).dataset.gpu)).sort((a, b) => a - b));
}

async function usedPerGpu(): Promise<Map<number, { used: number; text: string }>> {
  const rows = await page.$$eval('[data-testid="gpu-card"]', (cards) =>
    cards.map((c) => {
      const t = c.querySelector('[data-testid="memory-text"]') as SVGTextElement;
      return [Number((c as SVGElement).dataset.gpu), Number(t.dataset.used), t.textContent ?? ''] as const;
    }),
  );
  return new Map(rows.map(([g, used, text]) => [g, { used, text }]));
}

function expectOptionsMatch(shown: Awaited<ReturnType<typeof shownOptions>>, options: PlacementOption[]): void {
  expect(options.length).toBeGreaterThan(0);
  expect(shown.map(({ gpus, memoryPerGpu, score, evict }) => ({ gpus, memoryPerGpu, score, evict }))).toEqual(
    options.map((o) => ({ gpus: o.gpus, memoryPerGpu: o.memoryPerGpu, score: o.score, evict: o.evict })),
  );
  // The visible text carries the same numbers.
  shown.forEach((row, k) => {
    expect(row.text).toContain(options[k].gpus.join(', '));
    expect(row.text).toContain(formatBytes(options[k].memoryPerGpu));
    expect(row.text).toContain(String(options[k].score));
  });
}

beforeAll(async () => {
  mkdirSync(resultsDir, { recursive: true });
  engine = await openEngine({ backend: 'wasm' });
  server = await serveStatic(join(root, 'web', 'dist'));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('response', (r) => {
    if (new URL(r.url()).pathname.endsWith('.wasm')) wasmResponses.push({ url: r.url(), status: r.status(), body: r.body() });
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('planning page', () => {
  it('starts on the wasm backend with one dgx-a100 node in the cluster view and no error', async () => {
    expect(await page.isVisible('[data-testid="error-banner"]')).toBe(false);
    expect(await page.textContent('[data-testid="engine-status"]')).toContain('engine ready');
    expect(await page.getAttribute('[data-testid="backend-wasm"]', 'class')).toContain('active');
    expect(await page.isVisible('[data-testid="cluster-section"]')).toBe(true);
    const inventory = getPreset('dgx-a100');
    expect(await page.$$eval('[data-testid="node-tile"]', (ts) => ts.map((t) => (t as HTMLElement).dataset.node))).toEqual(['dgx-a100-1']);
    expect(await page.locator('[data-testid="node-tile"] [data-testid="tile-gpu"]').count()).toBe(inventory.gpus.length);
    await page.click('[data-testid="node-tile"] [data-testid="tile-id"]');
    expect(await page.locator('[data-testid="gpu-card"]').count()).toBe(inventory.gpus.length);
  });

  it('runs the bundled copy of build/release.wasm, served by the static server, and bundles no Node-only code', async () => {
    expect(wasmResponses.length).toBe(1);
    expect(wasmResponses[0].status).toBe(200);
    expect(new URL(wasmResponses[0].url).pathname).toMatch(/^\/assets\/release-[\w-]+\.wasm$/);
    expect(Buffer.compare(await wasmResponses[0].body, readFileSync(join(root, 'build', 'release.wasm')))).toBe(0);
    const js = readdirSync(join(root, 'web', 'dist', 'assets'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(root, 'web', 'dist', 'assets', f), 'utf8'))
      .join('\n');
    for (const nodeOnly of ['koffi', 'nvmlInit', 'node:child_process', 'process.argv']) expect(js).not.toContain(nodeOnly);
  });

  it('draws a preset as the engine describes it: every GPU, every NVLink pair with its count', async () => {
    await pickPreset('dgx1-volta');
    const inventory = getPreset('dgx1-volta');
    expect(await page.locator('[data-testid="gpu-card"]').count()).toBe(8);
    const links = await page.$$eval('[data-testid="link"]', (ls) =>
      ls.map((l) => ({ a: Number(l.getAttribute('data-a')), b: Number(l.getAttribute('data-b')), nvlink: Number(l.getAttribute('data-nvlink')), width: Number(l.getAttribute('stroke-width')) })),
    );
    const nv = inventory.links.filter((l) => (l.nvlink ?? 0) > 0).map((l) => ({ a: l.a, b: l.b, nvlink: l.nvlink }));
    expect(links.map(({ a, b, nvlink }) => ({ a, b, nvlink })).sort((x, y) => x.a - y.a || x.b - y.b)).toEqual(nv.sort((x, y) => x.a - y.a || x.b - y.b));
    // Thicker for more links.
    const w1 = links.find((l) => l.nvlink === 1)?.width ?? 0;
    const w2 = links.find((l) => l.nvlink === 2)?.width ?? 0;
    expect(w2).toBeGreaterThan(w1);
    // PCIe is never drawn as pair lines: turning it on shows the tree (test/e2e/page-pcie-tree.test.ts).
    expect(await page.isVisible('[data-testid="pcie-tree"]')).toBe(false);
    await page.check('[data-testid="show-pcie"]');
    expect(await page.isVisible('[data-testid="pcie-tree"]')).toBe(true);
    expect(await page.locator('[data-testid="link"]').count()).toBe(nv.length);
    await page.uncheck('[data-testid="show-pcie"]');
  });

  it('draws MIG slices inside their GPU', async () => {
    await pickPreset('dgx-a100-mig');
    const inventory = getPreset('dgx-a100-mig');
    for (const gpu of inventory.gpus) {
      const uuids = await page.$$eval(`[data-testid="gpu-card"][data-gpu="${gpu.index}"] [data-testid="mig-slice"]`, (s) => s.map((x) => x.getAttribute('data-uuid')));
      expect(uuids).toEqual((gpu.mig ?? []).map((m) => m.uuid));
    }
  });

  it('places two models as planPlacement and ClusterState.commit do in Node, on both backends', async () => {
    await pickPreset('dgx1-volta');
    const inventory = getPreset('dgx1-volta');
    const state = nodeState(engine, inventory, 'dgx1-volta-1');
    const first: ModelInput = { name: 'llama-70b', memory: '100GiB', memoryBytes: 100 * 2 ** 30, tp: [4] };
    const second: ModelInput = { name: 'mistral-22b', memory: '45GiB', memoryBytes: 45 * 2 ** 30, tp: [2, 4] };

    await planOnPage(first);
    const plan1 = nodePlan(state, first);
    expectOptionsMatch(await shownOptions(), plan1.options);
    expect(await chosenGpus()).toEqual([...plan1.options[0].gpus].sort((a, b) => a - b));
    expect(await page.textContent('[data-testid="decision-backend"]')).toBe('wasm');
    expect(Number(await page.getAttribute('[data-testid="decision-ms"]', 'data-ms'))).toBeGreaterThanOrEqual(0);
    // The same request is timed on the other backend for comparison.
    expect(await page.getAttribute('[data-testid="decision-other"]', 'data-backend')).toBe('ts');
    await page.click('[data-testid="commit-button"]');
    nodeCommit(state, plan1.options[0]);

    // The second model runs on the ts backend: the state moves over and the answer is the same.
    await page.click('[data-testid="backend-ts"]');
    await planOnPage(second);
    expect(await page.textContent('[data-testid="decision-backend"]')).toBe('ts');
    const plan2 = nodePlan(state, second);
    expectOptionsMatch(await shownOptions(), plan2.options);
    expect(await chosenGpus()).toEqual([...plan2.options[0].gpus].sort((a, b) => a - b));
    const rejected = await page.$$eval('[data-testid="rejection-row"]', (rows) =>
      rows.map((r) => ({ gpu: Number((r as HTMLElement).dataset.gpu), code: (r as HTMLElement).dataset.code, message: r.lastElementChild?.textContent })),
    );
    expect(rejected).toEqual(plan2.rejected.map((r) => ({ gpu: r.gpu, code: r.code, message: r.message })));
    expect(rejected.length).toBeGreaterThan(0);
    // Rejected GPUs carry their reason on the drawing too.
    for (const r of plan2.rejected) expect(await page.getAttribute(`[data-testid="gpu-card"][data-gpu="${r.gpu}"]`, 'data-rejected')).toBe(r.code);
    await page.screenshot({ path: join(resultsDir, 'planner-page.png'), fullPage: true });
    await page.click('[data-testid="commit-button"]');
    nodeCommit(state, plan2.options[0]);
    await page.click('[data-testid="backend-wasm"]');

    // Memory bars: what both commits put on each GPU.
    const expected = new Map<number, number>();
    for (const o of [plan1.options[0], plan2.options[0]]) for (const g of o.gpus) expected.set(g, (expected.get(g) ?? 0) + o.memoryPerGpu);
    const shown = await usedPerGpu();
    for (const gpu of inventory.gpus) {
      const used = expected.get(gpu.index) ?? 0;
      expect(shown.get(gpu.index)?.used).toBe(used);
      expect(shown.get(gpu.index)?.text).toBe(`${formatBytes(used)} / ${formatBytes(gpu.memoryTotal)} used`);
    }
    expect(state.usage().map((u) => u.allocated)).toEqual(inventory.gpus.map((g) => expected.get(g.index) ?? 0));
    expect(await page.locator('[data-testid="workload"][data-kind="model"]').count()).toBe(2);

    // A third model that only fits by evicting the first one once it is marked stale.
    const third: ModelInput = { name: 'big', memory: '120GiB', memoryBytes: 120 * 2 ** 30, tp: [4, 8] };
    await planOnPage(third);
    const blocked = nodePlan(state, third);
    expect(blocked.options).toEqual([]);
    expect(await page.isVisible('[data-testid="no-option"]')).toBe(true);
    const firstSlot = state.listSlots()[0].id;
    await page.click(`[data-testid="stale-${firstSlot}"]`);
    state.markStale(firstSlot);
    await planOnPage(third);
    const evicting = nodePlan(state, third);
    expect(evicting.options[0]?.evict).toEqual([firstSlot]);
    expectOptionsMatch(await shownOptions(), evicting.options);
    await page.click('[data-testid="commit-button"]');
    nodeCommit(state, evicting.options[0]);
    expect(await page.$$eval('[data-testid="workload"]', (ws) => ws.map((w) => (w as HTMLElement).dataset.slot))).toEqual(state.listSlots().map((x) => x.id));
    const after = await usedPerGpu();
    for (const u of state.usage()) expect(after.get(u.gpu)?.used).toBe(u.allocated);
    await page.screenshot({ path: join(resultsDir, 'planner-page-filled.png'), fullPage: true });
  });

  it('allocates replicas and whole GPUs as the engine does in Node', async () => {
    await pickPreset('dgx-a100');
    const inventory = getPreset('dgx-a100');
    await page.click('[data-testid="tab-replicas"]');
    await page.fill('[data-testid="replicas-per-gpu"]', '4');
    await page.fill('[data-testid="replicas-size"]', '3');
    await page.selectOption('[data-testid="replicas-policy"]', 'pack');
    await page.click('[data-testid="replicas-button"]');
    const devices = inventory.gpus.flatMap((g) => Array.from({ length: 4 }, (_, r) => `${g.uuid}::${r}`));
    const parents = Object.fromEntries(devices.map((d) => [d, d.split('::')[0]]));
    const replicas = engine.allocateReplicas({ devices, available: devices, size: 3, policy: 'pack', parents });
    expect(await page.$$eval('[data-testid="replica-row"]', (rows) => rows.map((r) => (r as HTMLElement).dataset.id))).toEqual(replicas.devices);
    await page.click('[data-testid="commit-button"]');
    const replicaGpus = new Set(replicas.devices.map((d) => inventory.gpus.findIndex((g) => d.startsWith(`${g.uuid}::`))));

    await page.click('[data-testid="tab-gpus"]');
    await page.fill('[data-testid="gpus-size"]', '4');
    await page.selectOption('[data-testid="gpus-policy"]', 'topology');
    await page.click('[data-testid="gpus-button"]');
    const available = inventory.gpus.map((g) => g.index).filter((g) => !replicaGpus.has(g));
    const aligned = engine.allocateAligned({ topology: { gpus: inventory.gpus.length, links: inventory.links }, available, size: 4, policy: 'topology' });
    expect(aligned.devices.length).toBe(4);
    expect(await page.getAttribute('[data-testid="aligned-result"]', 'data-gpus')).toBe(aligned.devices.join(','));
    expect(await page.getAttribute('[data-testid="aligned-result"]', 'data-score')).toBe(String(aligned.score));
    expect(await chosenGpus()).toEqual([...aligned.devices].sort((a, b) => a - b));
  });

  it('estimates a GGUF file read in the browser as estimateMemory does in Node, and plans with that exact size', async () => {
    await pickPreset('dgx-h100');
    const inventory = getPreset('dgx-h100');
    // llama-3-8B's shape with a tiny vocabulary: a header-only GGUF (no tensor data).
    const gguf = writeGguf(llamaSpec({ blocks: 32, embedding: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 128, contextLength: 131072 }));
    const options = { contextLength: 32768, parallel: 4, kvCacheType: 'q8_0' as const, flashAttention: true };
    const estimate = await estimateMemory(gguf, options);
    await page.click('[data-testid="tab-model"]');
    await page.click('[data-testid="gguf-box"] summary');
    await page.fill('[data-testid="gguf-context"]', String(options.contextLength));
    await page.fill('[data-testid="gguf-parallel"]', String(options.parallel));
    await page.selectOption('[data-testid="gguf-kv"]', options.kvCacheType);
    await page.check('[data-testid="gguf-flash"]');
    await page.setInputFiles('[data-testid="gguf-file"]', { name: 'llama-3-8b-q4.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(gguf) });
    await page.waitForSelector('[data-testid="gguf-total"]');
    expect(Number(await page.getAttribute('[data-testid="gguf-total"]', 'data-bytes'))).toBe(estimate.total);
    expect(await page.textContent('[data-testid="gguf-total"]')).toBe(formatBytes(estimate.total));
    expect(await page.textContent('[data-testid="gguf-table"]')).toContain(formatBytes(estimate.kvCache));
    expect(await page.inputValue('[data-testid="model-name"]')).toBe('llama-3-8b-q4');

    await setTp([1, 2]);
    await page.click('[data-testid="plan-button"]');
    await page.waitForSelector('[data-testid="option-row"]');
    const state = nodeState(engine, inventory, 'dgx-h100-1');
    const plan = nodePlan(state, { name: 'llama-3-8b-q4', memory: '', memoryBytes: estimate.total, tp: [1, 2] });
    expectOptionsMatch(await shownOptions(), plan.options);

    // A file that is not GGUF: the page shows estimateMemory's own message.
    const junk = new TextEncoder().encode('this is not a gguf file at all, just text');
    let expected = '';
    await estimateMemory(junk, options).catch((error: Error) => {
      expected = error.message;
    });
    expect(expected).not.toBe('');
    await page.setInputFiles('[data-testid="gguf-file"]', { name: 'junk.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(junk) });
    await expect.poll(() => page.textContent('[data-testid="error-message"]')).toBe(expected);
    expect(await page.textContent('[data-testid="error-title"]')).toContain('GGUF');
  });

  it('loads a valid inventory file: memory already in use shows on the GPUs and counts in planning', async () => {
    const raw = getPreset('4x-rtx8000') as unknown as Record<string, unknown> & { gpus: Array<Record<string, unknown>> };
    raw.host = 'ws-lab-07';
    raw.source = 'file';
    raw.gpus[2].memoryUsed = 20 * 2 ** 30;
    const inventory = validateInventory(structuredClone(raw), 'ws-lab-07.json');
    await page.setInputFiles('[data-testid="inventory-file"]', { name: 'ws-lab-07.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(raw)) });
    await expect.poll(() => page.inputValue('[data-testid="add-type"]')).toBe('file:ws-lab-07.json');
    await oneNode('file:ws-lab-07.json', 'file ws-lab-07.json');
    expect(await page.isVisible('[data-testid="error-banner"]')).toBe(false);
    expect(await page.locator('[data-testid="gpu-card"]').count()).toBe(inventory.gpus.length);
    const shown = await usedPerGpu();
    for (const g of inventory.gpus) expect(shown.get(g.index)?.used).toBe(g.memoryUsed ?? 0);
    // The used memory is the node's memoryUsed (nodeFromInventory), drawn hatched and labelled, not a slot.
    const state = nodeState(engine, inventory, 'ws-lab-07-1');
    expect(state.toJSON().nodes[0].gpus[2]).toEqual({ index: 2, memoryTotal: inventory.gpus[2].memoryTotal, memoryUsed: 20 * 2 ** 30 });
    expect(state.listSlots()).toEqual([]);
    expect(
      await page.$$eval('[data-testid="gpu-card"] [data-testid="memory-others"]', (es) =>
        es.map((e) => [Number(e.closest('[data-testid="gpu-card"]')?.getAttribute('data-gpu')), Number(e.getAttribute('data-bytes')), e.querySelector('title')?.textContent]),
      ),
    ).toEqual([[2, 20 * 2 ** 30, `in use by other processes: ${formatBytes(20 * 2 ** 30)} (never evicted)`]]);
    expect(await page.$$eval('[data-testid="workload-others"]', (es) => es.map((e) => e.textContent))).toEqual([`in use by other processesGPU 2 · ${formatBytes(20 * 2 ** 30)} · never evicted`]);
    expect(await page.locator('[data-testid="workload"]').count()).toBe(0);
    const m: ModelInput = { name: 'qwen-32b', memory: '70GiB', memoryBytes: 70 * 2 ** 30, tp: [2] };
    await planOnPage(m);
    const plan = nodePlan(state, m);
    expectOptionsMatch(await shownOptions(), plan.options);
    expect(plan.options.some((o) => o.gpus.includes(2))).toBe(false);
    // The rejection of GPU 2 says how much is in use by other processes, on the page as in Node.
    const gpu2 = plan.rejected.find((r) => r.gpu === 2);
    expect(gpu2?.message).toContain('in use by other processes');
    expect(await page.textContent('[data-testid="rejection-row"][data-gpu="2"]')).toContain(gpu2?.message as string);
  });

  it("shows a broken inventory file's error on the page and keeps the node", async () => {
    await pickPreset('dgx-a100');
    const broken = getPreset('dgx-a100') as unknown as { gpus: Array<Record<string, unknown>> };
    broken.gpus[3].memoryTotal = '80GB';
    let expected: AllocationError | undefined;
    try {
      validateInventory(broken, 'broken-inventory.json');
    } catch (error) {
      expected = error as AllocationError;
    }
    expect(expected).toBeInstanceOf(AllocationError);
    await page.setInputFiles('[data-testid="inventory-file"]', { name: 'broken-inventory.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(broken)) });
    await page.waitForSelector('[data-testid="error-banner"]:not([hidden])');
    expect(await page.textContent('[data-testid="error-title"]')).toContain(expected?.code as string);
    expect(await page.textContent('[data-testid="error-message"]')).toBe(expected?.message);
    expect(expected?.message).toContain('gpus[3].memoryTotal');
    // The page is not blank: the previous node is still drawn.
    expect(await page.locator('[data-testid="gpu-card"]').count()).toBe(8);
    await page.screenshot({ path: join(resultsDir, 'planner-page-error.png'), fullPage: true });

    await page.setInputFiles('[data-testid="inventory-file"]', { name: 'not-json.json', mimeType: 'application/json', buffer: Buffer.from('{"version": 1, "gpus": [') });
    await expect.poll(() => page.textContent('[data-testid="error-message"]')).toContain('not-json.json is not valid JSON');
  });

  it('shows malformed form input as a message naming the field', async () => {
    await page.click('[data-testid="tab-model"]');
    await page.fill('[data-testid="model-memory"]', 'lots');
    await page.click('[data-testid="plan-button"]');
    let expected = '';
    try {
      (await import('../../src/index.js')).parseBytes('lots', 'memory');
    } catch (error) {
      expected = (error as Error).message;
    }
    await expect.poll(() => page.textContent('[data-testid="error-message"]')).toBe(expected);
    expect(await page.isVisible('[data-testid="error-banner"]')).toBe(true);
  });

  it('raised no uncaught error in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
