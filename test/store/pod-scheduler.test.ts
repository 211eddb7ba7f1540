// StoredClusterState.podScheduler: a pod scheduler over a replica's local copy that stays current as
// the copy changes (its own commits, another writer's changes loaded on conflict or by notification,
// a whole reload), so its view always equals a scheduler built afresh on the copy; commitWithRetry
// re-plans on CONFLICT and never over-allocates a node's CPU, host memory or GPU; bad options and use
// after close are errors naming the field. Memory and file stores, both backends.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { openClusterState, type StoredClusterState, type StoredPodScheduler } from '../../src/store/stored-state.js';
import type { ClusterStore } from '../../src/store/types.js';
import { engines } from '../support/engines.js';
import { makeStore, removeStoreDirs } from '../support/stores.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const NODES: ClusterNode[] = [
  { id: 'a', gpus: [0, 1].map((index) => ({ index, memoryTotal: 16 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'T4' },
  { id: 'b', gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 16 * G })), cpu: 8000, hostMemory: 32 * G, gpuModel: 'T4' },
  { id: 'c', gpus: [], cpu: 4000 },
];

afterEach(removeStoreDirs);

/** The scheduler's view of every node equals that of a scheduler built afresh on the replica's copy. */
function expectCurrent(engine: Engine, replica: StoredClusterState, scheduler: StoredPodScheduler): void {
  const fresh = engine.restoreClusterState(replica.toJSON()).podScheduler({ policy: 'bestfit' });
  try {
    for (const id of replica.nodes()) expect(scheduler.view(id)).toEqual(fresh.view(id));
  } finally {
    fresh.close();
  }
}

/** Σ CPU, host memory and GPU bytes of the stored slots are within every node's figures. */
async function expectWithin(store: ClusterStore): Promise<void> {
  for (const n of (await store.load()).state.nodes) {
    const cpu = n.slots.reduce((s, x) => s + (x.cpu ?? 0), 0);
    const host = n.slots.reduce((s, x) => s + (x.hostMemory ?? 0), 0);
    if (n.cpu !== undefined) expect(cpu).toBeLessThanOrEqual(n.cpu);
    if (n.hostMemory !== undefined) expect(host).toBeLessThanOrEqual(n.hostMemory);
    for (const g of n.gpus) expect(n.slots.filter((x) => x.gpus.includes(g.index)).reduce((s, x) => s + x.memoryPerGpu, 0)).toBeLessThanOrEqual(g.memoryTotal);
  }
}

describe.each([
  ['memory', 'wasm', wasm],
  ['memory', 'ts', ts],
  ['file', 'wasm', wasm],
  ['file', 'ts', ts],
] as const)('podScheduler on a %s store (%s)', (kind, _backend, engine) => {
  it("a stale replica's commitWithRetry meets CONFLICT, re-plans on the fresh node and stays current", async () => {
    const store = (await makeStore(kind, engine, NODES)).store;
    const one = await openClusterState(engine, store, { watch: false, replica: 0 });
    const two = await openClusterState(engine, store, { watch: false, replica: 1 });
    const p1 = one.podScheduler({ policy: 'bestfit' });
    const p2 = two.podScheduler({ policy: 'bestfit' });
    expect(p1.policy).toBe('bestfit');
    // Both would put a 6-CPU share pod on the same node x; the first replica gets there first and
    // takes the rest of x's CPU, so the second's plan no longer fits there.
    const pod = { id: 'p', cpu: 6000, memoryMiB: 1024, gpus: 1, milli: 500 };
    const x = p1.plan(pod).options[0].node!;
    expect(p2.plan(pod).options[0].node).toBe(x);
    expect(await p1.commitWithRetry(pod, { id: 'first' })).toMatchObject({ committed: 'first', attempts: 1, conflicts: 0 });
    await one.commit({ node: x, gpus: [], memoryPerGpu: 0, cpu: p1.view(x).cpu, evict: [], score: 0 }, { id: 'filler' });
    expect(p1.view(x).cpu).toBe(0);
    const second = await p2.commitWithRetry(pod, { id: 'second' });
    expect(second).toMatchObject({ committed: 'second', attempts: 2, conflicts: 1 });
    expect(second.plan.options[0].node).not.toBe(x);
    expectCurrent(engine, two, p2);
    expect(p2.view(x).cpu).toBe(0);
    // A CPU-only pod that no node has room for: a result with a reason, nothing committed.
    const none = await p2.commitWithRetry({ id: 'x', cpu: 12_000, memoryMiB: 1, gpus: 0, milli: 0 });
    expect(none.committed).toBeUndefined();
    expect(none.reason?.code).toBe('NO_NODE_FITS');
    // A reload replaces the copy: the scheduler is rebuilt on it and still current.
    await one.refresh();
    expectCurrent(engine, one, p1);
    expect(p1.view(x).cpu).toBe(0);
    expect(p1.view(second.plan.options[0].node!)).toEqual(p2.view(second.plan.options[0].node!));
    await expectWithin(store);
    await one.close();
    expect(() => p1.plan(pod)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'scheduler' }));
    await two.close();
    await store.close();
  });

  it('random pods from two replicas: never over a node, every view current after every step', async () => {
    const pods = fc.array(
      fc.record({
        who: fc.integer({ min: 0, max: 1 }),
        release: fc.boolean(),
        cpu: fc.constantFrom(1000, 2000, 4000),
        memory: fc.constantFrom(1024, 8192),
        kind: fc.constantFrom('cpu', 'share', 'whole'),
        milli: fc.constantFrom(250, 500, 750),
      }),
      { minLength: 1, maxLength: 25 },
    );
    await fc.assert(
      fc.asyncProperty(pods, async (steps) => {
        const store = (await makeStore(kind, engine, NODES)).store;
        const replicas = [await openClusterState(engine, store, { watch: false, replica: 0 }), await openClusterState(engine, store, { watch: false, replica: 1 })];
        const schedulers = replicas.map((r) => r.podScheduler({ policy: 'bestfit' }));
        const held: string[] = [];
        try {
          for (const [k, s] of steps.entries()) {
            if (s.release && held.length > 0) {
              await replicas[s.who].release(held.shift()!);
            } else {
              const pod = { id: `p${k}`, cpu: s.cpu, memoryMiB: s.memory, gpus: s.kind === 'cpu' ? 0 : 1, milli: s.kind === 'cpu' ? 0 : s.kind === 'share' ? s.milli : 1000 };
              const r = await schedulers[s.who].commitWithRetry(pod, { id: `p${k}`, attempts: 3 });
              if (r.committed !== undefined) held.push(r.committed);
            }
            expectCurrent(engine, replicas[s.who], schedulers[s.who]);
          }
          await expectWithin(store);
        } finally {
          for (const r of replicas) await r.close();
          await store.close();
        }
      }),
      { numRuns: 15, seed: 20 },
    );
  });

  it('bad options and bad retry options name the field; nothing is attached', async () => {
    const store = (await makeStore(kind, engine, NODES)).store;
    const state = await openClusterState(engine, store, { watch: false });
    expect(() => state.podScheduler({ policy: 'nope' } as never)).toThrow(expect.objectContaining({ code: 'UNKNOWN_POLICY', field: 'options.policy' }));
    expect(() => state.podScheduler({ polcy: 'bestfit' } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'options.polcy' }));
    const p = state.podScheduler({ policy: 'bestfit' });
    await expect(p.commitWithRetry({ id: 'x', cpu: 1, memoryMiB: 1, gpus: 0, milli: 0 }, { attemps: 2 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.attemps' });
    await expect(p.commitWithRetry({ id: 'x', cpu: 1, memoryMiB: 1, gpus: 0, milli: 0 }, { attempts: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.attempts' });
    expect((await store.load()).state.nodes.flatMap((n) => n.slots)).toEqual([]);
    p.close();
    await state.close();
    await store.close();
  });
});
