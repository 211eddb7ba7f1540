// The page's cluster model (web/planner/model.ts) in Node, without a browser: nodes are what
// nodeFromInventory makes, the export is byte for byte the CLI's state file, a CLI file imports and
// exports unchanged, localStorage saving restores the same page, and bad input changes nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AllocationError, getPreset, nodeFromInventory, openEngine } from '../../src/index.js';
import { META_KEY, Planner, STATE_KEY } from '../../web/planner/model.js';
import { cli, inTempDir } from '../support/cli.js';

/** A Storage over a Map (what localStorage offers the page). */
class MemoryStorage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

async function planner(): Promise<Planner> {
  const { planner: p } = await Planner.create();
  for (const name of ['dgx-a100', 'dgx-a100-mig', '8x-l40s-pcie', '4x-rtx8000']) p.addType(`preset:${name}`, name, getPreset(name), `preset ${name}`);
  return p;
}

const text = (json: unknown): string => JSON.stringify(json, null, 2) + '\n';

describe('the page planner', () => {
  it('adds, duplicates and removes nodes as nodeFromInventory makes them', async () => {
    const p = await planner();
    expect(p.addNodes('preset:dgx-a100', 2)).toEqual(['dgx-a100-1', 'dgx-a100-2']);
    expect(p.addNodes('preset:8x-l40s-pcie', 1)).toEqual(['8x-l40s-pcie-1']);
    expect(p.duplicateNode('dgx-a100-1')).toBe('dgx-a100-3');
    p.removeNode('dgx-a100-2');
    expect(p.nodes()).toEqual(['dgx-a100-1', 'dgx-a100-3', '8x-l40s-pcie-1'].map((id) => ({ slots: [], ...nodeFromInventory(getPreset(id.replace(/-\d+$/, '')), { id }) })));
    expect(p.typeCounts()).toEqual([
      { label: 'dgx-a100', count: 2 },
      { label: '8x-l40s-pcie', count: 1 },
    ]);
    expect(() => p.addNodes('preset:nope', 1)).toThrow(/machine type: "preset:nope" is not known/);
    expect(() => p.addNodes('preset:dgx-a100', 0)).toThrow(/count: expected a whole number/);
    expect(p.nodes().length).toBe(3);
  });

  it('counts used memory of an uploaded inventory on its GPUs, not as slots', async () => {
    const p = await planner();
    const inv = structuredClone(getPreset('4x-rtx8000')) as ReturnType<typeof getPreset> & { gpus: Array<{ memoryUsed?: number }> };
    inv.host = 'ws-7';
    inv.gpus[1].memoryUsed = 5 * 2 ** 30;
    p.addType('file:ws-7.json', 'ws-7', inv, 'ws-7.json');
    p.addNodes('file:ws-7.json', 1);
    expect(p.nodes()[0].id).toBe('ws-7-1');
    expect(p.othersOf('ws-7-1')).toEqual(new Map([[1, 5 * 2 ** 30]]));
    expect(p.workloads()).toEqual([]);
    // A plan never counts on that memory: 4 × 45 GiB GPUs, one with 5 GiB in use, TP 4 at 44 GiB per GPU does not fit.
    const plan = p.planCluster({ memory: 176 * 2 ** 30, model: 'm', tensorParallelSizes: [4], policy: 'spread', allowEviction: true }).value;
    expect(plan.options).toEqual([]);
  });

  it('exports exactly the state file the CLI writes, and imports a CLI file unchanged', async () => {
    const p = await planner();
    p.addNodes('preset:dgx-a100', 3);
    const option = p.planCluster({ memory: 140 * 2 ** 30, model: 'llama', tensorParallelSizes: [2], policy: 'spread', allowEviction: true }).value.options[0];
    p.commitOption(option);
    const engine = await openEngine({ backend: 'ts' });
    const mirror = engine.createClusterState({ nodes: [1, 2, 3].map((k) => nodeFromInventory(getPreset('dgx-a100'), { id: `dgx-a100-${k}` })) });
    mirror.commit(option);
    expect(p.exportText()).toBe(text(mirror.toJSON()));

    await inTempDir('gpualloc-web-', async (dir) => {
      const file = join(dir, 'state.json');
      const r = await cli(['plan', '--preset', 'dgx-a100-mig', '--state', file, '--memory', '30GiB', '--commit']);
      expect(r.code).toBe(0);
      const cliText = readFileSync(file, 'utf8');
      p.importText(cliText, 'state.json');
      expect(p.exportText()).toBe(cliText);
      // The node is the MIG preset's machine; dgx-a100 (added first) has the same GPUs and links.
      expect(p.typeLabel(p.nodes()[0].id)).toBe('dgx-a100');
    });
  });

  it('refuses a broken state file, naming the file and field, and keeps the cluster', async () => {
    const p = await planner();
    p.addNodes('preset:dgx-a100', 1);
    const before = p.exportText();
    const broken = JSON.parse(before);
    broken.nodes[0].gpus[2].memoryTotal = -1;
    let error: unknown;
    try {
      p.importText(JSON.stringify(broken), 'bad.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).code).toBe('INVALID_STATE');
    expect((error as Error).message).toMatch(/^bad\.json: .*gpus\[2\]\.memoryTotal/);
    expect(p.exportText()).toBe(before);
  });

  it('saves to storage and restores the same cluster, types, backend and replica work', async () => {
    const p = await planner();
    p.addNodes('preset:dgx-a100-mig', 1);
    p.addNodes('preset:4x-rtx8000', 2);
    p.commitOption(p.planCluster({ memory: 60 * 2 ** 30, model: 'qwen', tensorParallelSizes: [2], policy: 'pack', allowEviction: true }).value.options[0]);
    p.selected = '4x-rtx8000-2';
    const picked = p.allocateReplicas(2, 3, 'distributed').value.devices;
    p.commitReplicas(picked, 2, '3 replicas');
    p.setBackend('ts');
    const storage = new MemoryStorage();
    p.save(storage as unknown as Storage);
    expect(JSON.parse(storage.getItem(STATE_KEY) as string)).toEqual(p.state.toJSON());

    const q = await planner();
    expect(q.load(storage as unknown as Storage)).toBe(true);
    expect(q.exportText()).toBe(p.exportText());
    expect(q.backend).toBe('ts');
    expect(q.selected).toBe('4x-rtx8000-2');
    expect(q.typeCounts()).toEqual(p.typeCounts());
    expect(q.workloads()).toEqual(p.workloads());
    expect(q.inventoryOf('dgx-a100-mig-1').gpus.some((g) => (g.mig ?? []).length > 0)).toBe(true);

    // A stored state that does not load throws and leaves the planner as it was.
    const r = await planner();
    r.addNodes('preset:dgx-a100', 1);
    const kept = r.exportText();
    storage.setItem(STATE_KEY, '{"version": 1, "nextSlot": 1, "nodes": [');
    expect(() => r.load(storage as unknown as Storage)).toThrow(AllocationError);
    expect(r.exportText()).toBe(kept);
    expect(r.backend).toBe('wasm');
    expect(new MemoryStorage().getItem(META_KEY)).toBeNull();
    expect(r.load(new MemoryStorage() as unknown as Storage)).toBe(false);
  });
});
