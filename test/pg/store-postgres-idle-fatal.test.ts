// A server that dies while a connection is idle sends that connection a FATAL no query is waiting
// for. node-postgres emits it as an 'error' event on the client; with no listener there, the event
// is an uncaught exception that ends the process. These tests put the FATAL at the exact moments a
// crash can find a store's connections idle: in the same read as the first ReadyForQuery of a new
// pooled connection (before any code that awaited the connection has run), on idle pooled
// connections, and on the LISTEN connection. Each time the store must treat it as a lost connection
// (drop it, connect again, go on), and the process must live.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { FaultProxy } from './fault-proxy.js';
import { freshStore, noPg, pgUrl, runWriter } from './pg-context.js';

const GiB = 2 ** 30;
const PROBE = join(import.meta.dirname, '..', 'fixtures', 'store-idle-fatal.mjs');

/** The suite server's Unix socket, from its URL (host=dir, port). */
function socketOf(url: string): string {
  const u = new URL(url);
  return join(u.searchParams.get('host')!, `.s.PGSQL.${u.searchParams.get('port') ?? '5432'}`);
}

describe.skipIf(noPg)('PostgresStore: a FATAL on an idle connection (a server that died) is a lost connection, never an uncaught error', () => {
  let proxy: FaultProxy;
  let schema: string;
  let engine: Engine;
  beforeAll(async () => {
    proxy = await FaultProxy.start({ path: socketOf(pgUrl) });
    const made = await freshStore('idlefatal', [
      {
        id: 'n0',
        gpus: [
          { index: 0, memoryTotal: 80 * GiB },
          { index: 1, memoryTotal: 80 * GiB },
        ],
      },
    ]);
    schema = made.schema;
    engine = made.engine;
    await made.store.close();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const viaProxy = () => `postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${schema}`;

  it("a FATAL in the same read as a new connection's first ReadyForQuery: the store connects again and the commit lands", async () => {
    // In a process of its own: before the fix the event ended that process (exit 1, the FATAL on stderr).
    const fatalsBefore = proxy.fatals;
    proxy.armFatalAfterReady(3);
    const lines = await runWriter<{ ok: boolean; id?: string; retries: number; code?: string }>(PROBE, { url: viaProxy(), schema, commits: 4 }).finally(() => proxy.disarm());
    expect(proxy.fatals - fatalsBefore).toBe(3);
    expect(lines.map((l) => l.ok)).toEqual([true, true, true, true]);
    // The store counted them as lost connections it tried again.
    expect(lines.at(-1)!.retries).toBeGreaterThanOrEqual(1);
  });

  it('FATALs on every idle pooled connection and on the LISTEN connection: the store and its listener go on', async () => {
    const store = await PostgresStore.open(viaProxy(), { schema, maxConnections: 3, retryMs: 20_000 });
    const state = await openClusterState(engine, store, { watch: true });
    try {
      const first = await state.commit({ node: 'n0', gpus: [0], memoryPerGpu: GiB, evict: [], score: 0 });
      // Every link the proxy holds now is idle (no statement in flight): the pool's and the LISTEN one.
      expect(proxy.fatalToIdle()).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 200));
      const second = await state.commit({ node: 'n0', gpus: [1], memoryPerGpu: GiB, evict: [], score: 0 });
      expect(state.listSlots('n0').map((s) => s.id)).toEqual(expect.arrayContaining([first, second]));
      // The listener subscribed again (it heard the FATAL as a lost connection).
      await expect.poll(() => store.stats().resubscribes, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      await state.release(first);
      await state.release(second);
    } finally {
      await state.close();
      await store.close();
    }
  });
});
