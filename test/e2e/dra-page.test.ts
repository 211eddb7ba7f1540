// The DRA view, built (web/dist/dra.html) and driven in headless Chromium: the sample dump uploaded
// as a file, its pending claims scheduled in the page, and the claims shown on the devices the
// engine gives in Node for the same dump; a claim already allocated in the dump shows as held.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOfDump, DEFAULT_NODE_SCORES, openEngine, splitDraDump } from '../../src/index.js';
import { launchChromium } from './browser.js';
import { ROOT } from './page.js';
import { type StaticServer, serveStatic } from './serve.js';

const SAMPLE = join(ROOT, 'data', 'samples', 'dra', 'cluster.json');
const dump = splitDraDump(JSON.parse(readFileSync(SAMPLE, 'utf8')), 'cluster.json');
const sampleClaims = claimsOfDump(dump.claims);
// The claim the sample already allocates, its device and that device's node, read from the dump.
const heldClaim = sampleClaims.claims.find((c) => c.allocation !== undefined)!;
const heldDevice = sampleClaims.held.allocatedDevices[0];
type RawSlice = { spec: { driver: string; pool: { name: string }; nodeName?: string; devices?: Array<{ name: string }> } };
const heldNode = (dump.slices as RawSlice[]).find((s) => (s.spec.devices ?? []).some((d) => `${s.spec.driver}/${s.spec.pool.name}/${d.name}` === heldDevice))!.spec.nodeName!;
const pending = sampleClaims.claims.filter((c) => c.allocation === undefined).length;
let server: StaticServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await serveStatic(join(ROOT, 'web', 'dist'));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(new URL('dra.html', server.url).href);
  await page.waitForSelector('body[data-ready="true"]');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function shown(): Promise<{ rows: Array<{ claim: string; state: string; node: string }>; devices: Record<string, string> }> {
  const rows = await page.$$eval('[data-testid="dra-claim-row"]', (trs) =>
    trs.map((tr) => ({ claim: (tr as HTMLElement).dataset.claim!, state: (tr as HTMLElement).dataset.state!, node: (tr as HTMLElement).dataset.node! })),
  );
  const chips = await page.$$eval('[data-testid="dra-device"][data-claim]', (cs) => cs.map((c) => [(c as HTMLElement).dataset.device!, (c as HTMLElement).dataset.claim!] as const));
  return { rows, devices: Object.fromEntries(chips) };
}

describe('DRA view', () => {
  it('loads an uploaded dump, schedules its pending claims and shows the allocation the engine gives', async () => {
    await page.setInputFiles('[data-testid="dra-files"]', SAMPLE);
    expect(sampleClaims.held.allocatedDevices).toHaveLength(1);
    expect(pending).toBeGreaterThan(0);
    await expect
      .poll(() => page.textContent('[data-testid="dra-loaded"]'))
      .toBe(`cluster.json: ${dump.nodes.length} nodes, ${dump.slices.length} slices, ${dump.classes.length} classes, ${dump.claims.length} claims (${pending} pending)`);
    // Before scheduling: the claim allocated in the dump holds its GPU.
    expect((await shown()).devices).toEqual({ [heldDevice]: heldClaim.label });
    expect(await page.getAttribute(`[data-device="${heldDevice}"]`, 'data-state')).toBe('held');

    await page.selectOption('[data-testid="dra-mode"]', 'scored');
    await page.selectOption('[data-testid="dra-node-score"]', 'pack');
    await page.click('[data-testid="dra-schedule"]');
    await page.waitForSelector('[data-testid="dra-status"][data-done="true"]');
    expect(await page.textContent('[data-testid="dra-status"]')).toMatch(new RegExp(`^${pending} pending claims: \\d scheduled, \\d unschedulable \\(scored, pack\\) in [\\d.]+ ms$`));

    // The same dump through the engine in Node.
    const { claims, held } = claimsOfDump(dump.claims);
    const engine = await openEngine();
    const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode: 'scored', nodeScore: 'pack' });
    const expectedRows = [];
    const expectedDevices: Record<string, string> = { [heldDevice]: heldClaim.label };
    for (const c of claims) {
      if (c.allocation !== undefined) {
        expectedRows.push({ claim: c.label, state: 'held', node: heldNode });
        continue;
      }
      const r = cluster.schedule(c.object);
      expectedRows.push({ claim: c.label, state: r.node === undefined ? 'unschedulable' : 'scheduled', node: r.node ?? '' });
      for (const d of r.results[0]?.devices.results ?? []) expectedDevices[`${d.driver}/${d.pool}/${d.device}`] = c.label;
    }
    const got = await shown();
    expect(got.rows).toEqual(expectedRows);
    expect(got.devices).toEqual(expectedDevices);
    expect(Object.keys(expectedDevices).length).toBeGreaterThan(4);
    // Scheduled devices carry their claim's colour, held ones do not.
    expect(await page.getAttribute(`[data-device="${heldDevice}"]`, 'data-state')).toBe('held');
    const scheduled = Object.keys(expectedDevices).find((id) => expectedDevices[id] !== heldClaim.label)!;
    expect(await page.getAttribute(`[data-device="${scheduled}"]`, 'data-state')).toBe('new');

    // The node score's default is each mode's own: scored mode's is the objective's.
    await page.selectOption('[data-testid="dra-node-score"]', 'default');
    await page.click('[data-testid="dra-schedule"]');
    await expect
      .poll(() => page.textContent('[data-testid="dra-status"]'))
      .toMatch(new RegExp(`^${pending} pending claims: \\d scheduled, \\d unschedulable \\(scored, ${DEFAULT_NODE_SCORES.scored}\\) in [\\d.]+ ms$`));
    const byDefault = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode: 'scored' });
    const defaultRows = claims.map((c) => {
      if (c.allocation !== undefined) return { claim: c.label, state: 'held', node: heldNode };
      const r = byDefault.schedule(c.object);
      return { claim: c.label, state: r.node === undefined ? 'unschedulable' : 'scheduled', node: r.node ?? '' };
    });
    expect((await shown()).rows).toEqual(defaultRows);
    expect(pageErrors).toEqual([]);
  });

  it('shows the file, object and field of a malformed dump', async () => {
    const bad = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { items: Array<{ kind: string; apiVersion: string }> };
    // A version the API server does not serve (v1beta1 and v1beta2 are still read).
    bad.items.find((i) => i.kind === 'DeviceClass')!.apiVersion = 'resource.k8s.io/v1alpha1';
    await page.setInputFiles('[data-testid="dra-files"]', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await expect
      .poll(() => page.textContent('[data-testid="dra-error-message"]'))
      .toMatch(/^broken\.json: DeviceClass\/gpu\.nvidia\.com: apiVersion: expected one that Kubernetes [\d.]+ serves \(resource\.k8s\.io\/v1, [^)]*\), got "resource\.k8s\.io\/v1alpha1"/);
    expect(await page.isVisible('[data-testid="dra-error"]')).toBe(true);
  });
});
