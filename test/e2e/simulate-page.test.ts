// The Simulate view, built (web/dist/simulate.html) and driven in headless Chromium: the bundled
// trace run in the page's worker gives the same curves as the engine in Node, drawn one line per
// policy; a scaled run reports its progress while the page keeps answering, and gives the engine's
// curves for the scaled trace; Stop ends a run; a malformed upload shows the file, line and column; a
// seed given twice is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, type FleetPolicyName, openEngine, parseNodeCsv, parsePodCsv, scaleTrace } from '../../src/index.js';
import { launchChromium } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let server: StaticServer;
let browser: Browser;
let page: Page;
let engine: Engine;
const pageErrors: string[] = [];

beforeAll(async () => {
  engine = await openEngine({ backend: 'wasm' });
  server = await serveStatic(join(root, 'web', 'dist'));
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(new URL('simulate.html', server.url).href);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function tick(policies: string[]): Promise<void> {
  for (const box of await page.$$('[data-testid^="sim-policy-"]')) {
    const name = ((await box.getAttribute('data-testid')) ?? '').slice('sim-policy-'.length);
    if ((await box.isChecked()) !== policies.includes(name)) await box.click();
  }
}

describe('Simulate view', () => {
  it('runs the bundled multigpu20 trace in a worker and shows what the engine gives in Node', async () => {
    await page.selectOption('[data-testid="sim-trace"]', 'multigpu20');
    await tick(['bestfit', 'fgd-close']);
    await page.fill('[data-testid="sim-seeds"]', '42,43');
    await page.click('[data-testid="sim-run"]');
    await page.waitForSelector('[data-testid="sim-status"][data-done="true"]', { timeout: 90_000 });
    expect(await page.textContent('[data-testid="sim-status"]')).toMatch(/^4 runs in .* \(wasm, in a worker\)$/);

    const nodes = parseNodeCsv('n', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8'));
    const pods = parsePodCsv('p', readFileSync(join(root, 'data/openb/openb_pod_list_multigpu20.csv'), 'utf8'));
    const shown = await page.$$eval('[data-testid="sim-cell"]', (cells) =>
      cells.map((c) => [(c as HTMLElement).dataset.policy, Number((c as HTMLElement).dataset.x), Number((c as HTMLElement).dataset.value)] as const),
    );
    expect(shown.length).toBe(8);
    for (const [policy, x, value] of shown) {
      const runs = [42, 43].map((seed) => engine.simulateFleet({ nodes, pods, policy: policy as FleetPolicyName, seed }).allocation[x]);
      expect(value).toBeCloseTo((runs[0] + runs[1]) / 2, 10);
    }
    // Two uPlot charts, each with one series per policy in its legend.
    expect(await page.locator('.uplot canvas').count()).toBe(2);
    const legends = await page.$$eval('.uplot .u-legend', (ls) => ls.map((l) => l.textContent ?? ''));
    expect(legends).toHaveLength(2);
    for (const text of legends) expect(text).toMatch(/bestfit[\s\S]*fgd-close/);
    expect(pageErrors).toEqual([]);
  });

  it("a run of the default trace ×4 reports its progress while the page keeps answering, then shows the engine's curves for ×4", async () => {
    await page.selectOption('[data-testid="sim-trace"]', 'default');
    await page.selectOption('[data-testid="sim-scale"]', '4');
    await tick(['bestfit']);
    await page.fill('[data-testid="sim-seeds"]', '42');
    // Every progress line the page shows, as it shows it.
    await page.evaluate(() => {
      const w = window as unknown as { seen: number[] };
      w.seen = [];
      const line = document.querySelector('[data-testid="sim-progress"]') as HTMLElement;
      new MutationObserver(() => {
        if (line.dataset.fraction !== undefined) w.seen.push(Number(line.dataset.fraction));
      }).observe(line, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.click('[data-testid="sim-run"]');
    await page.waitForSelector('[data-testid="sim-progress"][data-fraction]', { timeout: 60_000 });
    // The page's own thread answers while the worker runs: the run is not done, Stop is live.
    const during = await page.evaluate(() => ({
      done: (document.querySelector('[data-testid="sim-status"]') as HTMLElement).dataset.done ?? null,
      stop: (document.querySelector('[data-testid="sim-stop"]') as HTMLButtonElement).disabled,
      text: document.querySelector('[data-testid="sim-progress"]')!.textContent,
    }));
    expect(during).toMatchObject({ done: null, stop: false });
    expect(during.text).toMatch(/^\d+ % · bestfit seed 42 · [\d,]+ pods\/s · .+ left$/);
    await page.waitForSelector('[data-testid="sim-status"][data-done="true"]', { timeout: 120_000 });
    expect(await page.textContent('[data-testid="sim-status"]')).toMatch(/^1 runs in .* \(wasm, in a worker, 4,852 nodes: the trace ×4\)$/);
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);

    const base = parseNodeCsv('n', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8'));
    const { nodes, pods } = scaleTrace(base, parsePodCsv('p', readFileSync(join(root, 'data/openb/openb_pod_list_default.csv'), 'utf8')), 4);
    const want = engine.simulateFleet({ nodes, pods, policy: 'bestfit', seed: 42 }).allocation;
    const shown = await page.$$eval('[data-testid="sim-cell"]', (cells) => cells.map((c) => [Number((c as HTMLElement).dataset.x), Number((c as HTMLElement).dataset.value)] as const));
    expect(shown).toEqual([90, 100, 110, 130].map((x) => [x, want[x]]));
    expect(Number(await page.textContent('[data-testid="sim-time"][data-policy="bestfit"]'))).toBeGreaterThan(0);
    await page.selectOption('[data-testid="sim-scale"]', '1');
    expect(pageErrors).toEqual([]);
  });

  it('Stop ends a long run at once: Run is live again and the status says so', async () => {
    await page.selectOption('[data-testid="sim-trace"]', 'default');
    await page.selectOption('[data-testid="sim-scale"]', '40');
    await tick(['fgd-close']);
    await page.fill('[data-testid="sim-seeds"]', '42..44');
    await page.click('[data-testid="sim-run"]');
    await page.waitForSelector('[data-testid="sim-progress"][data-fraction]', { timeout: 60_000 });
    await page.click('[data-testid="sim-stop"]');
    expect(await page.getAttribute('[data-testid="sim-status"]', 'data-done')).toBe('stopped');
    expect(await page.isDisabled('[data-testid="sim-run"]')).toBe(false);
    expect(await page.isDisabled('[data-testid="sim-stop"]')).toBe(true);
    await page.selectOption('[data-testid="sim-scale"]', '1');
    expect(pageErrors).toEqual([]);
  });

  it('reports a malformed uploaded CSV with its file, line and column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpualloc-sim-'));
    try {
      const nodes = join(dir, 'nodes.csv');
      const pods = join(dir, 'pods.csv');
      writeFileSync(nodes, 'sn,cpu_milli,memory_mib,gpu,model\nn0,1000,100,1,T4\n');
      writeFileSync(pods, 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,10,10,1,x\n');
      await page.selectOption('[data-testid="sim-trace"]', 'upload');
      await page.setInputFiles('[data-testid="sim-nodes-file"]', nodes);
      await page.setInputFiles('[data-testid="sim-pods-file"]', pods);
      await page.click('[data-testid="sim-run"]');
      await page.waitForSelector('[data-testid="sim-error"]:not([hidden])');
      expect(await page.textContent('[data-testid="sim-error-message"]')).toBe('INVALID_TRACE: pods.csv:2: column gpu_milli: expected an integer, got "x"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a seed given twice, naming it, before any run', async () => {
    await page.selectOption('[data-testid="sim-trace"]', 'multigpu20');
    await page.fill('[data-testid="sim-seeds"]', '42, 43, 42');
    await page.click('[data-testid="sim-run"]');
    await page.waitForSelector('[data-testid="sim-error"]:not([hidden])');
    expect(await page.textContent('[data-testid="sim-error-message"]')).toBe('seeds: 42 is given twice in "42, 43, 42"');
    expect(pageErrors).toEqual([]);
  });
});
