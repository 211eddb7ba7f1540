// Issue 21, point 5: a writer killed with SIGKILL mid-commit leaves no partial slot. The test holds
// a lock the writer's commit needs, so the kill lands inside its transaction every time: either
// waiting for the node row, or inside the write itself (after locking the node, with the eviction
// and the insert under way). Afterwards the evicted slot is still there, the new one is not, the
// node's version has not moved, and the next writer commits the same option at once.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { PlacementOption } from '../../src/placement/index.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { freshStore, noPg, pgUrl, sql } from './pg-context.js';

const GiB = 2 ** 30;
const WRITER = join(import.meta.dirname, '..', 'fixtures', 'store-writer.mjs');

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
  ['waiting for the node row', (db, schema) => db.query(`SELECT 1 FROM ${schema}.nodes WHERE id = 'n0' FOR UPDATE`)],
  // The same slot ID, inserted on another node and not committed: the writer's insert waits on the key.
  ['inside the write (eviction and insert under way)', (db, schema, id) => db.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ($1, 'n1', '{0}', 1)`, [id])],
];

describe.skipIf(noPg)('PostgresStore and a writer killed mid-commit', () => {
  let store: PostgresStore;
  let engine: Engine;
  let schema: string;
  beforeAll(async () => {
    const nodes = ['n0', 'n1'].map((id) => ({ id, gpus: [{ index: 0, memoryTotal: 80 * GiB }] }));
    ({ store, engine, schema } = await freshStore('kill', nodes));
  });
  afterAll(async () => {
    await store?.close();
  });

  it.each(BLOCKERS)('SIGKILL %s leaves no partial slot', async (_, block) => {
    const state = await openClusterState(engine, store, { watch: false });
    const victim = await state.commit({ node: 'n0', gpus: [0], memoryPerGpu: 60 * GiB, model: 'old', evict: [], score: 0 });
    await state.markStale(victim);
    const option: PlacementOption = { node: 'n0', model: 'new', gpus: [0], memoryPerGpu: 70 * GiB, evict: [victim], score: 0 };
    const id = `killed-${victim}`;
    const app = `gpualloc-kill-${victim}`;
    const before = await store.load();
    const blocker = await sql();
    const watcher = await sql();
    try {
      await blocker.query('BEGIN');
      await block(blocker, schema, id);
      const child = spawn(process.execPath, [WRITER], {
        env: { ...process.env, GPUALLOC_WRITER: JSON.stringify({ url: pgUrl, schema, mode: 'one', option, id, applicationName: app }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      // The writer's commit is inside its transaction, blocked on our lock.
      await until('the writer to wait on the lock', async () => {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND xact_start IS NOT NULL`, [app]);
        return r.rowCount! > 0 ? true : undefined;
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(out).not.toContain('"ok":true');
      await blocker.query('ROLLBACK');
      // The server notices the dead client once the lock is free, and rolls its transaction back.
      await until('the writer backend to go', async () => {
        const r = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [app]);
        return r.rowCount === 0 ? true : undefined;
      });
      const after = await store.load();
      expect(after).toEqual(before);
      const slots = await watcher.query(`SELECT id, stale FROM ${schema}.slots WHERE node = 'n0' OR id = $1 ORDER BY added`, [id]);
      expect(slots.rows.find((r) => r.id === id)).toBeUndefined();
      expect(slots.rows.find((r) => r.id === victim)).toEqual({ id: victim, stale: true });
      expect((await watcher.query(`SELECT * FROM ${schema}.gpu_usage WHERE allocated > memory_total`)).rowCount).toBe(0);
      // Nothing is left locked or half-written: the same commit now lands, bumping the version once.
      const next = await openClusterState(engine, store, { watch: false });
      expect(await next.commit(option, { id })).toBe(id);
      expect(next.version('n0')).toBe(before.versions.n0 + 1);
      expect(next.listSlots('n0').map((s) => s.id)).toEqual([id]);
      await next.release(id);
    } finally {
      await blocker.end().catch(() => undefined);
      await watcher.end();
    }
  });
});
