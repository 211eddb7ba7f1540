// A pod's slot in a saved state (or in createClusterState's nodes) must be charged what commit charges
// for its share: memoryPerGpu = floor(milli × memoryTotal / 1000) on GPUs of one memoryTotal, of more
// than 10^6 bytes. Otherwise the pod scheduler reads the GPU's free milli from bytes the share does not
// hold (a 900-milli slot charged 1 byte left 999 milli "free"). restore refuses such a state
// (INVALID_STATE naming the slot's field and the value); createClusterState refuses such slots
// (INVALID_ARGUMENT). A consistent pod slot still round-trips. Both backends.
import { describe, expect, it } from 'vitest';
import type { Slot } from '../../src/placement/index.js';
import { engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('pod slots charged for their share (%s)', (_name, engine) => {
  const node = (
    slots: unknown[],
    gpus = [
      { index: 0, memoryTotal: 10 * G },
      { index: 1, memoryTotal: 10 * G },
    ],
  ) => ({ id: 'a', gpus, cpu: 8000, slots: slots as Slot[] });
  const saved = (slots: unknown[], gpus?: Array<{ index: number; memoryTotal: number }>) => ({ version: 1, nextSlot: 1, nodes: [node(slots, gpus)] });

  it('restore refuses a share charged other than floor(milli × memoryTotal / 1000), naming the field and value', () => {
    const e = errorOf(() => engine.restoreClusterState(saved([{ id: 'x', gpus: [0], memoryPerGpu: 1, milli: 900 }])));
    expect(e.code).toBe('INVALID_STATE');
    expect(e.field).toBe('state.nodes[0].slots[0].memoryPerGpu');
    expect(e.message).toContain(String(Math.floor((900 * 10 * G) / 1000)));
    expect(e.message).toMatch(/got 1\b/);
  });

  it('createClusterState refuses the same slot as an argument error', () => {
    const e = errorOf(() =>
      engine.createClusterState({
        nodes: [
          node([
            { id: 'ok', gpus: [1], memoryPerGpu: G, milli: 100 },
            { id: 'x', gpus: [0], memoryPerGpu: 2 * G, milli: 100 },
          ]),
        ],
      }),
    );
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.field).toBe('nodes[0].slots[1].memoryPerGpu');
  });

  it('restore refuses a share over GPUs of different sizes, and a share on a GPU of at most 10^6 bytes', () => {
    const mixed = errorOf(() =>
      engine.restoreClusterState(
        saved(
          [{ id: 'x', gpus: [0, 1], memoryPerGpu: 10 * G, milli: 1000 }],
          [
            { index: 0, memoryTotal: 10 * G },
            { index: 1, memoryTotal: 20 * G },
          ],
        ),
      ),
    );
    expect(mixed.code).toBe('INVALID_STATE');
    expect(mixed.field).toBe('state.nodes[0].slots[0].gpus');
    const tiny = errorOf(() => engine.restoreClusterState(saved([{ id: 'x', gpus: [0], memoryPerGpu: 1, milli: 1 }], [{ index: 0, memoryTotal: 1500 }])));
    expect(tiny.code).toBe('INVALID_STATE');
    expect(tiny.field).toBe('state.nodes[0].slots[0].milli');
  });

  it('a state written by commit restores, and its scheduler sees the same free milli', () => {
    const state = engine.createClusterState({ nodes: [node([])] });
    const pods = state.podScheduler({ policy: 'bestfit' });
    state.commit(pods.plan({ id: 'p', cpu: 1000, memoryMiB: 0, gpus: 1, milli: 333 }).options[0]);
    state.commit(pods.plan({ id: 'q', cpu: 1000, memoryMiB: 0, gpus: 1, milli: 1000 }).options[0]);
    const restored = engine.restoreClusterState(JSON.stringify(state.toJSON()));
    const again = restored.podScheduler({ policy: 'bestfit' });
    try {
      expect(restored.toJSON()).toEqual(state.toJSON());
      expect(again.view('a')).toEqual(pods.view('a'));
    } finally {
      pods.close();
      again.close();
    }
  });
});
