// The cluster page end to end, against the CLI: build a 3-type, 40-node cluster with the add form,
// place 20 models across it (each plan checked against ClusterState.plan in Node), reload, export the
// state file, plan and commit on it with `gpualloc plan --state FILE`, import the CLI's file back into
// the page and export it again: the same bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterState, defaultTensorParallelSizes, type Engine, formatBytes, getPreset, nodeFromInventory, openEngine, parseBytes } from '../../src/index.js';
import { cli, inTempDir } from '../support/cli.js';
import { addNodes, clearCluster, exportState, importState, type ModelInput, openPage, type PageSession, plan, reload, shownOptions } from './page.js';

let s: PageSession;
let engine: Engine;

/** The state text exactly as `gpualloc plan --state FILE --commit` writes it. */
function fileText(state: ClusterState): string {
  return JSON.stringify(state.toJSON(), null, 2) + '\n';
}

const TYPES = [
  { preset: 'dgx-a100', count: 32 },
  { preset: '8x-l40s-pcie', count: 6 },
  { preset: 'dgx-h100', count: 2 },
];

/** 20 models of mixed sizes: some fill a GPU, some need TP 2-8, two are large enough for the 80 GB machines only. */
const MODELS: ModelInput[] = Array.from({ length: 20 }, (_, k) => {
  const sizes = ['140GiB', '40GiB', '70GiB', '300GiB', '20GiB', '90GiB', '16GiB', '600GiB', '45GiB', '160GiB'];
  return { name: `model-${String(k + 1).padStart(2, '0')}`, memory: sizes[k % sizes.length], tp: k % 3 === 0 ? [2, 4, 8] : undefined };
});

beforeAll(async () => {
  engine = await openEngine({ backend: 'wasm' });
  s = await openPage();
});

afterAll(async () => {
  await s?.close();
});

describe('a 40-node cluster built on the page, exchanged with the CLI', () => {
  let mirror: ClusterState;
  let exported = '';

  it('adds 32 × dgx-a100, 6 × 8x-l40s-pcie and 2 × dgx-h100 as the nodes nodeFromInventory makes', async () => {
    const { page } = s;
    await clearCluster(page);
    for (const t of TYPES) await addNodes(page, `preset:${t.preset}`, t.count);
    const ids = TYPES.flatMap((t) => Array.from({ length: t.count }, (_, k) => `${t.preset}-${k + 1}`));
    expect(await page.$$eval('[data-testid="node-tile"]', (ts) => ts.map((t) => (t as HTMLElement).dataset.node))).toEqual(ids);
    expect(await page.textContent('[data-testid="cluster-types"]')).toBe('32 × dgx-a100, 6 × 8x-l40s-pcie, 2 × dgx-h100');
    expect(await page.getAttribute('[data-testid="cluster-nodes"]', 'data-count')).toBe('40');
    mirror = engine.createClusterState({ nodes: TYPES.flatMap((t) => Array.from({ length: t.count }, (_, k) => nodeFromInventory(getPreset(t.preset), { id: `${t.preset}-${k + 1}` }))) });
    // Every tile shows its node's GPUs.
    for (const t of TYPES) expect(await page.locator(`[data-testid="node-tile"][data-node="${t.preset}-1"] [data-testid="tile-gpu"]`).count()).toBe(getPreset(t.preset).gpus.length);
  });

  it('places 20 models across the cluster exactly as ClusterState.plan and commit do in Node', async () => {
    const { page } = s;
    for (const m of MODELS) {
      await plan(page, m);
      const expected = mirror.plan({ memory: parseBytes(m.memory, 'memory'), model: m.name, tensorParallelSizes: m.tp ?? [1, 2, 4, 8], policy: 'spread', allowEviction: true, limit: 16 });
      expect(expected.options.length).toBeGreaterThan(0);
      expect(await shownOptions(page)).toEqual(expected.options.map((o) => ({ node: o.node, gpus: o.gpus, memoryPerGpu: o.memoryPerGpu, score: o.score, evict: o.evict })));
      // The best option is highlighted on its node: that tile, those GPUs, nothing else.
      const best = expected.options[0];
      expect(await page.$$eval('[data-testid="node-tile"][data-chosen="true"]', (ts) => ts.map((t) => (t as HTMLElement).dataset.node))).toEqual([best.node]);
      expect(await page.$$eval('[data-testid="tile-gpu"][data-chosen="true"]', (gs) => gs.map((g) => Number((g as HTMLElement).dataset.gpu)))).toEqual([...best.gpus].sort((a, b) => a - b));
      await page.click('[data-testid="commit-button"]');
      mirror.commit(best);
    }
    expect(await page.getAttribute('[data-testid="cluster-slots"]', 'data-count')).toBe('20');
    const used = mirror.toJSON().nodes.reduce((sum, n) => sum + n.slots.reduce((t, x) => t + x.memoryPerGpu * x.gpus.length, 0), 0);
    expect(Number(await page.getAttribute('[data-testid="cluster-used"]', 'data-used'))).toBe(used);
    // How full each machine type is, from the state.
    const capacity = TYPES.map((t) => {
      const nodes = mirror.toJSON().nodes.filter((n) => n.id.startsWith(`${t.preset}-`));
      const perGpu = nodes.flatMap((n) => n.gpus.map((g) => ({ total: g.memoryTotal, used: n.slots.filter((x) => x.gpus.includes(g.index)).reduce((u, x) => u + x.memoryPerGpu, 0) })));
      return {
        type: t.preset,
        nodes: String(t.count),
        used: String(perGpu.reduce((u, g) => u + g.used, 0)),
        total: String(perGpu.reduce((u, g) => u + g.total, 0)),
        emptyGpus: String(perGpu.filter((g) => g.used === 0).length),
        emptyNodes: String(nodes.filter((n) => n.slots.length === 0).length),
        largest: String(Math.max(...perGpu.map((g) => g.total - g.used))),
      };
    });
    expect(await page.$$eval('[data-testid="capacity-type"]', (rs) => rs.map((r) => ({ ...(r as HTMLElement).dataset })))).toEqual(capacity.map((c) => ({ testid: 'capacity-type', ...c })));
    // Each tile's bars hold what the state says each GPU holds.
    for (const node of mirror
      .toJSON()
      .nodes.filter((n) => n.slots.length > 0)
      .slice(0, 6)) {
      const shown = await page.$$eval(`[data-testid="node-tile"][data-node="${node.id}"] [data-testid="tile-gpu"]`, (gs) => gs.map((g) => Number((g as HTMLElement).dataset.slots)));
      expect(shown).toEqual(node.gpus.map((g) => node.slots.filter((x) => x.gpus.includes(g.index)).reduce((t, x) => t + x.memoryPerGpu, 0)));
    }
  });

  it('keeps the cluster across a reload and exports the exact state file', async () => {
    const { page } = s;
    const before = await exportState(page);
    expect(before.name).toBe('gpualloc-state.json');
    expect(before.text).toBe(fileText(mirror));
    await reload(page);
    expect(await page.getAttribute('body', 'data-restored')).toBe('true');
    expect(await page.locator('[data-testid="node-tile"]').count()).toBe(40);
    expect(await page.textContent('[data-testid="cluster-types"]')).toBe('32 × dgx-a100, 6 × 8x-l40s-pcie, 2 × dgx-h100');
    expect(await page.locator('[data-testid="tile-slot"]').count()).toBe(mirror.listSlots().reduce((t, x) => t + x.gpus.length, 0));
    exported = (await exportState(page)).text;
    expect(exported).toBe(before.text);
  });

  it('the CLI plans and commits on the exported file as Node does; the page imports the CLI file and exports the same bytes', async () => {
    const { page } = s;
    await inTempDir('gpualloc-e2e-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, exported);
      const planned = await cli(['plan', '--state', file, '--memory', '200GiB', '--model', 'next-70b', '--json']);
      expect(planned.stderr).toBe('');
      expect(planned.code).toBe(0);
      // The CLI's default TP sizes: powers of two up to the largest node (8 GPUs here).
      const expected = mirror.plan({ memory: 200 * 2 ** 30, model: 'next-70b', tensorParallelSizes: defaultTensorParallelSizes(8).sizes });
      expect(JSON.parse(planned.stdout).options).toEqual(expected.options);
      // The plan alone does not touch the file.
      expect(readFileSync(file, 'utf8')).toBe(exported);

      const committed = await cli(['plan', '--state', file, '--memory', '200GiB', '--model', 'next-70b', '--commit', '--json']);
      expect(committed.code).toBe(0);
      const cliText = readFileSync(file, 'utf8');
      // The CLI records when it committed (lastActivity, for `state list` and `state gc`): the mirror commits at that time too.
      const slot = mirror.commit(expected.options[0], { lastActivity: cliLastActivity(cliText, JSON.parse(committed.stdout).committed) });
      expect(JSON.parse(committed.stdout).committed).toBe(slot);
      expect(cliText).toBe(fileText(mirror));

      // CLI file → page → file: byte-identical; the page shows the CLI's slot.
      await importState(page, 'state.json', cliText);
      await expect.poll(() => page.getAttribute('[data-testid="cluster-slots"]', 'data-count')).toBe('21');
      expect(await page.isVisible('[data-testid="error-banner"]')).toBe(false);
      expect(await page.locator(`[data-testid="tile-slot"][data-slot="${slot}"]`).count()).toBe(expected.options[0].gpus.length);
      // Imported nodes keep their machine type (same machine as the preset).
      expect(await page.textContent('[data-testid="cluster-types"]')).toBe('32 × dgx-a100, 6 × 8x-l40s-pcie, 2 × dgx-h100');
      const back = await exportState(page);
      expect(back.text).toBe(cliText);

      // … → CLI again: it reads the page's file and commits on it.
      writeFileSync(file, back.text);
      const again = await cli(['plan', '--state', file, '--memory', '24GiB', '--commit', '--json']);
      expect(again.code).toBe(0);
      const next = mirror.plan({ memory: 24 * 2 ** 30 });
      const againText = readFileSync(file, 'utf8');
      mirror.commit(next.options[0], { lastActivity: cliLastActivity(againText, JSON.parse(again.stdout).committed) });
      expect(againText).toBe(fileText(mirror));
    });
  });

  it('round-trips a CLI state file that carries used memory (from an inventory) byte for byte', async () => {
    const { page } = s;
    await inTempDir('gpualloc-e2e-', async (dir) => {
      const inventory = getPreset('4x-rtx8000') as unknown as { host?: string; gpus: Array<Record<string, unknown>> };
      inventory.host = 'ws-lab-07';
      inventory.gpus[1].memoryUsed = 12 * 2 ** 30;
      inventory.gpus[3].processes = [{ pid: 4242, usedMemory: 6 * 2 ** 30 }];
      writeFileSync(join(dir, 'inv.json'), JSON.stringify(inventory));
      const file = join(dir, 'state.json');
      const seeded = await cli(['plan', '--inventory', join(dir, 'inv.json'), '--state', file, '--memory', '30GiB', '--model', 'qwen', '--commit', '--json']);
      expect(seeded.code).toBe(0);
      const cliText = readFileSync(file, 'utf8');
      const node = JSON.parse(cliText).nodes[0];
      expect(node.gpus.filter((g: { memoryUsed?: number }) => g.memoryUsed !== undefined).map((g: { index: number; memoryUsed: number }) => [g.index, g.memoryUsed])).toEqual([
        [1, 12 * 2 ** 30],
        [3, 6 * 2 ** 30],
      ]);

      await importState(page, 'ws-lab-07.state.json', cliText);
      await expect.poll(() => page.getAttribute('[data-testid="cluster-nodes"]', 'data-count')).toBe('1');
      // Used memory is drawn hatched on its GPUs, labelled, and counted.
      expect(
        await page.$$eval('[data-testid="tile-others"]', (es) =>
          es.map((e) => [Number(e.closest('[data-testid="tile-gpu"]')?.getAttribute('data-gpu')), Number(e.getAttribute('data-bytes')), e.getAttribute('title')]),
        ),
      ).toEqual([
        [1, 12 * 2 ** 30, `in use by other processes: ${formatBytes(12 * 2 ** 30)}`],
        [3, 6 * 2 ** 30, `in use by other processes: ${formatBytes(6 * 2 ** 30)}`],
      ]);
      expect(await page.textContent('[data-testid="cluster-summary"]')).toContain(`${formatBytes(18 * 2 ** 30)} in use by other processes`);
      expect((await exportState(page)).text).toBe(cliText);
      await reload(page);
      expect((await exportState(page)).text).toBe(cliText);
    });
  });

  it("rejects a broken state file with the engine's message naming the field, keeping the cluster", async () => {
    const { page } = s;
    const before = (await exportState(page)).text;
    const broken = JSON.parse(before);
    broken.nodes[0].gpus[0].memoryTotal = '80GB';
    let expected = '';
    try {
      engine.restoreClusterState(JSON.stringify(broken));
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).toContain('memoryTotal');
    await importState(page, 'broken.json', JSON.stringify(broken));
    await page.waitForSelector('[data-testid="error-banner"]:not([hidden])');
    expect(await page.textContent('[data-testid="error-title"]')).toContain('INVALID_STATE');
    expect(await page.textContent('[data-testid="error-message"]')).toBe(`broken.json: ${expected}`);
    expect((await exportState(page)).text).toBe(before);
  });

  it('raised no uncaught error in the page', () => {
    expect(s.errors).toEqual([]);
  });
});

/** The lastActivity the CLI recorded for slot `id` in a state file's text (a number: the CLI always records it). */
function cliLastActivity(text: string, id: string): number {
  const slots = (JSON.parse(text) as { nodes: Array<{ slots: Array<{ id: string; lastActivity?: number }> }> }).nodes.flatMap((n) => n.slots);
  const at = slots.find((x) => x.id === id)?.lastActivity;
  if (typeof at !== 'number') throw new Error(`slot ${id}: the CLI recorded no lastActivity`);
  return at;
}
