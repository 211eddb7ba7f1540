// A pod that no longer fits its node's CPU or host memory, committed through the file or memory store
// by a replica that planned before another writer took them, is refused with exactly the in-memory
// commit's CONFLICT (code, message, field) and the stores' rule's (applyCommit over the stored node);
// the store is left as it was, and the replica is brought up to date (its copy charges the winner's pod).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { PlacementOption } from '../../src/placement/index.js';
import { applyCommit } from '../../src/store/apply.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { engines } from '../support/engines.js';
import { makeStore, outcomeOf, removeStoreDirs } from '../support/stores.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const NODES: ClusterNode[] = [{ id: 'n', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'A100' }];

afterEach(removeStoreDirs);

const pod = (cpu: number, hostMemory: number): PlacementOption => ({ node: 'n', gpus: [1], memoryPerGpu: Math.floor((100 * 80 * G) / 1000), milli: 100, cpu, hostMemory, evict: [], score: 0 });

const CASES = [
  ['CPU', pod(10_000, G), pod(8000, G), 'CONFLICT option: node n has 6000 milli-CPU left, less than the 8000 asked; nothing was changed @option.cpu'],
  ['host memory', pod(1000, 40 * G), pod(1000, 30 * G), 'CONFLICT option: node n has 24 GiB of host memory left, less than the 30 GiB asked; nothing was changed @option.hostMemory'],
  [
    'CPU, CPU-only pods',
    { ...pod(12_000, 0), gpus: [], memoryPerGpu: 0, milli: undefined },
    { ...pod(5000, 0), gpus: [], memoryPerGpu: 0, milli: undefined },
    'CONFLICT option: node n has 4000 milli-CPU left, less than the 5000 asked; nothing was changed @option.cpu',
  ],
] as const;

describe.each([
  ['memory', 'wasm', wasm],
  ['memory', 'ts', ts],
  ['file', 'wasm', wasm],
  ['file', 'ts', ts],
] as const)('a stale pod through the %s store (%s)', (kind, _backend, engine) => {
  it.each(CASES)("over the node's %s: the in-memory commit's CONFLICT, nothing changed", async (_what, first, second, message) => {
    const clean = (o: unknown): PlacementOption => JSON.parse(JSON.stringify(o));
    const { store, path } = await makeStore(kind, engine, NODES);
    const winner = await openClusterState(engine, store, { watch: false, replica: 0 });
    const late = await openClusterState(engine, store, { watch: false, replica: 1 });
    await winner.commit(clean(first), { id: 'a' });
    const held = await store.load();
    const fileBefore = path === undefined ? undefined : readFileSync(path, 'utf8');
    // The in-memory answer on the same slots, and the stores' rule on the stored node.
    const inMemory = await outcomeOf(() => engine.restoreClusterState(held.state).commit(clean(second), { id: 'b' }));
    expect(inMemory).toBe(message);
    const node = held.state.nodes[0];
    expect(await outcomeOf(() => applyCommit({ id: node.id, gpus: node.gpus, slots: node.slots, cpu: node.cpu, hostMemory: node.hostMemory, gpuModel: node.gpuModel }, clean(second), {}, 'b'))).toBe(
      message,
    );
    // Through the store, from the replica that has not seen `a`.
    expect(late.listSlots('n')).toEqual([]);
    expect(await outcomeOf(() => late.commit(clean(second), { id: 'b' }))).toBe(message);
    const outcome = await store.commit(clean(second), { id: 'b' });
    expect(`${outcome.error?.code} ${outcome.error?.message} @${outcome.error?.field}`).toBe(message);
    expect((await store.load()).state).toEqual(held.state);
    if (path !== undefined) expect(readFileSync(path, 'utf8')).toBe(fileBefore);
    // The conflict loaded the winner's pod into the late replica, with its CPU and host memory.
    expect(late.toJSON()).toEqual(held.state);
    await store.close();
  });
});
