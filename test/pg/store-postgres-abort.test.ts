// AbortSignal on a PostgresStore's waits: while the server cannot be reached, a commit (and
// commitWithRetry) pauses between tries for up to retryMs; its signal ends the wait at once with the
// caller's AbortError, and nothing was changed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { FaultProxy } from './fault-proxy.js';
import { freshStore, noPg, pgUrl } from './pg-context.js';

const GiB = 2 ** 30;

describe.skipIf(noPg)('PostgresStore: an AbortSignal ends the wait for an unreachable server', () => {
  let proxy: FaultProxy;
  let schema: string;
  let engine: Engine;
  beforeAll(async () => {
    const u = new URL(pgUrl);
    proxy = await FaultProxy.start({ path: join(u.searchParams.get('host')!, `.s.PGSQL.${u.searchParams.get('port') ?? '5432'}`) });
    const made = await freshStore('abort', [{ id: 'n0', gpus: [{ index: 0, memoryTotal: 80 * GiB }] }]);
    ({ schema, engine } = made);
    await made.store.close();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('commitWithRetry, the server refusing connections: aborted after 300 ms, it rejects at once with the AbortError; nothing committed', async () => {
    const store = await PostgresStore.open(`postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${schema}`, { retryMs: 60_000, connectTimeoutMs: 2_000 });
    const state = await openClusterState(engine, store, { watch: false });
    try {
      proxy.refuse(true);
      proxy.dropAll();
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort(), 300);
      await expect(state.commitWithRetry({ memory: GiB, tensorParallelSizes: [1] }, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
      // Promptly: the backoff pause ends with the abort, far inside retryMs (60 s).
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(store.stats().retries).toBeGreaterThanOrEqual(1);
    } finally {
      proxy.refuse(false);
    }
    expect((await store.load()).state.nodes[0].slots).toEqual([]);
    await state.close();
    await store[Symbol.asyncDispose]();
    await store.close();
  });
});
