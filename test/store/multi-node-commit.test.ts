// A slot across nodes in the memory and file stores: one atomic change over all its nodes (one
// durable write for the file), refused whole when another writer took a part's GPUs first (nothing
// left on any node), re-planned by commitWithRetry, and released, marked, touched and evicted whole;
// a second replica follows it node by node.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import { createEngine } from '../../src/engine.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { makeStore, outcomeOf, removeStoreDirs } from '../support/stores.js';

const engine = await createEngine({ backend: 'ts' });
const GB = 1e9;
const nodes: ClusterNode[] = ['a', 'b', 'c'].map((id) => ({ id, gpus: Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * GB })), labels: { rack: id === 'c' ? 'r2' : 'r1' } }));

afterEach(removeStoreDirs);

describe.each(['memory', 'file'] as const)('a slot across nodes in the %s store', (kind) => {
  it('commits as one change, refuses a stale option whole, and acts on the whole slot', async () => {
    const { store, path } = await makeStore(kind, engine, nodes);
    const one = await openClusterState(engine, store, { watch: false });
    const two = await openClusterState(engine, store, { watch: false });
    const request = { memory: 810 * GB, model: 'llama-405b', topology: { preferred: ['rack'] } };
    const option = one.plan(request).options[0];
    expect(option.parts!.map((p) => p.node)).toEqual(['a', 'b']);
    // Another writer takes one GPU of b's part first: the option is refused whole, nothing lands on a.
    const small = two.plan({ memory: 40 * GB, tensorParallelSizes: [1] }).options.find((o) => o.node === 'b')!;
    const other = await two.commit(small);
    expect(await outcomeOf(() => one.commit(option))).toMatch(/^CONFLICT option\.parts\[1\]: GPU \d of node b has/);
    const stored = (await store.load()).state;
    expect(stored.nodes.find((n) => n.id === 'a')!.slots).toEqual([]);
    expect(stored.nodes.flatMap((n) => n.slots).map((s) => s.id)).toEqual([other]);
    // Re-planned on the fresh state: a+c (b is taken), as one slot.
    const retry = await one.commitWithRetry(request, { id: 'big' });
    expect(retry.committed).toBe('big');
    expect(retry.plan.options[0].parts!.map((p) => p.node)).toEqual(['a', 'c']);
    const after = (await store.load()).state;
    for (const id of ['a', 'c']) expect(after.nodes.find((n) => n.id === id)!.slots.map((s) => s.id)).toEqual(['big']);
    if (path !== undefined) {
      // One durable write: the file holds the slot on both nodes, and reads back as one slot.
      const reread = engine.restoreClusterState((await store.load()).state);
      expect(reread.listSlots().filter((s) => s.id === 'big')).toHaveLength(1);
    }
    // The other replica follows node by node and sees one slot over a and c.
    await two.refresh();
    expect(two.listSlots('c')[0]).toMatchObject({ id: 'big', parts: retry.plan.options[0].parts });
    await one.markStale('big');
    await one.touch('big', 4242);
    const marked = (await store.load()).state.nodes.flatMap((n) => n.slots).filter((s) => s.id === 'big');
    expect(marked.map((s) => [s.stale, s.lastActivity])).toEqual([
      [true, 4242],
      [true, 4242],
    ]);
    // Evicted whole by a one-node option on c.
    const evicting = one.plan({ memory: 600 * GB, model: 'other', tensorParallelSizes: [8] }).options.find((o) => o.node === 'c')!;
    expect(evicting.evict).toEqual(['big']);
    await one.commit(evicting);
    const evicted = (await store.load()).state;
    expect(evicted.nodes.find((n) => n.id === 'a')!.slots).toEqual([]);
    expect(one.listSlots('a')).toEqual([]);
    await one.release(other);
    expect((await store.load()).state.nodes.find((n) => n.id === 'b')!.slots).toEqual([]);
  });

  it('releases a slot across nodes from both nodes at once', async () => {
    const { store } = await makeStore(kind, engine, nodes);
    const one = await openClusterState(engine, store, { watch: false });
    const id = await one.commit(one.plan({ memory: 810 * GB, topology: { required: 'rack' } }).options[0]);
    const outcome = await store.release(id);
    expect(outcome.nodes.map((n) => n.id).sort()).toEqual(['a', 'b']);
    expect((await store.load()).state.nodes.flatMap((n) => n.slots)).toEqual([]);
    expect(await outcomeOf(() => store.release(id))).toMatch(/^UNKNOWN_SLOT/);
  });
});
