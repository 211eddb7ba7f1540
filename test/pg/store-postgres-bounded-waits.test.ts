// Every wait ends in a bounded time with a clear error and nothing half-written. A writer process
// stalls inside its commit, holding its node's lock (the proxy withholds its COMMIT, and the process
// is stopped with SIGSTOP): another writer's commit on that node fails with STORE_UNAVAILABLE naming
// lockTimeoutMs, one with a short statement bound names statementTimeoutMs, one that finds its only
// pooled connection busy names connectTimeoutMs and maxConnections, while other nodes commit at once.
// The server ends the stalled session after idleInTransactionTimeoutMs, freeing the node; the stalled
// writer, resumed, finds its COMMIT never landed and commits anew, so the rows hold exactly the
// commits reported done. A server that accepts connections and never answers ends in connectTimeoutMs.
// GPUALLOC_FAULT_RUNS runs of the stall (20 in CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import type { PlacementOption } from '../../src/placement/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FaultProxy, type Stall } from './fault-proxy.js';
import { checkRows, type Line, reported, startWriter } from './fault-writers.js';
import { freshSchema, noPg, pgUrl, sql, uniformNodes } from './pg-context.js';

const RUNS = Number(process.env.GPUALLOC_FAULT_RUNS ?? 1);

/** The error `promise` rejects with, as the fields a caller acts on. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; timeout?: unknown; outcome?: unknown; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof AllocationError)) throw error;
    return { code: error.code, timeout: error.details?.timeout, outcome: error.details?.outcome, message: error.message };
  }
  throw new Error('expected a rejection');
}

const on = (node: string, memoryPerGpu: number): PlacementOption => ({ node, gpus: [0], memoryPerGpu, evict: [], score: 0 });

describe.skipIf(noPg)('PostgresStore bounded waits', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await FaultProxy.start({ path: `${new URL(pgUrl).searchParams.get('host')}/.s.PGSQL.5432` });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it.each(Array.from({ length: RUNS }, (_, k) => k + 1))('run %i: a stalled writer holding a node costs the others lockTimeoutMs, statementTimeoutMs or connectTimeoutMs, not forever', async (run) => {
    const schema = freshSchema('stall');
    const engine = await openEngine({ backend: 'ts' });
    const direct = `${pgUrl}&schema=${schema}`;
    const seed = await PostgresStore.open(direct);
    await seed.init(engine.createClusterState({ nodes: uniformNodes(2, 1, 100) }));
    await seed.close();
    const stalled = new Promise<Stall>((resolve) => proxy.once('stall', resolve));
    proxy.arm('stall-commit');
    const requestId = `stalled-${run}`;
    const writer = startWriter({
      url: `postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${schema}`,
      schema,
      writer: 0,
      seed: run,
      watch: false,
      options: { idleInTransactionTimeoutMs: 1_500, retryMs: 20_000 },
      mode: 'one',
      option: on('n0', 50),
      requestId,
    });
    const stores: PostgresStore[] = [];
    const lines: Line[] = [];
    try {
      const stall = await stalled;
      writer.child.kill('SIGSTOP');
      const lock = await PostgresStore.open(direct, { lockTimeoutMs: 300 });
      const statement = await PostgresStore.open(direct, { lockTimeoutMs: 60_000, statementTimeoutMs: 300 });
      const pool = await PostgresStore.open(direct, { maxConnections: 1, lockTimeoutMs: 60_000, connectTimeoutMs: 300 });
      stores.push(lock, statement, pool);
      expect(await failure(lock.commit(on('n0', 10), { requestId: `lock-${run}` }))).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        timeout: 'lockTimeoutMs',
        outcome: 'none',
        message: expect.stringContaining('waited lockTimeoutMs (300 ms) for a node another writer holds'),
      });
      expect(await failure(statement.commit(on('n0', 10), { requestId: `statement-${run}` }))).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        timeout: 'statementTimeoutMs',
        outcome: 'none',
        message: expect.stringContaining('ran past statementTimeoutMs (300 ms)'),
      });
      // The pool's one connection waits for the node; a second call finds no free connection.
      const waiting = pool.commit(on('n0', 10), { requestId: `pooled-${run}` });
      expect(await failure(pool.commit(on('n1', 10), { requestId: `no-pool-${run}` }))).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        timeout: 'connectTimeoutMs',
        outcome: 'none',
        message: expect.stringContaining('all 1 pooled connection (maxConnections) stayed busy for connectTimeoutMs (300 ms)'),
      });
      // Another node is not held: it commits at once.
      const other = await lock.commit(on('n1', 10), { requestId: `other-${run}` });
      lines.push({ op: 'commit', ok: true, requestId: `other-${run}`, id: other.id });
      // The server ends the stalled session (idleInTransactionTimeoutMs), which frees the node: the waiting commit lands.
      await stall.ended;
      const pooled = await waiting;
      lines.push({ op: 'commit', ok: true, requestId: `pooled-${run}`, id: pooled.id });
      writer.child.kill('SIGCONT');
      const ended = await writer.stop();
      expect({ code: ended.code, stderr: ended.stderr }).toEqual({ code: 0, stderr: '' });
      const mine = ended.lines.find((l) => l.op === 'commit')!;
      // Resumed, it finds its COMMIT never landed (the server rolled it back) and commits anew.
      expect(mine).toMatchObject({ ok: true, requestId });
      expect(ended.lines.find((l) => l.op === 'stats')).toMatchObject({ ambiguous: 1, notLanded: 1, landed: 0 });
      lines.push(mine);
      for (const id of [`lock-${run}`, `statement-${run}`, `no-pool-${run}`]) lines.push({ op: 'commit', ok: false, requestId: id, outcome: 'none' });
      const db = await sql();
      try {
        await checkRows(db, schema, reported(lines));
      } finally {
        await db.end();
      }
    } finally {
      writer.child.kill('SIGCONT');
      if (writer.child.exitCode === null) writer.child.kill('SIGKILL');
      for (const s of stores) await s.close();
    }
  });

  it('a server that takes the connection and never answers ends in connectTimeoutMs', async () => {
    proxy.silent(true);
    try {
      expect(await failure(PostgresStore.open(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`, { connectTimeoutMs: 300, retryMs: 0 }))).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        timeout: 'connectTimeoutMs',
        message: expect.stringContaining('did not accept a connection within connectTimeoutMs (300 ms)'),
      });
    } finally {
      proxy.silent(false);
    }
  });
});
