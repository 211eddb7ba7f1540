// The database's own guard for pods (migration 2), whoever writes: raw SQL that puts more CPU or
// host memory in a node's slots than the node has, or lowers a node's figure below what its slots
// hold, is refused at COMMIT with a message naming the node, the sum and the limit, and leaves
// nothing; a node whose figure is NULL is not tracked; a slot without GPUs must hold CPU or host
// memory and no share; the share is 1..1000.

import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../../src/store/postgres.js';
import { freshStore, noPg, sql } from './pg-context.js';

const G = 2 ** 30;

describe.skipIf(noPg)('slots_within_node trigger', () => {
  let store: PostgresStore | undefined;
  let db: pg.Client | undefined;
  let schema = '';
  beforeEach(async () => {
    const fresh = await freshStore('pod_trigger', [
      { id: 'n', gpus: [{ index: 0, memoryTotal: 80 * G }], cpu: 8000, hostMemory: 16 * G },
      { id: 'free', gpus: [], slots: [] },
    ]);
    store = fresh.store;
    schema = fresh.schema;
    db = await sql();
  });
  afterEach(async () => {
    await db?.end();
    await store?.close();
  });

  /** Inserts slots in one transaction; resolves to the error message, or 'ok' once committed. */
  async function insert(rows: Array<{ id: string; node: string; gpus?: number[]; memory?: number; milli?: number | null; cpu?: number | null; host?: number | null }>): Promise<string> {
    try {
      await db!.query('BEGIN');
      for (const r of rows) {
        await db!.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu, milli, cpu, host_memory) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
          r.id,
          r.node,
          r.gpus ?? [],
          r.memory ?? 0,
          r.milli ?? null,
          r.cpu ?? null,
          r.host ?? null,
        ]);
      }
      await db!.query('COMMIT');
      return 'ok';
    } catch (error) {
      await db!.query('ROLLBACK');
      return (error as Error).message;
    }
  }

  const slotIds = async () => (await db!.query(`SELECT id FROM ${schema}.slots ORDER BY id`)).rows.map((r) => r.id);

  it("refuses CPU over the node's, in one insert or summed over several, and keeps nothing", async () => {
    expect(await insert([{ id: 'a', node: 'n', cpu: 8001 }])).toBe('gpualloc: the slots of node n would hold 8001 milli-CPU, more than its 8000 milli-CPU');
    expect(
      await insert([
        { id: 'a', node: 'n', cpu: 5000 },
        { id: 'b', node: 'n', gpus: [0], memory: G, milli: 12, cpu: 3500 },
      ]),
    ).toBe('gpualloc: the slots of node n would hold 8500 milli-CPU, more than its 8000 milli-CPU');
    expect(await slotIds()).toEqual([]);
    expect(
      await insert([
        { id: 'a', node: 'n', cpu: 5000 },
        { id: 'b', node: 'n', gpus: [0], memory: G, milli: 12, cpu: 3000 },
      ]),
    ).toBe('ok');
    expect(await insert([{ id: 'c', node: 'n', cpu: 1 }])).toBe('gpualloc: the slots of node n would hold 8001 milli-CPU, more than its 8000 milli-CPU');
    // Moving CPU onto a full node by UPDATE is checked too.
    await db!.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu, cpu) VALUES ('d', 'free', '{}', 0, 1)`);
    await expect(db!.query(`UPDATE ${schema}.slots SET node = 'n' WHERE id = 'd'`)).rejects.toThrow('would hold 8001 milli-CPU, more than its 8000');
    expect(await slotIds()).toEqual(['a', 'b', 'd']);
  });

  it("refuses host memory over the node's, and a node lowered below what its slots hold", async () => {
    expect(
      await insert([
        { id: 'a', node: 'n', host: 10 * G },
        { id: 'b', node: 'n', host: 6 * G + 1 },
      ]),
    ).toBe(`gpualloc: the slots of node n would hold ${16 * G + 1} bytes of host memory, more than its ${16 * G} bytes`);
    expect(await slotIds()).toEqual([]);
    expect(await insert([{ id: 'a', node: 'n', host: 10 * G, cpu: 2000 }])).toBe('ok');
    await expect(db!.query(`UPDATE ${schema}.nodes SET host_memory = $1 WHERE id = 'n'`, [10 * G - 1])).rejects.toThrow(`would hold ${10 * G} bytes of host memory, more than its ${10 * G - 1} bytes`);
    await expect(db!.query(`UPDATE ${schema}.nodes SET cpu = 1999 WHERE id = 'n'`)).rejects.toThrow('would hold 2000 milli-CPU, more than its 1999 milli-CPU');
    expect((await db!.query(`SELECT cpu::float8 AS cpu, host_memory::float8 AS host FROM ${schema}.nodes WHERE id = 'n'`)).rows).toEqual([{ cpu: 8000, host: 16 * G }]);
  });

  it('a node with NULL cpu and host_memory tracks neither; a GPU-less slot needs CPU or host memory and no share', async () => {
    expect(await insert([{ id: 'big', node: 'free', cpu: 2 ** 40, host: 2 ** 50 }])).toBe('ok');
    expect(await insert([{ id: 'empty', node: 'free' }])).toMatch(/violates check constraint "slots_holds_something"/);
    expect(await insert([{ id: 'share', node: 'free', milli: 10, cpu: 1 }])).toMatch(/violates check constraint "slots_holds_something"/);
    expect(await insert([{ id: 'mem', node: 'n', gpus: [], memory: 5, cpu: 1 }])).toMatch(/violates check constraint "slots_holds_something"/);
    expect(await insert([{ id: 'zero', node: 'n', gpus: [0], memory: 0, cpu: 1 }])).toMatch(/violates check constraint "slots_holds_something"/);
    expect(await insert([{ id: 'milli', node: 'n', gpus: [0], memory: G, milli: 1001 }])).toMatch(/violates check constraint "slots_milli_check"/);
    expect(await insert([{ id: 'neg', node: 'n', cpu: -1 }])).toMatch(/violates check constraint "slots_cpu_check"/);
    expect(await slotIds()).toEqual(['big']);
  });

  it('a raw transaction that inserted before a store commit, but commits after it, is the one refused', async () => {
    // The raw insert is not yet visible to the store, whose own check therefore passes; the deferred
    // trigger runs at each COMMIT under the node's lock and sees both, so the later COMMIT fails.
    await db!.query('BEGIN');
    await db!.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu, cpu) VALUES ('raw', 'n', '{}', 0, 6000)`);
    const outcome = await store!.commit({ node: 'n', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 4000 }, { id: 'stored' });
    expect(outcome.error).toBeUndefined();
    await expect(db!.query('COMMIT')).rejects.toThrow('gpualloc: the slots of node n would hold 10000 milli-CPU, more than its 8000 milli-CPU');
    expect(await slotIds()).toEqual(['stored']);
    expect((await store!.load()).state.nodes[0].slots).toEqual([{ id: 'stored', gpus: [], memoryPerGpu: 0, cpu: 4000 }]);
  });
});
