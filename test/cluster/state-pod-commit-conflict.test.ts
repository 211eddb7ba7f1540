// Committing a pod option that no longer fits (CPU, host memory, or the GPU share taken since it was
// planned) is CONFLICT and changes nothing; the stores' rule (applyCommit over the stored node) gives
// the same answer, and a bad share (charge not floor(milli × memoryTotal / 1000), GPUs of different
// sizes) is an argument error naming the field. Both backends.
import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../src/cluster/state.js';
import type { PlacementOption } from '../../src/placement/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { applyCommit, type NodeRecord } from '../../src/store/apply.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const MIB = 2 ** 20;

/** The error `fn` throws, as code + message (+ field), or 'ok'. */
function outcomeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AllocationError) return `${error.code} ${error.message} @${error.field}`;
    throw error;
  }
}

function record(state: ClusterState, node: string): NodeRecord {
  const n = state.toJSON().nodes.find((x) => x.id === node)!;
  return { id: n.id, gpus: n.gpus, slots: n.slots, cpu: n.cpu, hostMemory: n.hostMemory, gpuModel: n.gpuModel };
}

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('a stale pod option (%s)', (_name, engine) => {
  const make = () => engine.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 8000, hostMemory: 64 * G, gpuModel: 'T4' }] });

  const cases: Array<[string, { cpu: number; memoryMiB: number; milli: number }, { cpu: number; memoryMiB: number; milli: number }, RegExp]> = [
    ['CPU', { cpu: 6000, memoryMiB: 1024, milli: 100 }, { cpu: 4000, memoryMiB: 1024, milli: 100 }, /node n has 2000 milli-CPU left, less than the 4000 asked; nothing was changed/],
    [
      'host memory',
      { cpu: 100, memoryMiB: 40 * 1024, milli: 100 },
      { cpu: 100, memoryMiB: 30 * 1024, milli: 100 },
      /node n has 24 GiB of host memory left, less than the 30 GiB asked; nothing was changed/,
    ],
    [
      'the GPU share',
      { cpu: 100, memoryMiB: 1024, milli: 700 },
      { cpu: 100, memoryMiB: 1024, milli: 400 },
      /GPU 0 of node n has .* free after the listed evictions, less than .*; nothing was changed/,
    ],
  ];

  it.each(cases)('taken since planning: %s', (_what, first, second, message) => {
    const state = make();
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      // Both planned on the same state; the first commit takes what the second needs.
      const a = pods.plan({ id: 'a', gpus: 1, ...first }).options[0];
      const b = pods.plan({ id: 'b', gpus: 1, ...second }).options[0];
      expect(a).toBeDefined();
      expect(b).toBeDefined();
      state.commit(a, { id: 'a' });
      const before = JSON.stringify(state.toJSON());
      const view = pods.view('n');
      const stored = record(state, 'n');
      const inMemory = outcomeOf(() => state.commit(b, { id: 'b' }));
      expect(inMemory).toMatch(/^CONFLICT /);
      expect(inMemory).toMatch(message);
      expect(JSON.stringify(state.toJSON())).toBe(before);
      expect(pods.view('n')).toEqual(view);
      // The stores' rule: the same answer from the stored node.
      expect(outcomeOf(() => applyCommit(stored, b, {}, 'b'))).toBe(inMemory);
      // And the scheduler, re-synced, no longer offers it.
      expect(pods.plan({ id: 'b', gpus: 1, ...second }).options).toEqual([]);
    } finally {
      pods.close();
    }
  });

  it('an option that still fits commits alike in memory and through applyCommit', () => {
    const state = make();
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      const o = pods.plan({ id: 'a', cpu: 500, memoryMiB: 512, gpus: 1, milli: 250 }).options[0];
      const change = applyCommit(record(state, 'n'), o, {}, 'a');
      state.commit(o, { id: 'a' });
      expect(change.slot).toEqual(state.listSlots('n')[0]);
      expect(change.slot).toEqual({ id: 'a', gpus: [0], memoryPerGpu: 4 * G, milli: 250, cpu: 500, hostMemory: 512 * MIB });
      const cpuOnly = pods.plan({ id: 'c', cpu: 500, memoryMiB: 512, gpus: 0 }).options[0];
      expect(cpuOnly).toEqual({ node: 'n', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 500, hostMemory: 512 * MIB });
      expect(applyCommit(record(state, 'n'), cpuOnly, {}, 'c').slot).toEqual({ id: 'c', gpus: [], memoryPerGpu: 0, cpu: 500, hostMemory: 512 * MIB });
    } finally {
      pods.close();
    }
  });

  it('a share whose charge is not floor(milli × memoryTotal / 1000), or over GPUs of different sizes, is refused by field', () => {
    const state = engine.createClusterState({
      nodes: [
        {
          id: 'n',
          gpus: [
            { index: 0, memoryTotal: 16 * G },
            { index: 1, memoryTotal: 24 * G },
          ],
          cpu: 8000,
        },
      ],
    });
    const before = JSON.stringify(state.toJSON());
    const share: PlacementOption = { node: 'n', gpus: [0], memoryPerGpu: 1, evict: [], score: 0, milli: 500, cpu: 1 };
    expect(outcomeOf(() => state.commit(share))).toMatch(/^INVALID_ARGUMENT option\.memoryPerGpu: expected 8589934592 .*got 1 @option\.memoryPerGpu$/);
    expect(outcomeOf(() => state.commit({ ...share, gpus: [0, 1], memoryPerGpu: 16 * G, milli: 1000 }))).toMatch(/^INVALID_ARGUMENT option\.gpus\[1\]: .*one memoryTotal/);
    expect(outcomeOf(() => state.commit({ node: 'n', gpus: [], memoryPerGpu: 0, evict: [], score: 0 }))).toMatch(/^INVALID_ARGUMENT option\.gpus: /);
    expect(outcomeOf(() => state.commit({ node: 'n', gpus: [], memoryPerGpu: 5, evict: [], score: 0, cpu: 1 }))).toMatch(/^INVALID_ARGUMENT option\.memoryPerGpu: /);
    expect(JSON.stringify(state.toJSON())).toBe(before);
  });
});
