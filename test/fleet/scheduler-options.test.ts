// state.podScheduler's options and the scheduler's life: fgd needs the typical workload, unknown keys
// and bad ranks are errors naming the field, a node whose GPUs differ in size takes CPU-only pods only,
// a node without gpuModel takes no pod that lists models, ranks break ties, and a closed scheduler is
// an error to use and no longer follows the state. Both backends.
import { describe, expect, it } from 'vitest';
import { codeOf, engines, outcome } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

/** The field an AllocationError from `fn` names (outcome's `@field`), or undefined. */
const fieldOf = (fn: () => unknown): string | undefined => /@(\S+)$/.exec(String(outcome(fn)))?.[1];

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('podScheduler options (%s)', (_name, engine) => {
  const twins = () =>
    engine.createClusterState({
      nodes: [
        { id: 'a', gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 4000, gpuModel: 'T4' },
        { id: 'b', gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 4000, gpuModel: 'T4' },
      ],
    });
  const share = { id: 's', cpu: 100, memoryMiB: 0, gpus: 1, milli: 500 };

  it('fgd and fgd-close need the typical workload; unknown keys, bad policies and bad ranks name the field', () => {
    const state = twins();
    for (const policy of ['fgd', 'fgd-close'] as const) expect(fieldOf(() => state.podScheduler({ policy }))).toBe('options.typical');
    expect(fieldOf(() => state.podScheduler({ policy: 'bestfit', typicl: [] } as never))).toBe('options.typicl');
    expect(codeOf(() => state.podScheduler({ policy: 'best' } as never))).toBe('UNKNOWN_POLICY');
    expect(fieldOf(() => state.podScheduler({ policy: 'bestfit', ranks: [0] }))).toBe('options.ranks');
    expect(fieldOf(() => state.podScheduler({ policy: 'bestfit', ranks: [1, 1] }))).toBe('options.ranks[1]');
    expect(fieldOf(() => state.podScheduler({ policy: 'bestfit', typical: [{ id: 'x', cpu: -1, memoryMiB: 0, gpus: 0 }] }))).toBe('options.typical[0].cpu');
    const pods = state.podScheduler({ policy: 'fgd', typical: [share] });
    expect(fieldOf(() => pods.plan({ ...share, milli: 0 }))).toBe('pod.milli');
    pods.close();
  });

  it('ranks break a tie between equal nodes; by default the first node wins', () => {
    const state = twins();
    for (const [ranks, node] of [
      [undefined, 'a'],
      [[0, 1], 'a'],
      [[1, 0], 'b'],
    ] as const) {
      const pods = state.podScheduler({ policy: 'fgd', typical: [share], ...(ranks === undefined ? {} : { ranks: [...ranks] }) });
      expect(pods.plan(share).options[0].node).toBe(node);
      pods.close();
    }
  });

  it('a node whose GPUs differ in size takes CPU-only pods only; a node without gpuModel no pod that lists models', () => {
    const state = engine.createClusterState({
      nodes: [
        {
          id: 'mixed',
          gpus: [
            { index: 0, memoryTotal: 16 * G },
            { index: 1, memoryTotal: 32 * G },
          ],
          cpu: 8000,
        },
        { id: 'anon', gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 1000 },
      ],
    });
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      expect(pods.view('mixed')).toEqual({ cpu: 8000, memoryMiB: 0x7fffffff, gpus: [] });
      expect(pods.plan({ ...share, cpu: 2000 }).reason?.code).toBe('NO_NODE_FITS');
      expect(pods.plan({ id: 'c', cpu: 2000, memoryMiB: 0, gpus: 0 }).options[0].node).toBe('mixed');
      expect(pods.plan(share).options[0].node).toBe('anon');
      const listed = pods.plan({ ...share, models: ['T4'] });
      expect(listed.options).toEqual([]);
      expect(listed.reason?.message).toMatch(/of model T4 .*0 the GPU model/);
    } finally {
      pods.close();
    }
  });

  it('after close(): using it is an error, and commits no longer reach it', () => {
    const state = twins();
    const pods = state.podScheduler({ policy: 'bestfit' });
    const option = pods.plan(share).options[0];
    pods.close();
    expect(() => pods.plan(share)).toThrow(/used after close\(\)/);
    expect(() => pods.view('a')).toThrow(/used after close\(\)/);
    state.commit(option, { id: 's' });
    expect(state.listSlots().map((s) => s.id)).toEqual(['s']);
    pods.close();
  });
});
