// Pods in the file and memory stores (issue 20): a pod holding a GPU share, CPU and host memory, a
// CPU-only pod and a host-memory-only pod, committed through a StoredClusterState, are held by the
// store with every field, reload with every field in a fresh reader and in the committing replica's
// own copy, keep the node's cpu / hostMemory / gpuModel, and the file stays in the CLI's format.
// Both stores, both backends.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterNode, stateFileText } from '../../src/cluster/state.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { engines } from '../support/engines.js';
import { makeStore, planPod, removeStoreDirs } from '../support/stores.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const MIB = 2 ** 20;

const NODES: ClusterNode[] = [
  { id: 'a100', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G, gpuModel: 'A100' },
  { id: 'cpu-box', gpus: [], cpu: 8000 },
  { id: 'plain', gpus: [{ index: 0, memoryTotal: 16 * G }] },
];

afterEach(removeStoreDirs);

describe.each([
  ['memory', 'wasm', wasm],
  ['memory', 'ts', ts],
  ['file', 'wasm', wasm],
  ['file', 'ts', ts],
] as const)('pod slots in the %s store (%s)', (kind, _backend, engine) => {
  it('a share + CPU + host memory pod, a CPU-only pod and a host-memory-only pod round-trip with every field', async () => {
    const { store, path } = await makeStore(kind, engine, NODES);
    const writer = await openClusterState(engine, store, { watch: false, replica: 0 });
    const share = planPod(engine.restoreClusterState(writer.toJSON()), { id: 'share', cpu: 4000, memoryMiB: 8192, gpus: 1, milli: 250 }).options[0];
    expect(share).toMatchObject({ node: 'a100', milli: 250, cpu: 4000, hostMemory: 8 * G });
    await writer.commit(share, { id: 'share', lastActivity: 99 });
    await writer.commit({ node: 'cpu-box', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 3000 }, { id: 'cpu-only' });
    await writer.commit({ node: 'a100', gpus: [], memoryPerGpu: 0, evict: [], score: 0, hostMemory: 512 * MIB }, { id: 'host-only' });
    const expected = {
      a100: [
        { id: 'share', gpus: share.gpus, memoryPerGpu: Math.floor((250 * 80 * G) / 1000), lastActivity: 99, milli: 250, cpu: 4000, hostMemory: 8 * G },
        { id: 'host-only', gpus: [], memoryPerGpu: 0, hostMemory: 512 * MIB },
      ],
      'cpu-box': [{ id: 'cpu-only', gpus: [], memoryPerGpu: 0, cpu: 3000 }],
      plain: [],
    };
    const stored = (await store.load()).state;
    expect(Object.fromEntries(stored.nodes.map((n) => [n.id, n.slots]))).toEqual(expected);
    expect(stored.nodes.map((n) => [n.cpu, n.hostMemory, n.gpuModel])).toEqual([
      [16_000, 64 * G, 'A100'],
      [8000, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
    // A fresh reader and the writer's own copy (updated from the store's answer) hold the same.
    const reader = await openClusterState(engine, store, { watch: false });
    for (const view of [reader, writer]) {
      expect(Object.fromEntries(view.nodes().map((id) => [id, view.listSlots(id)]))).toEqual(expected);
      expect(view.toJSON()).toEqual(stored);
    }
    // The pods are charged in the copies: the scheduler on the reader's state sees what they hold.
    const pods = engine.restoreClusterState(reader.toJSON()).podScheduler({ policy: 'bestfit' });
    try {
      expect(pods.view('a100')).toMatchObject({ cpu: 12_000, memoryMiB: 64 * 1024 - 8192 - 512 });
      expect(pods.view('cpu-box').cpu).toBe(5000);
    } finally {
      pods.close();
    }
    if (path !== undefined) expect(readFileSync(path, 'utf8')).toBe(stateFileText(engine.restoreClusterState(stored)));
    // Released through the store: gone everywhere, its CPU free again.
    await writer.release('cpu-only');
    await reader.refresh();
    expect(reader.listSlots('cpu-box')).toEqual([]);
    expect((await store.load()).state.nodes[1].slots).toEqual([]);
    await store.close();
  });
});
