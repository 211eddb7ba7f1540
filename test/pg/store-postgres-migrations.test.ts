// PostgresStore's schema: created by the package through numbered migrations, recorded in
// <schema>.migrations, applied once even by concurrent connects, refused when newer than the package.
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { freshSchema, noPg, pgUrl, sql, uniformNodes } from './pg-context.js';

describe.skipIf(noPg)('PostgresStore migrations', () => {
  it('creates the schema at the package version once, even with 4 connects at the same time', async () => {
    const schema = freshSchema('migrate');
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open(pgUrl, { schema })));
    const db = await sql();
    try {
      const rows = await db.query(`SELECT version, name FROM ${schema}.migrations ORDER BY version`);
      expect(rows.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      expect(await stores[0].schemaVersion()).toBe(SCHEMA_VERSION);
      const tables = await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
      expect(tables.rows.map((r) => r.table_name)).toEqual(['gpu_usage', 'gpus', 'migrations', 'nodes', 'requests', 'slots']);
    } finally {
      await db.end();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('refuses a schema newer than the package, and one behind it when told not to migrate', async () => {
    const schema = freshSchema('newer');
    const store = await PostgresStore.open(pgUrl, { schema });
    await store.close();
    const db = await sql();
    try {
      await db.query(`INSERT INTO ${schema}.migrations (version, name) VALUES ($1, 'from the future')`, [SCHEMA_VERSION + 1]);
      await expect(PostgresStore.open(pgUrl, { schema })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`version ${SCHEMA_VERSION + 1}, newer`) });
    } finally {
      await db.end();
    }
    await expect(PostgresStore.open(pgUrl, { schema: freshSchema('behind'), migrate: false })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('version 0') });
  });

  it('init writes the nodes once: a second init is STORE_NOT_EMPTY and changes nothing, replace starts over', async () => {
    const engine = await openEngine({ backend: 'ts' });
    const store = await PostgresStore.open(pgUrl, { schema: freshSchema('init') });
    try {
      const first = engine.createClusterState({ nodes: uniformNodes(2, 2, 1000) });
      first.commit(first.plan({ memory: 500, tensorParallelSizes: [1] }).options[0]);
      await store.init(first);
      const loaded = await store.load();
      expect(loaded.state).toEqual(first.toJSON());
      expect(loaded.versions).toEqual({ n0: 1, n1: 1 });
      await expect(store.init(engine.createClusterState({ nodes: uniformNodes(1, 1, 5) }))).rejects.toMatchObject({ code: 'STORE_NOT_EMPTY' });
      expect((await store.load()).state).toEqual(first.toJSON());
      const second = engine.createClusterState({ nodes: uniformNodes(1, 1, 5) });
      await store.init(second, { replace: true });
      expect((await store.load()).state).toEqual(second.toJSON());
    } finally {
      await store.close();
    }
  });

  it('rejects a bad URL, schema name or option by name, and an unreachable server as STORE_UNAVAILABLE', async () => {
    await expect(PostgresStore.open('mysql://x/y')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'url' });
    await expect(PostgresStore.open(pgUrl, { schema: 'Robert"); DROP' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.schema' });
    await expect(PostgresStore.open(pgUrl, { shema: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.shema' });
    // retryMs 0: one try (a server that is down is otherwise waited for, 30 s by default).
    await expect(PostgresStore.open('postgres://nobody:not-a-password@localhost/none?host=/nonexistent-dir', { retryMs: 0 })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.not.stringContaining('not-a-password'),
    });
    await expect(PostgresStore.open('postgres://nobody:not-a-password@localhost/none?host=/nonexistent-dir', { retryMs: 300 })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringMatching(/could not be reached for [0-9]+ tries over [0-9]+ ms \(retryMs 300\).*nothing was changed$/),
    });
  });
});
