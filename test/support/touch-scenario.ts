// One scenario of activity through a store, run on every store (memory and file in test/store,
// PostgreSQL in test/pg): a touch lands in the store and never moves activity back; a release with
// idleBefore from a replica that has not seen the touch is refused (CONFLICT, nothing changed) and
// loads the fresh slot in place; an idle slot goes.
import { expect } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { openClusterState } from '../../src/store/stored-state.js';
import type { ClusterStore } from '../../src/store/types.js';

const G = 2 ** 30;
const DAY = 86_400_000;
export const TOUCH_NOW = Date.UTC(2030, 0, 1);

/** The nodes the scenario expects its store to hold (and nothing else). */
export const TOUCH_NODES = [{ id: 'n', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })) }];

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: unknown) => {
      if (e instanceof AllocationError) return `${e.code} @${e.field}`;
      throw e;
    },
  );
}

/** Runs the scenario on `store` (holding TOUCH_NODES, no slots). */
export async function touchScenario(engine: Engine, store: ClusterStore): Promise<void> {
  const a = await openClusterState(engine, store, { watch: false });
  const b = await openClusterState(engine, store, { watch: false });
  for (const [id, gpu] of [
    ['s0', 0],
    ['s1', 1],
  ] as const) {
    await a.commit({ node: 'n', gpus: [gpu], memoryPerGpu: 40 * G, model: id, evict: [], score: 0 }, { id, lastActivity: TOUCH_NOW - 8 * DAY });
  }
  await b.refresh();
  const version = b.version('n')!;
  await b.touch('s0', TOUCH_NOW);
  expect(b.version('n')).toBeGreaterThan(version);
  const stored = async () => Object.fromEntries((await store.load()).state.nodes[0].slots.map((s) => [s.id, s.lastActivity]));
  expect(await stored()).toEqual({ s0: TOUCH_NOW, s1: TOUCH_NOW - 8 * DAY });
  await b.touch('s0', TOUCH_NOW - DAY); // older than what is stored: kept
  expect(await stored()).toEqual({ s0: TOUCH_NOW, s1: TOUCH_NOW - 8 * DAY });

  // `a` has not seen the touch: its gc would take s0 for idle; the store refuses and nothing changes.
  const gcCutoff = TOUCH_NOW - 7 * DAY;
  expect(a.listSlots().find((s) => s.id === 's0')!.lastActivity).toBe(TOUCH_NOW - 8 * DAY);
  expect(await codeOf(a.release('s0', { idleBefore: gcCutoff }))).toBe('CONFLICT @options.idleBefore');
  expect(await stored()).toEqual({ s0: TOUCH_NOW, s1: TOUCH_NOW - 8 * DAY });
  // The refusal loaded the fresh slot, in its place.
  expect(a.listSlots().map((s) => [s.id, s.lastActivity])).toEqual([
    ['s0', TOUCH_NOW],
    ['s1', TOUCH_NOW - 8 * DAY],
  ]);
  await a.release('s1', { idleBefore: gcCutoff });
  expect(await stored()).toEqual({ s0: TOUCH_NOW });

  expect(await codeOf(b.touch('nope', TOUCH_NOW))).toBe('UNKNOWN_SLOT @slotId');
  expect(await codeOf(store.touch('s0', Number.NaN))).toBe('INVALID_ARGUMENT @at');
  expect(await codeOf(store.release('s0', { idleBefore: 'x' as unknown as number }))).toBe('INVALID_ARGUMENT @options.idleBefore');
  expect(await stored()).toEqual({ s0: TOUCH_NOW });
  await a.close();
  await b.close();
}
