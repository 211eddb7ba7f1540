// A slot across nodes in PostgreSQL: one transaction over every node of it. A connection killed
// mid-commit (waiting for a node another transaction holds, or with a part already written and the
// next waiting on its key) leaves no part of it anywhere and no version moved; a concurrent writer
// that took a part's GPU first makes it CONFLICT whole; writers committing overlapping slots at once
// never deadlock (nodes are locked in one order) and never over-fill a GPU; release, stale and touch
// change every part's row.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { freshStore, noPg, pgUrl, sql } from './pg-context.js';

const GiB = 2 ** 30;
const nodes: ClusterNode[] = ['n0', 'n1', 'n2', 'n3'].map((id, k) => ({
  id,
  gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * GiB })),
  labels: { rack: k < 2 ? 'r1' : 'r2' },
}));
/** Too big for one node (160 GiB): two nodes × 2 GPUs at 50 GiB each. */
const BIG = { memory: 200 * GiB, model: 'big', topology: { preferred: ['rack'] } };

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const BLOCKERS: Array<[string, (db: pg.Client, schema: string, id: string) => Promise<unknown>]> = [
  ['waiting for the second node', (db, schema) => db.query(`SELECT 1 FROM ${schema}.nodes WHERE id = 'n3' FOR UPDATE`)],
  // The second part's key, inserted and not committed: the writer has written its first part and waits on this one.
  ['with its first part written', (db, schema, id) => db.query(`INSERT INTO ${schema}.slots (id, node, part, parts, gpus, memory_per_gpu) VALUES ($1, 'n3', 1, '[{},{}]', '{0}', 1)`, [id])],
];

describe.skipIf(noPg)('PostgresStore and slots across nodes', () => {
  let store: PostgresStore;
  let engine: Engine;
  let schema: string;
  beforeAll(async () => {
    ({ store, engine, schema } = await freshStore('multinode', nodes));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('stores the nodes labels and the slot as one row per part, and acts on every part', async () => {
    const state = await openClusterState(engine, store, { watch: false });
    const option = state.plan(BIG).options[0];
    expect(option.parts!.map((p) => p.node)).toEqual(['n0', 'n1']);
    const id = await state.commit(option, { lastActivity: 1000 });
    const db = await sql();
    try {
      const rows = await db.query(`SELECT node, part, gpus, memory_per_gpu, jsonb_array_length(parts) AS n FROM ${schema}.slots WHERE id = $1 ORDER BY part`, [id]);
      expect(rows.rows).toEqual([
        { node: 'n0', part: 0, gpus: [0, 1], memory_per_gpu: String(50 * GiB), n: 2 },
        { node: 'n1', part: 1, gpus: [0, 1], memory_per_gpu: String(50 * GiB), n: 2 },
      ]);
      expect((await store.load()).state.nodes[2].labels).toEqual({ rack: 'r2' });
      await state.markStale(id);
      await state.touch(id, 5000);
      const marked = await db.query(`SELECT stale, last_activity FROM ${schema}.slots WHERE id = $1`, [id]);
      expect(marked.rows).toEqual([
        { stale: true, last_activity: 5000 },
        { stale: true, last_activity: 5000 },
      ]);
      // A fresh replica reads it back as one slot across both nodes.
      const other = await openClusterState(engine, store, { watch: false });
      expect(other.listSlots().filter((s) => s.id === id)).toHaveLength(1);
      expect(other.listSlots('n1')[0].parts).toEqual(option.parts);
      await state.release(id);
      expect((await db.query(`SELECT 1 FROM ${schema}.slots WHERE id = $1`, [id])).rowCount).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('refuses the whole slot when a concurrent writer took a part first, leaving nothing on the other node', async () => {
    const one = await openClusterState(engine, store, { watch: false });
    const two = await openClusterState(engine, store, { watch: false });
    const option = one.plan(BIG).options[0];
    const taken = await two.commit({ node: 'n1', gpus: [1], memoryPerGpu: 40 * GiB, evict: [], score: 0 });
    const error = await one.commit(option).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).code).toBe('CONFLICT');
    expect((error as AllocationError).field).toBe('option.parts[1].gpus');
    const state = (await store.load()).state;
    expect(state.nodes.flatMap((n) => n.slots.map((s) => `${n.id}:${s.id}`))).toEqual([`n1:${taken}`]);
    // Re-planned: the other rack's pair.
    const retry = await one.commitWithRetry(BIG);
    expect(retry.plan.options[0].parts!.map((p) => p.node)).toEqual(['n2', 'n3']);
    await one.release(retry.committed!);
    await one.release(taken);
  });

  it('lets writers commit overlapping slots at once without deadlock or over-filling a GPU', async () => {
    const writers = await Promise.all([0, 1, 2, 3, 4, 5].map((k) => openClusterState(engine, store, { watch: false, replica: k })));
    const pairs = [
      ['n0', 'n1'],
      ['n1', 'n2'],
      ['n2', 'n3'],
      ['n3', 'n0'],
      ['n1', 'n3'],
      ['n2', 'n0'],
    ];
    const outcomes = await Promise.all(
      writers.map((w, k) => {
        const parts = pairs[k].map((node) => ({ node, gpus: [0, 1], memoryPerGpu: 50 * GiB }));
        return w.commit({ gpus: [], memoryPerGpu: 50 * GiB, evict: [], score: 0, parts }).then(
          (id) => id,
          (e: AllocationError) => e.code,
        );
      }),
    );
    // Every writer got an answer (a slot or CONFLICT): at most 2 slots fit on 4 nodes.
    expect(outcomes.every((o) => o === 'CONFLICT' || o.startsWith('slot-'))).toBe(true);
    const won = outcomes.filter((o) => o !== 'CONFLICT');
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length).toBeLessThanOrEqual(2);
    const db = await sql();
    try {
      expect((await db.query(`SELECT * FROM ${schema}.gpu_usage WHERE allocated > memory_total`)).rowCount).toBe(0);
      expect((await db.query(`SELECT count(*)::int AS n FROM ${schema}.slots`)).rows[0].n).toBe(2 * won.length);
    } finally {
      await db.end();
    }
    for (const id of won) await writers[0].release(id);
  });

  it.each(BLOCKERS)('a connection killed mid-commit (%s) leaves no part of the slot', async (_, block) => {
    const app = `gpualloc-multinode-${Math.random().toString(36).slice(2)}`;
    // One try only: the killed connection is not tried again, so what it left is what we see.
    const writerStore = await PostgresStore.connect(pgUrl, { schema, applicationName: app, retryMs: 0 });
    const writer = await openClusterState(engine, writerStore, { watch: false });
    const parts = ['n0', 'n3'].map((node) => ({ node, gpus: [0, 1], memoryPerGpu: 50 * GiB }));
    const option = { gpus: [], memoryPerGpu: 50 * GiB, evict: [], score: 0, model: 'big', parts };
    const id = `killed-${app}`;
    const before = await store.load();
    const blocker = await sql();
    const watcher = await sql();
    try {
      await blocker.query('BEGIN');
      await block(blocker, schema, id);
      const pending = writer.commit(option, { id }).then(
        () => 'committed',
        (e: AllocationError) => e.code,
      );
      await until('the writer to wait on the lock', async () => {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND xact_start IS NOT NULL`, [app]);
        return r.rowCount! > 0 ? true : undefined;
      });
      await watcher.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [app]);
      expect(await pending).toBe('STORE_UNAVAILABLE');
      await blocker.query('ROLLBACK');
      await until('the writer backend to go', async () => {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [app]);
        return r.rowCount === 0 ? true : undefined;
      });
      expect(await store.load()).toEqual(before);
      expect((await watcher.query(`SELECT 1 FROM ${schema}.slots WHERE id = $1`, [id])).rowCount).toBe(0);
      // Nothing left locked or half-written: the same commit now lands, on both nodes.
      const next = await openClusterState(engine, store, { watch: false });
      expect(await next.commit(option, { id })).toBe(id);
      expect((await watcher.query(`SELECT node FROM ${schema}.slots WHERE id = $1 ORDER BY part`, [id])).rows.map((r) => r.node)).toEqual(['n0', 'n3']);
      expect(next.version('n0')).toBe(before.versions.n0 + 1);
      await next.release(id);
    } finally {
      await blocker.end().catch(() => undefined);
      await watcher.end();
      await writerStore.close();
    }
  });
});
