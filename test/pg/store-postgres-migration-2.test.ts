// Migration 1 → 2 (pods): a database that an earlier gpualloc made at schema version 1, holding nodes,
// GPUs (one with memory used elsewhere), slots (stale, with and without model and activity), node
// versions and a slot counter, is brought to version 2 and on to the package's (3: request IDs, 4: a GPU's MIG mode) by
// connect (once, even by 4 connects at the same time) and keeps every bit of that data; the new
// columns start NULL (untracked), pods commit on it afterwards, and the version-1 rules still hold.
// A database newer than the package is still refused.

import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { freshSchema, noPg, pgUrl, sql } from './pg-context.js';

const G = 2 ** 30;

/** Makes `schema` exactly as a gpualloc with only migration 1 did, and fills it with version-1 rows. */
async function versionOneDatabase(db: pg.Client, schema: string): Promise<void> {
  const s = pg.escapeIdentifier(schema);
  await db.query('BEGIN');
  await db.query(`CREATE SCHEMA ${s}`);
  await db.query(`CREATE TABLE ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  await db.query(MIGRATIONS[0].sql(s));
  await db.query(`INSERT INTO ${s}.migrations (version, name) VALUES (1, $1)`, [MIGRATIONS[0].name]);
  await db.query(`INSERT INTO ${s}.nodes (id, position, topology, version) VALUES ('dgx', 0, $1, 7), ('box', 1, NULL, 1)`, [JSON.stringify({ gpus: 2, links: [{ a: 0, b: 1, nvlink: 12 }] })]);
  await db.query(`INSERT INTO ${s}.gpus (node, index, position, memory_total, memory_used) VALUES ('dgx', 0, 0, $1, 0), ('dgx', 1, 1, $1, $2), ('box', 3, 0, $3, 0)`, [80 * G, 2 * G, 24 * G]);
  await db.query(
    `INSERT INTO ${s}.slots (id, node, gpus, memory_per_gpu, model, last_activity, stale) VALUES
    ('slot-1', 'dgx', '{0,1}', $1, 'llama-70b', 1700000000000, NULL),
    ('slot-2', 'box', '{3}', $2, NULL, NULL, true),
    ('mine', 'dgx', '{0}', $3, 'embed', NULL, NULL)`,
    [35 * G, 10 * G, 4 * G],
  );
  await db.query(`SELECT setval($1, 2, true)`, [`${schema}.slot_id`]);
  await db.query('COMMIT');
}

/** The state those rows describe, as toJSON writes it. */
const VERSION_ONE_STATE = {
  version: 1,
  nextSlot: 3,
  nodes: [
    {
      id: 'dgx',
      gpus: [
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 2 * G },
      ],
      topology: { gpus: 2, links: [{ a: 0, b: 1, nvlink: 12 }] },
      slots: [
        { id: 'slot-1', gpus: [0, 1], memoryPerGpu: 35 * G, model: 'llama-70b', lastActivity: 1700000000000 },
        { id: 'mine', gpus: [0], memoryPerGpu: 4 * G, model: 'embed' },
      ],
    },
    { id: 'box', gpus: [{ index: 3, memoryTotal: 24 * G }], slots: [{ id: 'slot-2', gpus: [3], memoryPerGpu: 10 * G, stale: true }] },
  ],
};

describe.skipIf(noPg)('PostgresStore migration 1 → 2', () => {
  it('a version-1 database migrates once on connect and keeps its nodes, GPUs, slots, versions and slot counter', async () => {
    expect(SCHEMA_VERSION).toBe(5);
    const schema = freshSchema('from_v1');
    const db = await sql();
    const engine = await openEngine({ backend: 'ts' });
    const stores: PostgresStore[] = [];
    try {
      await versionOneDatabase(db, schema);
      // Told not to migrate, a version-1 database is refused and left at version 1.
      await expect(PostgresStore.open(pgUrl, { schema, migrate: false })).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining(`is at version 1, this gpualloc needs ${SCHEMA_VERSION}`),
      });
      expect((await db.query(`SELECT max(version) AS v FROM ${schema}.migrations`)).rows[0].v).toBe(1);
      stores.push(...(await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open(pgUrl, { schema })))));
      expect((await db.query(`SELECT version, name FROM ${schema}.migrations ORDER BY version`)).rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      const store = stores[0];
      const loaded = await store.load();
      expect(loaded.state).toEqual(VERSION_ONE_STATE);
      expect(loaded.versions).toEqual({ dgx: 7, box: 1 });
      const cols = await db.query(`SELECT count(*)::integer AS n FROM ${schema}.nodes WHERE cpu IS NULL AND host_memory IS NULL AND gpu_model IS NULL`);
      expect(cols.rows[0].n).toBe(2);
      // The version-1 rules still hold: no GPU over its total.
      const over = await store.commit({ node: 'box', gpus: [3], memoryPerGpu: 15 * G, evict: [], score: 0 });
      expect(over.error?.code).toBe('CONFLICT');
      await expect(db.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ('raw', 'box', '{3}', $1)`, [15 * G])).rejects.toThrow(/would put .* bytes on GPU 3 of node box/);
      // Pods commit on the migrated nodes (CPU untracked there), and the slot counter goes on from 3.
      const pod = await store.commit({ node: 'dgx', gpus: [1], memoryPerGpu: Math.floor((100 * 80 * G) / 1000), milli: 100, cpu: 2000, hostMemory: G, evict: [], score: 0 });
      expect(pod.id).toBe('slot-3');
      const cpuOnly = await store.commit({ node: 'box', gpus: [], memoryPerGpu: 0, cpu: 500, evict: [], score: 0 });
      expect(cpuOnly.id).toBe('slot-4');
      const after = await store.load();
      expect(after.state.nodes[0].slots.slice(0, 2)).toEqual(VERSION_ONE_STATE.nodes[0].slots);
      expect(after.state.nodes[0].slots[2]).toEqual({ id: 'slot-3', gpus: [1], memoryPerGpu: Math.floor((100 * 80 * G) / 1000), milli: 100, cpu: 2000, hostMemory: G });
      expect(after.state.nodes[1].slots[1]).toEqual({ id: 'slot-4', gpus: [], memoryPerGpu: 0, cpu: 500 });
      expect(after.versions).toEqual({ dgx: 8, box: 2 });
      // The state reloads into a ClusterState as it is.
      expect(engine.restoreClusterState(after.state).toJSON()).toEqual(after.state);
      // A database newer than this gpualloc is still refused.
      await db.query(`INSERT INTO ${schema}.migrations (version, name) VALUES ($1, 'from the future')`, [SCHEMA_VERSION + 1]);
      await expect(PostgresStore.open(pgUrl, { schema })).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining(`is at version ${SCHEMA_VERSION + 1}, newer than this gpualloc's ${SCHEMA_VERSION}`),
      });
    } finally {
      await db.end();
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
