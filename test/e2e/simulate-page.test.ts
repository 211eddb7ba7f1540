// The Simulate view, built (web/dist/simulate.html) and driven in headless Chromium: the bundled
// trace run in the page's worker gives the same curves as the engine in Node, drawn one line per
// policy; a malformed upload shows the file, line and column; a seed given twice is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, parseNodeCsv, parsePodCsv, type Engine } from '../../src/index.js';
import { launchChromium } from './browser.js';
import { serveStatic, type StaticServer } from './serve.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let server: StaticServer;
let browser: Browser;
let page: Page;
let engine: Engine;
const pageErrors: string[] = [];

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm' });
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
    const shown = await page.$$eval('[data-testid="sim-cell"]', (cells) => cells.map((c) => [(c as HTMLElement).dataset.policy, Number((c as HTMLElement).dataset.x), Number((c as HTMLElement).dataset.value)] as const));
    expect(shown.length).toBe(8);
    for (const [policy, x, value] of shown) {
      const runs = [42, 43].map((seed) => engine.simulateFleet({ nodes, pods, policy: policy as string, seed }).allocation[x]);
      expect(value).toBeCloseTo((runs[0] + runs[1]) / 2, 10);
    }
    // Two uPlot charts, each with one series per policy in its legend.
    expect(await page.locator('.uplot canvas').count()).toBe(2);
    const legends = await page.$$eval('.uplot .u-legend', (ls) => ls.map((l) => l.textContent ?? ''));
    expect(legends).toHaveLength(2);
    for (const text of legends) expect(text).toMatch(/bestfit[\s\S]*fgd-close/);
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
