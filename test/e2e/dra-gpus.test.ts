// The DRA view's GPUs and replay, built (web/dist/dra.html) and driven in headless Chromium: every
// GPU drawn as its counter set, the placements its counters no longer allow greyed exactly as the
// sample's counters say once the engine's allocation is in (read here from the slices' JSON, not
// from the page's code), and a replay of one stream under first-fit and scored whose chart has both
// lines and whose final shares are those the engine gives in Node for the same stream.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOfDump, type DraMode, openEngine, splitDraDump } from '../../src/index.js';
import { readGpus } from '../../web/dra/counters.js';
import { claimStream } from '../../web/dra/replay.js';
import { launchChromium } from './browser.js';
import { RESULTS, ROOT } from './page.js';
import { type StaticServer, serveStatic } from './serve.js';

const SAMPLE = join(ROOT, 'data', 'samples', 'dra', 'cluster.json');
const dump = splitDraDump(JSON.parse(readFileSync(SAMPLE, 'utf8')), 'cluster.json');

type RawSlice = {
  spec: {
    driver: string;
    pool: { name: string };
    sharedCounters?: Array<{ name: string; counters: Record<string, { value: string }> }>;
    devices?: Array<{ name: string; consumesCounters?: Array<{ counterSet: string; counters: Record<string, { value: string }> }> }>;
  };
};

/** The sample's counter sets and devices, read straight from the JSON. */
function sampleCounters(): { sets: Map<string, Record<string, number>>; devices: Map<string, { set?: string; takes: Record<string, number> }> } {
  const sets = new Map<string, Record<string, number>>();
  const devices = new Map<string, { set?: string; takes: Record<string, number> }>();
  for (const s of dump.slices as RawSlice[]) {
    const at = `${s.spec.driver}/${s.spec.pool.name}`;
    for (const set of s.spec.sharedCounters ?? []) sets.set(`${at}/${set.name}`, Object.fromEntries(Object.entries(set.counters).map(([k, v]) => [k, Number(v.value)])));
    for (const d of s.spec.devices ?? []) {
      const c = d.consumesCounters?.[0];
      devices.set(`${at}/${d.name}`, c === undefined ? { takes: {} } : { set: `${at}/${c.counterSet}`, takes: Object.fromEntries(Object.entries(c.counters).map(([k, v]) => [k, Number(v.value)])) });
    }
  }
  return { sets, devices };
}

/** A memory-slice counter, as the driver's DynamicMIG counter sets name them. */
const MEMORY_SLICE = /^memory-slice-\d+$/;

/** Per counter set: the devices its counters no longer allow, and the memory slices in use, for `inUse`. */
function expectedSets(inUse: Set<string>): Map<string, { blocked: string[]; memory: number }> {
  const { sets, devices } = sampleCounters();
  const out = new Map<string, { blocked: string[]; memory: number }>();
  for (const [set, capacity] of sets) {
    const used: Record<string, number> = {};
    for (const id of inUse) {
      const d = devices.get(id);
      if (d?.set === set) for (const [k, n] of Object.entries(d.takes)) used[k] = (used[k] ?? 0) + n;
    }
    const blocked = [...devices].filter(([id, d]) => d.set === set && !inUse.has(id) && Object.entries(d.takes).some(([k, n]) => (used[k] ?? 0) + n > (capacity[k] ?? 0))).map(([id]) => id);
    out.set(set, { blocked: blocked.sort(), memory: Object.entries(used).filter(([k, n]) => MEMORY_SLICE.test(k) && n > 0).length });
  }
  return out;
}

/** The sample's GPUs: one per counter set, one per device without counters. */
function sampleGpus(): number {
  const { sets, devices } = sampleCounters();
  return sets.size + [...devices.values()].filter((d) => d.set === undefined).length;
}

/** The allocated share of the sample's GPUs, in %: a counter set counts its memory slices in use (a slice once), a device without counters 1. */
function expectedShare(inUse: Iterable<string>): number {
  const { sets, devices } = sampleCounters();
  const slicesIn = (counters: Record<string, number>) => Object.keys(counters).filter((k) => MEMORY_SLICE.test(k) && counters[k] > 0);
  const usedSlices = new Map<string, Set<string>>();
  let taken = 0;
  for (const id of inUse) {
    const d = devices.get(id);
    if (d === undefined) continue;
    if (d.set === undefined) taken += 1;
    else {
      const s = usedSlices.get(d.set) ?? new Set<string>();
      for (const k of slicesIn(d.takes)) s.add(k);
      usedSlices.set(d.set, s);
    }
  }
  for (const [set, s] of usedSlices) taken += s.size / slicesIn(sets.get(set) ?? {}).length;
  return (100 * taken) / sampleGpus();
}

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

/** What the page shows per counter set: its blocked placements and its memory slices in use. */
async function shownSets(): Promise<Map<string, { blocked: string[]; memory: number }>> {
  const got = await page.$$eval('[data-testid="dra-gpu"][data-layout="slices"]', (gs) =>
    gs.map((g) => {
      const el = g as HTMLElement;
      const blocked = Array.from(el.querySelectorAll<HTMLElement>('[data-testid="dra-device"][data-state="blocked"]'))
        .map((d) => d.dataset.device!)
        .sort();
      return [el.dataset.gpu!, { blocked, memory: Number(el.dataset.usedUnits) }] as const;
    }),
  );
  return new Map(got);
}

describe('DRA view: GPUs as counter sets', () => {
  for (const mode of ['first-fit', 'scored'] as const) {
    it(`greys the placements a GPU's counters no longer allow once ${mode} has placed the pending claims`, async () => {
      await page.setInputFiles('[data-testid="dra-files"]', SAMPLE);
      await expect.poll(() => page.locator('[data-testid="dra-claim-row"][data-state="pending"]').count()).toBe(4);
      expect(await page.locator('[data-testid="dra-gpu"]').count()).toBe(sampleGpus());
      // Every counter set is drawn on its memory slices.
      expect(await page.locator('[data-testid="dra-gpu"][data-layout="slices"]').count()).toBe(sampleCounters().sets.size);
      expect(sampleCounters().sets.size).toBeGreaterThan(0);
      // Before scheduling only the held notebook is in use: its GPU is busy, and no MIG placement is greyed.
      const held = new Set(claimsOfDump(dump.claims).held.allocatedDevices);
      expect(held.size).toBe(1);
      expect(await shownSets()).toEqual(expectedSets(held));
      expect([...(await shownSets()).values()].every((s) => s.blocked.length === 0)).toBe(true);
      expect(Number(await page.getAttribute('[data-testid="dra-fleet-totals"]', 'data-share'))).toBeCloseTo(expectedShare(held), 9);

      await page.selectOption('[data-testid="dra-mode"]', mode);
      await page.selectOption('[data-testid="dra-node-score"]', 'pack');
      await page.click('[data-testid="dra-schedule"]');
      await page.waitForSelector('[data-testid="dra-status"][data-done="true"]');

      // The same claims through the engine in Node.
      const engine = await openEngine();
      const { claims, held: heldDevices } = claimsOfDump(dump.claims);
      const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...heldDevices, mode, nodeScore: 'pack' });
      const inUse = new Set(held);
      for (const c of claims) if (c.allocation === undefined) for (const d of cluster.schedule(c.object).results[0]?.devices.results ?? []) inUse.add(`${d.driver}/${d.pool}/${d.device}`);
      const want = expectedSets(inUse);
      const got = await shownSets();
      expect(got).toEqual(want);
      // Something did change: a counter set now has placements greyed.
      expect([...got.values()].some((s) => s.blocked.length > 0)).toBe(true);
      // Each placed device carries its state in the drawing, and the totals are the counters' sums.
      for (const id of inUse) expect(await page.getAttribute(`[data-testid="dra-device"][data-device="${id}"]`, 'data-state')).toBe(held.has(id) ? 'held' : 'new');
      expect(Number(await page.getAttribute('[data-testid="dra-fleet-totals"]', 'data-share'))).toBeCloseTo(expectedShare(inUse), 9);
      const nodeShares = await page.$$eval('[data-testid="dra-node-totals"]', (ts) => ts.map((t) => Number((t as HTMLElement).dataset.allocated)));
      expect(nodeShares.reduce((a, b) => a + b, 0)).toBeCloseTo((expectedShare(inUse) * sampleGpus()) / 100, 9);
      expect(pageErrors).toEqual([]);
    });
  }
});

describe('DRA view: the replay', () => {
  it('draws both modes over one stream and shows the final shares the engine gives in Node', async () => {
    await page.setInputFiles('[data-testid="dra-files"]', SAMPLE);
    await expect.poll(() => page.locator('[data-testid="dra-claim-row"][data-state="pending"]').count()).toBe(4);
    await page.selectOption('[data-testid="dra-node-score"]', 'pack');
    await page.fill('[data-testid="dra-replay-seed"]', '1');
    await page.click('[data-testid="dra-replay-run"]');
    await page.waitForSelector('[data-testid="dra-replay-status"][data-done="true"]');

    // The chart: one line per mode (uPlot's legend names them), over every arrival.
    const legend = await page.$$eval('[data-testid="dra-replay-chart"] .u-legend .u-series th', (ths) => ths.map((t) => t.textContent?.trim()));
    expect(legend).toEqual(['arrived %', 'first-fit', 'scored']);
    expect(await page.locator('[data-testid="dra-replay-chart"] canvas').count()).toBe(1);

    // The same stream, scheduled by the engine in Node in each mode.
    const engine = await openEngine();
    const map = readGpus(
      dump.slices,
      (dump.nodes as Array<{ metadata: { name: string } }>).map((n) => n.metadata.name),
    );
    const stream = claimStream(engine, dump, map, 1);
    expect(Number(await page.getAttribute('[data-testid="dra-replay-chart"]', 'data-points'))).toBe(stream.claims.length + 1);
    const { held } = claimsOfDump(dump.claims);
    const finals: Record<string, number> = {};
    for (const mode of ['first-fit', 'scored'] as DraMode[]) {
      const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode, nodeScore: 'pack' });
      const inUse = new Set(held.allocatedDevices);
      let placed = 0;
      for (const claim of stream.claims) {
        const r = cluster.schedule(claim);
        if (r.node !== undefined) placed++;
        for (const d of r.results[0]?.devices.results ?? []) inUse.add(`${d.driver}/${d.pool}/${d.device}`);
      }
      finals[mode] = expectedShare(inUse);
      const row = `[data-testid="dra-replay-row"][data-mode="${mode}"]`;
      expect(Number(await page.getAttribute(row, 'data-final'))).toBeCloseTo(finals[mode], 9);
      expect(await page.textContent(`${row} [data-testid="dra-replay-final"]`)).toBe(`${finals[mode].toFixed(2)} %`);
      expect(Number(await page.getAttribute(row, 'data-placed'))).toBe(placed);
      expect(Number(await page.getAttribute(row, 'data-failed'))).toBe(stream.claims.length - placed);
      // What the counters strand at the end: the placements no longer allowed, read from the slices' counters.
      expect(Number(await page.getAttribute(row, 'data-blocked'))).toBe([...expectedSets(inUse).values()].reduce((n, s) => n + s.blocked.length, 0));
    }

    // The screenshot in docs/web.md.
    mkdirSync(RESULTS, { recursive: true });
    await page.locator('[data-testid="dra-replay"]').screenshot({ path: join(RESULTS, 'dra-replay.png') });

    // Side by side at the end, then at the start: each side's share is its mode's.
    for (const mode of ['first-fit', 'scored']) expect(Number(await page.getAttribute(`[data-testid="dra-replay-side"][data-mode="${mode}"]`, 'data-share'))).toBeCloseTo(finals[mode], 9);
    await page.locator('[data-testid="dra-replay-step"]').fill('0');
    await expect.poll(() => page.getAttribute('[data-testid="dra-replay-side"][data-mode="scored"]', 'data-step')).toBe('0');
    for (const mode of ['first-fit', 'scored'])
      expect(Number(await page.getAttribute(`[data-testid="dra-replay-side"][data-mode="${mode}"]`, 'data-share'))).toBeCloseTo(expectedShare(held.allocatedDevices), 9);
    expect(await page.locator('[data-testid="dra-replay-device"][data-state="new"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
