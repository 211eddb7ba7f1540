// MemoryStore: two StoredClusterStates on one store behave like replicas on one database: each plans
// on its own copy, the store's commit arbitrates, the loser gets CONFLICT with the fresh node loaded.
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openClusterState } from '../../src/store/stored-state.js';

const nodes = ['a', 'b'].map((id) => ({ id, gpus: [0, 1].map((index) => ({ index, memoryTotal: 100 })) }));

describe('MemoryStore', () => {
  it("the second of two replicas committing the same option gets CONFLICT and the winner's slot", async () => {
    const engine = await openEngine({ backend: 'ts' });
    const store = MemoryStore.create(engine, { nodes });
    const one = await openClusterState(engine, store, { watch: false });
    const two = await openClusterState(engine, store, { watch: false });
    const request = { memory: 80, tensorParallelSizes: [1] };
    const option = one.plan(request).options[0];
    expect(two.plan(request).options[0]).toEqual(option);
    expect(await one.commit(option)).toBe('slot-1');
    const error = await two.commit(option).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).code).toBe('CONFLICT');
    expect(two.toJSON().nodes).toEqual(one.toJSON().nodes);
    const retry = await two.commitWithRetry(request);
    expect(retry).toMatchObject({ committed: 'slot-2', attempts: 1, conflicts: 0 });
    expect(retry.plan.options[0].gpus.join() + retry.plan.options[0].node).not.toBe(option.gpus.join() + option.node);
    expect((await store.load()).state.nodes.flatMap((n) => n.slots).map((s) => s.id)).toEqual(['slot-1', 'slot-2']);
  });

  it('commitWithRetry re-plans after a conflict, and reports CONFLICT as a reason when every attempt loses', async () => {
    const engine = await openEngine({ backend: 'ts' });
    const store = MemoryStore.create(engine, { nodes });
    const mine = await openClusterState(engine, store, { watch: false });
    const other = await openClusterState(engine, store, { watch: false });
    // `other` fills the GPU `mine` would pick, behind mine's back: mine's first attempt conflicts, its second lands elsewhere.
    const first = mine.plan({ memory: 80, tensorParallelSizes: [1] }).options[0];
    await other.commit(first);
    const result = await mine.commitWithRetry({ memory: 80, tensorParallelSizes: [1] }, { id: 'mine' });
    expect(result).toMatchObject({ committed: 'mine', attempts: 2, conflicts: 1 });
    // A store whose every commit is lost: a store wrapper that lets `other` win each race first.
    const racing = Object.create(store) as MemoryStore;
    racing.commit = async (option, options) => {
      await store.commit({ ...option, evict: [] });
      return store.commit(option, options);
    };
    const loser = await openClusterState(engine, racing, { watch: false });
    const lost = await loser.commitWithRetry({ memory: 60, tensorParallelSizes: [1] }, { attempts: 2 });
    expect(lost.committed).toBeUndefined();
    expect(lost).toMatchObject({ attempts: 2, conflicts: 2, reason: { code: 'CONFLICT' } });
    // Nothing fits: an empty plan with its reason, not an error, after one attempt.
    const none = await loser.commitWithRetry({ memory: 1000, tensorParallelSizes: [1] });
    expect(none).toMatchObject({ attempts: 1, conflicts: 0, reason: { code: 'NO_VIABLE_OPTION' } });
  });

  it("a watching replica sees another's release and stale mark; unknown slots are UNKNOWN_SLOT by name", async () => {
    const engine = await openEngine({ backend: 'ts' });
    const store = MemoryStore.create(engine, { nodes });
    const watching = await openClusterState(engine, store);
    const writer = await openClusterState(engine, store, { watch: false });
    const id = await writer.commit(writer.plan({ memory: 50 }).options[0]);
    await writer.markStale(id);
    await new Promise((r) => setTimeout(r, 0));
    await watching.settled();
    expect(watching.listSlots()).toEqual([expect.objectContaining({ id, stale: true })]);
    await writer.release(id);
    await new Promise((r) => setTimeout(r, 0));
    await watching.settled();
    expect(watching.listSlots()).toEqual([]);
    await expect(writer.release(id)).rejects.toMatchObject({ code: 'UNKNOWN_SLOT', field: 'slotId' });
    await expect(writer.markStale('nope')).rejects.toMatchObject({ code: 'UNKNOWN_SLOT' });
    await watching.close();
  });

  it('names unknown or malformed options instead of ignoring them', async () => {
    const engine = await openEngine({ backend: 'ts' });
    const store = MemoryStore.create(engine, { nodes });
    await expect(openClusterState(engine, store, { wach: false } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.wach' });
    await expect(openClusterState(engine, store, { watch: 'no' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.watch' });
    await expect(openClusterState(engine, store, { replica: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.replica' });
    const state = await openClusterState(engine, store, { watch: false });
    await expect(state.commitWithRetry({ memory: 10 }, { attempt: 3 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.attempt' });
    await expect(state.commitWithRetry({ memory: 10 }, { attempts: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.attempts' });
    expect((await store.load()).state.nodes.flatMap((n) => n.slots)).toEqual([]);
  });
});
