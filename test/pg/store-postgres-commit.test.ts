// PostgresStore: a commit re-validates against the rows it locks; the loser of a race gets CONFLICT
// with the fresh state loaded, and commitWithRetry re-plans onto what is left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { PostgresStore as Store } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { freshStore, noPg, pgUrl, sql, uniformNodes } from './pg-context.js';

const GiB = 2 ** 30;

describe.skipIf(noPg)('PostgresStore commit', () => {
  let store: PostgresStore;
  let engine: Engine;
  let schema: string;
  beforeAll(async () => {
    ({ store, engine, schema } = await freshStore('commit', uniformNodes(2, 2, 80 * GiB)));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('lets the first writer win and gives the second CONFLICT with the fresh state, then a retry lands elsewhere', async () => {
    const a = await openClusterState(engine, store, { watch: false });
    const b = await openClusterState(engine, store, { watch: false });
    const planA = a.plan({ memory: 60 * GiB, tensorParallelSizes: [1] });
    const planB = b.plan({ memory: 60 * GiB, tensorParallelSizes: [1] });
    expect(planB.options[0]).toEqual(planA.options[0]);
    const won = await a.commit(planA.options[0]);
    expect(won).toBe('slot-1');
    const lost = await b.commit(planB.options[0]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(lost).toBeInstanceOf(AllocationError);
    expect((lost as AllocationError).code).toBe('CONFLICT');
    // b loaded the winner's slot before the error reached it.
    expect(b.listSlots().map((s) => s.id)).toEqual(['slot-1']);
    const retry = await b.commitWithRetry({ memory: 60 * GiB, tensorParallelSizes: [1] });
    expect(retry.committed).toBe('slot-2');
    expect(retry.plan.options[0]).not.toEqual(planA.options[0]);
    const rows = await sql();
    try {
      const slots = await rows.query(`SELECT id, node, gpus, memory_per_gpu FROM ${schema}.slots ORDER BY added`);
      expect(slots.rows).toEqual([
        { id: 'slot-1', node: planA.options[0].node, gpus: planA.options[0].gpus, memory_per_gpu: String(60 * GiB) },
        { id: 'slot-2', node: retry.plan.options[0].node, gpus: retry.plan.options[0].gpus, memory_per_gpu: String(60 * GiB) },
      ]);
      const versions = await rows.query(`SELECT id, version FROM ${schema}.nodes ORDER BY id`);
      const bumped = Object.fromEntries(versions.rows.map((r) => [r.id, Number(r.version)]));
      expect(bumped[planA.options[0].node!]).toBe(a.version(planA.options[0].node!));
    } finally {
      await rows.end();
    }
  });

  it('commits an eviction of a stale slot and the new slot together, and the local copy matches the store', async () => {
    const a = await openClusterState(engine, store, { watch: false });
    const filler = await a.commitWithRetry({ memory: 4 * 70 * GiB, tensorParallelSizes: [4] }).then((r) => r);
    expect(filler.committed).toBeUndefined(); // 4 GPUs of 80 GiB with two slots of 60 already: no 70 GiB each
    const before = (await store.load()).state;
    const victim = before.nodes.flatMap((n) => n.slots)[0];
    await a.markStale(victim.id);
    const plan = a.plan({ memory: 70 * GiB, tensorParallelSizes: [1], model: 'other' });
    const evicting = plan.options.find((o) => o.evict.includes(victim.id));
    expect(evicting).toBeDefined();
    const id = await a.commit(evicting!, { lastActivity: 1234 });
    const after = await store.load();
    expect(after.state.nodes.flatMap((n) => n.slots).map((s) => s.id)).not.toContain(victim.id);
    expect(a.toJSON().nodes).toEqual(after.state.nodes);
    expect(after.state.nodes.flatMap((n) => n.slots).find((s) => s.id === id)).toMatchObject({ lastActivity: 1234, memoryPerGpu: 70 * GiB });
  });

  it('refuses unknown nodes, slots and taken IDs by name, changing nothing', async () => {
    const a = await openClusterState(engine, store, { watch: false });
    const before = await store.load();
    await expect(a.commit({ node: 'nope', gpus: [0], memoryPerGpu: 1, evict: [], score: 0 })).rejects.toMatchObject({ code: 'UNKNOWN_NODE', field: 'option.node' });
    await expect(a.release('slot-999')).rejects.toMatchObject({ code: 'UNKNOWN_SLOT', field: 'slotId' });
    const existing = before.state.nodes.flatMap((n) => n.slots)[0].id;
    const other = before.state.nodes.find((n) => !n.slots.some((s) => s.id === existing))!;
    await expect(a.commit({ node: other.id, gpus: [0], memoryPerGpu: 1, evict: [], score: 0 }, { id: existing })).rejects.toMatchObject({ code: 'DUPLICATE_SLOT' });
    await expect(a.commit({ node: 'n0', gpus: [7], memoryPerGpu: 1, evict: [], score: 0 })).rejects.toMatchObject({ code: 'UNKNOWN_DEVICE_ID', field: 'option.gpus[0]' });
    expect(await store.load()).toEqual(before);
  });

  it('has the database itself refuse a slot that puts a GPU over its total, whoever writes it', async () => {
    const rows = await sql();
    try {
      await expect(rows.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ('raw', 'n0', '{0}', ${80 * GiB + 1})`)).rejects.toThrow(/would put/);
      await expect(rows.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ('raw', 'n0', '{5}', 1)`)).rejects.toThrow(/not each once/);
      const over = await rows.query(`SELECT * FROM ${schema}.gpu_usage WHERE allocated > memory_total`);
      expect(over.rowCount).toBe(0);
    } finally {
      await rows.end();
    }
  });

  it('gives up with STORE_UNAVAILABLE when another writer holds the node past lockTimeoutMs, changing nothing', async () => {
    const impatient = await Store.connect(pgUrl, { schema, lockTimeoutMs: 200 });
    const holder = await sql();
    try {
      const state = await openClusterState(engine, impatient, { watch: false });
      const before = await impatient.load();
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM ${schema}.nodes WHERE id = 'n1' FOR UPDATE`);
      const started = Date.now();
      await expect(state.commit({ node: 'n1', gpus: [1], memoryPerGpu: 1, evict: [], score: 0 })).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining('lockTimeoutMs'),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      await holder.query('ROLLBACK');
      expect(await impatient.load()).toEqual(before);
    } finally {
      await holder.end();
      await impatient.close();
    }
  });
});
