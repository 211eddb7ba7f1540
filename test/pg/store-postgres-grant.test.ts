// Least privilege: the schema is created by a migration role (`gpualloc state init --grant ROLE`),
// and the run-time role it grants can plan, commit, mark and release through the CLI and the API,
// while the database's guard still checks its writes; it cannot alter, drop, create or truncate
// tables, change nodes' GPUs or resources, or migrate, and it is told so in words.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import { cli } from '../support/cli.js';
import { freshSchema, noPg, pgUrl, sql } from './pg-context.js';

describe.skipIf(noPg)('gpualloc state init --grant ROLE', () => {
  const owner = `gpualloc_owner_${process.pid}`;
  const app = `gpualloc_app_${process.pid}`;
  const schema = freshSchema('grant');
  const host = new URL(pgUrl).searchParams.get('host')!;
  const as = (role: string) => `postgres://${role}@localhost/postgres?host=${encodeURIComponent(host)}&port=5432&schema=${schema}`;
  let db: pg.Client;
  beforeAll(async () => {
    db = await sql();
    await db.query(`CREATE ROLE ${owner} LOGIN`);
    await db.query(`GRANT CREATE ON DATABASE postgres TO ${owner}`);
    await db.query(`CREATE ROLE ${app} LOGIN`);
  });
  afterAll(async () => {
    await db?.end();
  });

  it('the run-time role plans, commits, marks and releases, and cannot change the schema or the nodes', async () => {
    const init = await cli(['state', 'init', '--store', as(owner), '--preset', 'dgx-a100', '--grant', app]);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`granted role ${app} what plan, commit and release need (no DDL)`);
    const owned = await db.query(`SELECT tableowner FROM pg_tables WHERE schemaname = $1`, [schema]);
    expect(new Set(owned.rows.map((r) => r.tableowner))).toEqual(new Set([owner]));

    const plan = await cli(['plan', '--memory', '140GiB', '--commit', '--json', '--store', as(app)]);
    expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
    const slot = JSON.parse(plan.stdout).committed as string;
    expect((await cli(['state', 'stale', slot, '--store', as(app)])).code).toBe(0);
    expect((await cli(['state', 'touch', slot, '--store', as(app)])).code).toBe(0);
    expect((await cli(['state', 'gc', '--older-than', '1d', '--store', as(app)])).code).toBe(0);
    expect((await cli(['state', 'list', '--store', as(app)])).code).toBe(0);
    expect((await cli(['state', 'release', slot, '--request-id', 'r1', '--store', as(app)])).code).toBe(0);
    // The API too, with change notifications.
    const store = await PostgresStore.open(as(app));
    try {
      const done = await store.commit({ node: 'dgx-a100', gpus: [0], memoryPerGpu: 2 ** 30, evict: [], score: 0 });
      await store.release(done.id!);
    } finally {
      await store.close();
    }

    const client = new pg.Client({ connectionString: as(app).replace(/&schema=.*/, '') });
    await client.connect();
    try {
      const denied = async (text: string) => {
        const error = await client.query(text).then(
          () => undefined,
          (e: { code?: string }) => e,
        );
        return { text, code: error?.code };
      };
      for (const text of [
        `ALTER TABLE ${schema}.slots ADD COLUMN x integer`,
        `DROP TABLE ${schema}.requests`,
        `CREATE TABLE ${schema}.extra (x integer)`,
        `TRUNCATE ${schema}.slots`,
        `UPDATE ${schema}.gpus SET memory_total = memory_total * 2`,
        `UPDATE ${schema}.nodes SET cpu = 1`,
        `INSERT INTO ${schema}.nodes (id, position) VALUES ('rogue', 99)`,
        `DELETE FROM ${schema}.migrations`,
      ])
        expect(await denied(text)).toEqual({ text, code: '42501' });
      // Its writes still meet the database's guard: a slot over the GPU's total is refused by the trigger, not by privileges.
      const over = await denied(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ('raw', 'dgx-a100', '{0}', ${1000 * 2 ** 30})`);
      expect(over).toMatchObject({ code: '23514' });
    } finally {
      await client.end();
    }
    // Creating or replacing the state is the migration role's: the run-time role is told what it lacks.
    const replace = await cli(['state', 'init', '--store', as(app), '--preset', 'dgx-a100', '--replace', '--json']);
    expect(replace.code).toBe(2);
    expect(JSON.parse(replace.stdout).error.message).toContain(`role ${app} lacks a privilege`);
    // And a run-time role never migrates: a schema behind the package is refused, not altered.
    const behind = freshSchema('grant_behind');
    await db.query(`CREATE SCHEMA ${behind} AUTHORIZATION ${owner}`);
    await db.query(`GRANT USAGE ON SCHEMA ${behind} TO ${app}`);
    const migrate = await cli(['state', 'list', '--json', '--store', as(app).replace(schema, behind)]);
    expect(migrate.code).toBe(2);
    expect(JSON.parse(migrate.stdout).error.message).toMatch(/lacks a privilege|permission denied/);
  });

  it('an unknown role is refused by name, granting nothing', async () => {
    const r = await cli(['state', 'init', '--store', as(owner), '--grant', 'no_such_role', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('role "no_such_role" does not exist') });
  });
});
