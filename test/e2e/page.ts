// Shared steps of the browser suites: open the built page in headless Chromium, build a cluster,
// plan, export and import the state file, the way a user does it (clicks, form fields, files).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from './browser.js';
import { type StaticServer, serveStatic } from './serve.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RESULTS = join(ROOT, 'test-results');

/** A page on the built planner, with what it threw collected. */
export type PageSession = { server: StaticServer; browser: Browser; page: Page; errors: string[]; close(): Promise<void> };

/** Serves web/dist, launches Chromium and opens the page (fresh profile: empty localStorage). */
export async function openPage(viewport = { width: 1440, height: 1000 }): Promise<PageSession> {
  const server = await serveStatic(join(ROOT, 'web', 'dist'));
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  return {
    server,
    browser,
    page,
    errors,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** Reloads the page and waits until it has restored its state. */
export async function reload(page: Page): Promise<void> {
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
}

/** Adds `count` nodes of a machine type (`preset:<name>` or `file:<name>`) with the add form. */
export async function addNodes(page: Page, typeKey: string, count: number): Promise<void> {
  const before = await page.locator('[data-testid="node-tile"]').count();
  await page.selectOption('[data-testid="add-type"]', typeKey);
  await page.fill('[data-testid="add-count"]', String(count));
  await page.click('[data-testid="add-nodes"]');
  await expect.poll(() => page.locator('[data-testid="node-tile"]').count()).toBe(before + count);
}

/** Removes every node. */
export async function clearCluster(page: Page): Promise<void> {
  await page.click('[data-testid="clear-cluster"]');
  await expect.poll(() => page.locator('[data-testid="node-tile"]').count()).toBe(0);
}

/** Shows a view ('cluster' or 'node'). */
export async function showView(page: Page, view: string): Promise<void> {
  await page.click(`[data-testid="view-${view}"]`);
  await expect.poll(() => page.isVisible(`[data-testid="${view}-section"]`)).toBe(true);
}

/** A model as the form takes it. */
export type ModelInput = { name: string; memory: string; tp?: number[]; evict?: boolean };

/** Fills the model form and plans (across the cluster in the cluster view, on the node in the node view). */
export async function plan(page: Page, m: ModelInput): Promise<void> {
  await page.click('[data-testid="tab-model"]');
  await page.fill('[data-testid="model-name"]', m.name);
  await page.fill('[data-testid="model-memory"]', m.memory);
  const boxes = page.locator('[data-testid="model-tp"] input');
  for (let k = 0; k < (await boxes.count()); k++) {
    const box = boxes.nth(k);
    const want = m.tp === undefined || m.tp.includes(Number(await box.getAttribute('value')));
    if ((await box.isChecked()) !== want) await page.locator('[data-testid="model-tp"] label').nth(k).click();
  }
  if ((await page.isChecked('[data-testid="model-evict"]')) !== (m.evict ?? true)) await page.click('[data-testid="model-evict"]');
  const before = await page.getAttribute('[data-testid="decision-log"] tr:first-child', 'data-n').catch(() => null);
  await page.click('[data-testid="plan-button"]');
  await expect.poll(() => page.getAttribute('[data-testid="decision-log"] tr:first-child', 'data-n')).not.toBe(before);
  expect(await page.isVisible('[data-testid="error-banner"]')).toBe(false);
}

/** The option rows as the page shows them. */
export async function shownOptions(page: Page): Promise<Array<{ node?: string; gpus: number[]; memoryPerGpu: number; score: number; evict: string[] }>> {
  return page.$$eval('[data-testid="option-row"]', (rows) =>
    rows.map((r) => {
      const el = r as HTMLElement;
      const out: { node?: string; gpus: number[]; memoryPerGpu: number; score: number; evict: string[] } = {
        gpus: (el.dataset.gpus ?? '')
          .split(',')
          .filter((x) => x !== '')
          .map(Number),
        memoryPerGpu: Number(el.dataset.memoryPerGpu),
        score: Number(el.dataset.score),
        evict: (el.dataset.evict ?? '').split(',').filter((x) => x !== ''),
      };
      if (el.dataset.node) out.node = el.dataset.node;
      return out;
    }),
  );
}

/** Clicks Export state and returns the downloaded file's text. */
export async function exportState(page: Page): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-state"]')]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

/** Imports a state file's text with Import state. */
export async function importState(page: Page, name: string, text: string): Promise<void> {
  await page.setInputFiles('[data-testid="import-state"]', { name, mimeType: 'application/json', buffer: Buffer.from(text) });
}
