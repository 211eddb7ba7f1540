// Other replicas see changes through LISTEN/NOTIFY: a watching state loads a node another writer
// changed without calling the store itself, and one that does not watch catches up on conflict.
// A listener whose connection is lost subscribes again and reloads what it missed meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { PostgresStore as Store } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { FaultProxy } from './fault-proxy.js';
import { freshStore, noPg, pgUrl, uniformNodes } from './pg-context.js';

async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(noPg)('PostgresStore change notifications', () => {
  let store: PostgresStore;
  let engine: Engine;
  beforeAll(async () => {
    ({ store, engine } = await freshStore('notify', uniformNodes(3, 2, 100)));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('a watching replica loads commits, stale marks and releases made by another', async () => {
    const watching = await openClusterState(engine, store);
    const writer = await openClusterState(engine, store, { watch: false });
    const id = await writer.commit(writer.plan({ memory: 70, tensorParallelSizes: [1] }).options[0]);
    await eventually(() => watching.listSlots().some((s) => s.id === id));
    expect(watching.toJSON()).toEqual(writer.toJSON());
    await writer.markStale(id);
    await eventually(() => watching.listSlots().some((s) => s.id === id && s.stale === true));
    await writer.release(id);
    await eventually(() => watching.listSlots().length === 0);
    expect(watching.version('n0')).toBe(writer.version('n0'));
    // Its plans now see the freed GPU again.
    expect(watching.plan({ memory: 70, tensorParallelSizes: [1] }).options.map((o) => `${o.node}:${o.gpus}`)).toEqual(
      writer.plan({ memory: 70, tensorParallelSizes: [1] }).options.map((o) => `${o.node}:${o.gpus}`),
    );
    await watching.close();
    await writer.close();
  });

  it('a listener cut off (and refused for a while) subscribes again and reloads the changes it missed', async () => {
    const proxy = await FaultProxy.start({ path: `${new URL(pgUrl).searchParams.get('host')}/.s.PGSQL.5432` });
    const far = await Store.connect(`postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${store.schema}`, { retryMs: 10_000 });
    try {
      const watching = await openClusterState(engine, far);
      const writer = await openClusterState(engine, store, { watch: false });
      proxy.refuse(true);
      expect(proxy.dropAll()).toBeGreaterThan(0);
      // Changed while the listener is away: no notification reaches it.
      const id = await writer.commit(writer.plan({ memory: 30, tensorParallelSizes: [1] }).options[0]);
      expect(watching.listSlots().some((s) => s.id === id)).toBe(false);
      proxy.refuse(false);
      await eventually(() => watching.listSlots().some((s) => s.id === id));
      expect(far.stats().resubscribes).toBeGreaterThanOrEqual(1);
      expect(watching.listSlots()).toEqual(writer.listSlots());
      expect(watching.version('n0')).toBe(writer.version('n0'));
      // Subscribed again: later changes arrive as notifications.
      await writer.release(id);
      await eventually(() => !watching.listSlots().some((s) => s.id === id));
      await watching.close();
      await writer.close();
    } finally {
      await far.close();
      await proxy.close();
    }
  });
});
