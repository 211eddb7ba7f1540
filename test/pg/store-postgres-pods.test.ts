// Pods in the PostgreSQL store (issue 20): a pod holding a GPU share, CPU and host memory, and a
// CPU-only pod, committed through a StoredClusterState, are in the rows with every field, reload
// with every field (a fresh reader, a watching replica), and charge the node's CPU and host memory
// there: a replica that planned before they landed gets the in-memory commit's CONFLICT, word for word.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState, type StoredClusterState } from '../../src/store/stored-state.js';
import { outcomeOf, planPod } from '../support/stores.js';
import { freshStore, noPg, sql } from './pg-context.js';

const G = 2 ** 30;
const MIB = 2 ** 20;

const NODES: ClusterNode[] = [
  { id: 'a100', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'A100' },
  { id: 'cpu-box', gpus: [], cpu: 8000 },
  { id: 'plain', gpus: [{ index: 0, memoryTotal: 16 * G }] },
];

describe.skipIf(noPg)('PostgresStore with pods', () => {
  let store: PostgresStore | undefined;
  const opened: StoredClusterState[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await store?.close();
    store = undefined;
  });

  it('a share + CPU + host memory pod and a CPU-only pod commit, sit in the rows and reload with every field', async () => {
    const fresh = await freshStore('pods', NODES);
    store = fresh.store;
    const { engine, schema } = fresh;
    const writer = await openClusterState(engine, store, { watch: false, replica: 0 });
    const watcher = await openClusterState(engine, store, { watch: true, replica: 1 });
    opened.push(writer, watcher);
    expect(writer.toJSON().nodes.map((n) => [n.cpu, n.hostMemory, n.gpuModel])).toEqual([
      [16_000, 64 * G, 'A100'],
      [8000, undefined, undefined],
      [undefined, undefined, undefined],
    ]);

    const local = engine.restoreClusterState(writer.toJSON());
    const share = planPod(local, { id: 'share', cpu: 4000, memoryMiB: 8192, gpus: 1, milli: 250 }).options[0];
    expect(share).toMatchObject({ node: 'a100', milli: 250, cpu: 4000, hostMemory: 8 * G, memoryPerGpu: Math.floor((250 * 80 * G) / 1000) });
    await writer.commit(share, { id: 'share', lastActivity: 1234 });
    const cpuOnly = { node: 'cpu-box', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 3000 };
    await writer.commit(cpuOnly, { id: 'cpu-only' });
    const hostOnly = { node: 'a100', gpus: [], memoryPerGpu: 0, evict: [], score: 0, hostMemory: 512 * MIB };
    await writer.commit(hostOnly, { id: 'host-only' });

    const expected = [
      { id: 'share', gpus: share.gpus, memoryPerGpu: share.memoryPerGpu, lastActivity: 1234, milli: 250, cpu: 4000, hostMemory: 8 * G },
      { id: 'host-only', gpus: [], memoryPerGpu: 0, hostMemory: 512 * MIB },
      { id: 'cpu-only', gpus: [], memoryPerGpu: 0, cpu: 3000 },
    ];
    const bySlot = (list: Array<{ id: string }>) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    // The rows themselves.
    const db = await sql();
    try {
      const rows = await db.query(`SELECT id, node, gpus, memory_per_gpu::float8 AS memory, milli, cpu::float8 AS cpu, host_memory::float8 AS host FROM ${schema}.slots ORDER BY id`);
      expect(rows.rows).toEqual([
        { id: 'cpu-only', node: 'cpu-box', gpus: [], memory: 0, milli: null, cpu: 3000, host: null },
        { id: 'host-only', node: 'a100', gpus: [], memory: 0, milli: null, cpu: null, host: 512 * MIB },
        { id: 'share', node: 'a100', gpus: share.gpus, memory: share.memoryPerGpu, milli: 250, cpu: 4000, host: 8 * G },
      ]);
      const nodes = await db.query(`SELECT id, cpu::float8 AS cpu, host_memory::float8 AS host, gpu_model FROM ${schema}.nodes ORDER BY position`);
      expect(nodes.rows).toEqual([
        { id: 'a100', cpu: 16_000, host: 64 * G, gpu_model: 'A100' },
        { id: 'cpu-box', cpu: 8000, host: null, gpu_model: null },
        { id: 'plain', cpu: null, host: null, gpu_model: null },
      ]);
    } finally {
      await db.end();
    }
    // A fresh reader, the writer's own copy and a replica that follows notifications all agree, every field included.
    const reader = await openClusterState(engine, store, { watch: false });
    opened.push(reader);
    // The watcher hears of the commits by NOTIFY: wait until it holds the store's versions.
    const caughtUp = async (versions: Record<string, number>) =>
      vi.waitFor(
        async () => {
          await watcher.settled();
          for (const [id, v] of Object.entries(versions)) expect(watcher.version(id)).toBe(v);
        },
        { timeout: 10_000, interval: 20 },
      );
    await caughtUp((await store.load()).versions);
    for (const view of [reader, writer, watcher]) {
      expect(bySlot(view.listSlots())).toEqual(bySlot(expected));
      expect(view.toJSON()).toEqual(reader.toJSON());
    }
    expect(reader.toJSON().nodes.map((n) => [n.cpu, n.hostMemory, n.gpuModel])).toEqual([
      [16_000, 64 * G, 'A100'],
      [8000, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
    // The copies charge the pods: a scheduler on the fresh reader's state sees the CPU and memory they hold.
    const view = engine.restoreClusterState(reader.toJSON()).podScheduler({ policy: 'bestfit' });
    try {
      expect(view.view('a100')).toMatchObject({ cpu: 12_000, memoryMiB: 64 * 1024 - 8192 - 512 });
      expect(view.view('cpu-box').cpu).toBe(5000);
    } finally {
      view.close();
    }
    // Released through the store: gone from the rows and from every copy.
    await writer.release('share');
    await caughtUp((await store.load()).versions);
    expect(watcher.listSlots('a100').map((s) => s.id)).toEqual(['host-only']);
  });

  it("a replica that planned before another took the CPU gets the in-memory commit's CONFLICT, and nothing changes", async () => {
    const fresh = await freshStore('pods_conflict', NODES);
    store = fresh.store;
    const { engine, schema } = fresh;
    const first = await openClusterState(engine, store, { watch: false, replica: 0 });
    const late = await openClusterState(engine, store, { watch: false, replica: 1 });
    opened.push(first, late);
    const a = planPod(engine.restoreClusterState(first.toJSON()), { id: 'a', cpu: 10_000, memoryMiB: 1024, gpus: 1, milli: 100 }).options[0];
    const b = planPod(engine.restoreClusterState(late.toJSON()), { id: 'b', cpu: 8000, memoryMiB: 1024, gpus: 1, milli: 100 }).options[0];
    expect([a.node, b.node]).toEqual(['a100', 'a100']);
    await first.commit(a, { id: 'a' });
    // What an in-memory state holding the same slots answers to b.
    const truth = engine.restoreClusterState((await store.load()).state);
    const inMemory = await outcomeOf(() => truth.commit(b, { id: 'b' }));
    expect(inMemory).toMatch(/^CONFLICT option: node a100 has 6000 milli-CPU left, less than the 8000 asked; nothing was changed @option\.cpu$/);
    const db = await sql();
    try {
      const before = (await db.query(`SELECT id, version FROM ${schema}.nodes ORDER BY id`)).rows;
      expect(await outcomeOf(() => late.commit(b, { id: 'b' }))).toBe(inMemory);
      expect((await db.query(`SELECT id, version FROM ${schema}.nodes ORDER BY id`)).rows).toEqual(before);
      expect((await db.query(`SELECT id FROM ${schema}.slots`)).rows).toEqual([{ id: 'a' }]);
    } finally {
      await db.end();
    }
    // The conflict brought the late replica up to date: its next plan sees the CPU taken and goes to
    // the node that does not track CPU, and that commit lands.
    expect(late.listSlots('a100').map((s) => [s.id, s.cpu])).toEqual([['a', 10_000]]);
    const again = planPod(engine.restoreClusterState(late.toJSON()), { id: 'b', cpu: 8000, memoryMiB: 1024, gpus: 1, milli: 100 }).options;
    expect(again.map((o) => o.node)).toEqual(['plain']);
    await late.commit(again[0], { id: 'b' });
    expect((await store.load()).state.nodes.map((n) => n.slots.map((s) => s.id))).toEqual([['a'], [], ['b']]);
  });
});
