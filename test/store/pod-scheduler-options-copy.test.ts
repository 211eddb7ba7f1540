// StoredClusterState.podScheduler reads its options once: a scheduler rebuilt on a reloaded copy
// plans by the options it was given, not by what the caller's object holds by then. Both backends.
import { describe, expect, it } from 'vitest';
import type { FleetPod, PodSchedulerOptions } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('stored podScheduler options (%s)', (_name, engine) => {
  it('changing the options object after podScheduler() does not reach the scheduler rebuilt by a refresh', async () => {
    const store = MemoryStore.create(engine, { nodes: ['a', 'b'].map((id) => ({ id, gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 8000, gpuModel: 'T4' })) });
    const state = await openClusterState(engine, store, { watch: false });
    const share: FleetPod = { id: 's', cpu: 100, memoryMiB: 0, gpus: 1, milli: 500 };
    const typical = [share];
    const ranks = [1, 0];
    const options: PodSchedulerOptions = { policy: 'fgd', typical, ranks };
    const pods = state.podScheduler(options);
    try {
      expect(pods.plan(share).options[0].node).toBe('b');
      options.policy = 'no-such-policy' as never;
      ranks[0] = 0;
      ranks[1] = 1;
      typical[0] = { ...share, milli: 0 };
      await state.refresh(); // a new local copy: the scheduler is rebuilt on it
      expect(pods.policy).toBe('fgd');
      expect(pods.plan(share).options[0].node).toBe('b');
    } finally {
      pods.close();
      await state.close();
    }
  });
});
