// The lifecycle of schedulers, stored states and stores: close() and `using` / `await using`
// (Symbol.dispose, Symbol.asyncDispose), a state that does not keep a dropped pod scheduler alive
// (the garbage collector takes it, and with it its subscription), and AbortSignal on commitWithRetry
// and on the stores' waits (a lock another process holds): an AbortError at once, nothing changed.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { PodScheduler } from '../../src/fleet/scheduler.js';
import type { JsonFileStore } from '../../src/store/file.js';
import { withFileLock } from '../../src/store/file-lock.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { engines } from '../support/engines.js';
import { makeStore, removeStoreDirs } from '../support/stores.js';

const { ts, wasm } = await engines();
const G = 2 ** 30;
const NODES: ClusterNode[] = [
  { id: 'a', gpus: [0, 1].map((index) => ({ index, memoryTotal: 16 * G })), cpu: 16_000, hostMemory: 64 * G },
  { id: 'b', gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 16 * G })), cpu: 8000, hostMemory: 32 * G },
];
const POD = { id: 'p', cpu: 1000, memoryMiB: 1024, gpus: 1, milli: 500 };

// The garbage collector, for the tests that show what it may take (Node's flag, set at run time).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

afterEach(removeStoreDirs);

/**
 * Collects until every target of `refs` is gone (a few rounds), or gives up. deref() keeps its target
 * alive to the end of the current job, so each collection runs in a turn of its own, after the checks.
 */
async function collected(refs: ReadonlyArray<WeakRef<object>>): Promise<boolean> {
  const turn = () => new Promise((r) => setTimeout(r, 5));
  for (let k = 0; k < 20; k++) {
    await turn();
    gc();
    await turn();
    if (refs.every((ref) => ref.deref() === undefined)) return true;
  }
  return false;
}

describe('Symbol.dispose and Symbol.asyncDispose', () => {
  it("exist at run time as Node defines them (the keys TypeScript's `using` calls)", () => {
    expect(typeof Symbol.dispose).toBe('symbol');
    expect(typeof Symbol.asyncDispose).toBe('symbol');
    expect(Symbol.dispose).toBe(Symbol.for('nodejs.dispose'));
    expect(Symbol.asyncDispose).toBe(Symbol.for('nodejs.asyncDispose'));
  });
});

describe.each([
  ['ts', ts],
  ['wasm', wasm],
] as const)('lifecycle (%s backend)', (_, engine) => {
  it('a pod scheduler in a `using` block is closed at its end: used afterwards, an error naming it', () => {
    const state = engine.createClusterState({ nodes: NODES });
    let outside: PodScheduler;
    {
      using scheduler = state.podScheduler({ policy: 'bestfit' });
      outside = scheduler;
      expect(scheduler.plan(POD).options).toHaveLength(1);
    }
    expect(() => outside.plan(POD)).toThrow(/used after close\(\)/);
  });

  it('`await using` closes a stored state (and its pod schedulers) and a store; close() twice is harmless', async () => {
    let store: MemoryStore;
    let scheduler: ReturnType<Awaited<ReturnType<typeof openClusterState>>['podScheduler']>;
    {
      await using s = MemoryStore.create(engine, { nodes: NODES });
      store = s;
      await using state = await openClusterState(engine, s, { replica: 0 });
      scheduler = state.podScheduler({ policy: 'bestfit' });
      const r = await scheduler.commitWithRetry(POD);
      expect(r.committed).toBeDefined();
    }
    expect(() => scheduler.plan(POD)).toThrow(/used after close\(\)/);
    // The store closed: its listeners are gone, and a second close (or dispose) does nothing.
    await store.close();
    await store[Symbol.asyncDispose]();
    expect((await store.load()).state.nodes[0].slots.length + (await store.load()).state.nodes[1].slots.length).toBe(1);
  });

  it('a pod scheduler dropped without close() is not kept alive by its state, and the state keeps working', async () => {
    const state = engine.createClusterState({ nodes: NODES });
    const refs: Array<WeakRef<PodScheduler>> = [];
    for (let k = 0; k < 50; k++) refs.push(new WeakRef(state.podScheduler({ policy: 'bestfit' })));
    expect(await collected(refs)).toBe(true);
    // Later changes tell no one of the dropped ones, and a live scheduler still follows the state.
    using live = state.podScheduler({ policy: 'bestfit' });
    const option = live.plan(POD).options[0];
    state.commit(option);
    expect(live.view(option.node!).cpu).toBe(NODES.find((n) => n.id === option.node)!.cpu! - POD.cpu);
  });

  it('a stored pod scheduler dropped without close() is not kept alive by its stored state', async () => {
    const store = MemoryStore.create(engine, { nodes: NODES });
    const state = await openClusterState(engine, store, { replica: 0 });
    const ref = new WeakRef(state.podScheduler({ policy: 'bestfit' }));
    expect(await collected([ref])).toBe(true);
    await state.close();
  });
});

describe("AbortSignal on commitWithRetry and the stores' waits", () => {
  it('commitWithRetry with an aborted signal rejects with its AbortError and commits nothing (both kinds)', async () => {
    const store = MemoryStore.create(ts, { nodes: NODES });
    const state = await openClusterState(ts, store, { replica: 0, watch: false });
    const controller = new AbortController();
    controller.abort();
    await expect(state.commitWithRetry({ memory: G, tensorParallelSizes: [1] }, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(state.podScheduler({ policy: 'bestfit' }).commitWithRetry(POD, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    // The caller's own reason is what it rejects with.
    const mine = new Error('shutting down');
    await expect(state.commitWithRetry({ memory: G, tensorParallelSizes: [1] }, { signal: AbortSignal.abort(mine) })).rejects.toBe(mine);
    expect(state.listSlots()).toEqual([]);
    expect((await store.load()).state.nodes.flatMap((n) => n.slots)).toEqual([]);
    // Not a signal: an error naming the field.
    await expect(state.commitWithRetry({ memory: G, tensorParallelSizes: [1] }, { signal: { aborted: true } as unknown as AbortSignal })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'options.signal',
    });
    await expect(store.commit(state.plan({ memory: G, tensorParallelSizes: [1] }).options[0], { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a JsonFileStore commit waiting for a lock another holder keeps: aborted, it rejects at once, the file unchanged', async () => {
    const store = (await makeStore('file', ts, NODES)).store as JsonFileStore;
    const state = await openClusterState(ts, store, { replica: 0, watch: false });
    const before = await store.load();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    // Another holder of the file's lock (a second open file description: flock makes it wait like another process).
    const holder = withFileLock(store.path, async () => {
      locked();
      await held;
    });
    await holding;
    try {
      const controller = new AbortController();
      const started = performance.now();
      const commit = state.commitWithRetry({ memory: G, tensorParallelSizes: [1] }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await expect(commit).rejects.toMatchObject({ name: 'AbortError' });
      // At once: long before the store's lock timeout (10 s).
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      release();
      await holder;
    }
    expect(await store.load()).toEqual(before);
  });
});
