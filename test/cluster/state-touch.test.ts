// ClusterState.touch and release's idleBefore: a touch records activity (never moving it back), a
// touched stale slot is evicted after the idler ones, and a release conditioned on idleness keeps a
// slot active since, changing nothing. Both backends answer alike.
import { describe, expect, it } from 'vitest';
import { engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const DAY = 86_400_000;
const NOW = Date.UTC(2030, 0, 1);

/** One node of 2 × 80 GiB, each GPU full with one slot, both stale; s0 last active 3 days ago, s1 5 days ago. */
function state(engine: typeof ts) {
  const s = engine.createClusterState({
    nodes: [
      {
        id: 'n',
        gpus: [
          { index: 0, memoryTotal: 80 * G },
          { index: 1, memoryTotal: 80 * G },
        ],
      },
    ],
  });
  s.commit({ node: 'n', gpus: [0], memoryPerGpu: 70 * G, model: 'a', evict: [], score: 0 }, { id: 's0', lastActivity: NOW - 3 * DAY });
  s.commit({ node: 'n', gpus: [1], memoryPerGpu: 70 * G, model: 'b', evict: [], score: 0 }, { id: 's1', lastActivity: NOW - 5 * DAY });
  s.markStale('s0');
  s.markStale('s1');
  return s;
}

const activity = (s: ReturnType<typeof state>) => Object.fromEntries(s.listSlots().map((x) => [x.id, x.lastActivity]));

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('ClusterState.touch (%s)', (_name, engine) => {
  it('records activity, never moves it back, and defaults to now', () => {
    const s = state(engine);
    s.touch('s1', NOW - DAY);
    expect(activity(s)).toEqual({ s0: NOW - 3 * DAY, s1: NOW - DAY });
    s.touch('s1', NOW - 4 * DAY); // older than what is recorded: kept
    expect(activity(s).s1).toBe(NOW - DAY);
    const before = Date.now();
    s.touch('s0');
    expect(activity(s).s0).toBeGreaterThanOrEqual(before);
    // The slot keeps its place and everything else; the JSON round trip keeps the activity.
    expect(s.listSlots().map((x) => [x.id, x.stale])).toEqual([
      ['s0', true],
      ['s1', true],
    ]);
    expect(engine.restoreClusterState(s.toJSON()).listSlots()).toEqual(s.listSlots());
  });

  it('a touched stale slot is evicted after the idler one', () => {
    // Two stale slots on one GPU; a model needing one of them gone evicts the longest idle.
    const s = engine.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: 80 * G }] }] });
    s.commit({ node: 'n', gpus: [0], memoryPerGpu: 35 * G, model: 'a', evict: [], score: 0 }, { id: 's0', lastActivity: NOW - 3 * DAY });
    s.commit({ node: 'n', gpus: [0], memoryPerGpu: 35 * G, model: 'b', evict: [], score: 0 }, { id: 's1', lastActivity: NOW - 5 * DAY });
    s.markStale('s0');
    s.markStale('s1');
    const evicted = () => s.plan({ memory: 40 * G, model: 'c', tensorParallelSizes: [1] }).options[0].evict;
    expect(evicted()).toEqual(['s1']); // s1: idle 5 days, s0: 3
    s.touch('s1', NOW);
    expect(evicted()).toEqual(['s0']);
  });

  it('bad input names the field and changes nothing', () => {
    const s = state(engine);
    const json = JSON.stringify(s.toJSON());
    expect(errorOf(() => s.touch('nope', NOW)).code).toBe('UNKNOWN_SLOT');
    for (const bad of [NaN, Infinity, '5', null]) {
      const e = errorOf(() => s.touch('s0', bad as number));
      expect([e.code, e.field]).toEqual(['INVALID_ARGUMENT', 'at']);
    }
    expect(JSON.stringify(s.toJSON())).toBe(json);
  });
});

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('ClusterState.release with idleBefore (%s)', (_name, engine) => {
  it('releases a slot idle since before the time, and keeps one active since (CONFLICT, nothing changed)', () => {
    const s = state(engine);
    s.touch('s0', NOW);
    const json = JSON.stringify(s.toJSON());
    const e = errorOf(() => s.release('s0', { idleBefore: NOW - 2 * DAY }));
    expect([e.code, e.field]).toEqual(['CONFLICT', 'options.idleBefore']);
    expect(e.message).toBe(`slot "s0" was active at ${new Date(NOW).toISOString()}, not before ${new Date(NOW - 2 * DAY).toISOString()}; it was not released`);
    expect(JSON.stringify(s.toJSON())).toBe(json);
    s.release('s1', { idleBefore: NOW - 2 * DAY });
    expect(s.listSlots().map((x) => x.id)).toEqual(['s0']);
    // Idle exactly since the time is not idle before it.
    expect(errorOf(() => s.release('s0', { idleBefore: NOW })).code).toBe('CONFLICT');
    s.release('s0', { idleBefore: NOW + 1 });
    expect(s.listSlots()).toEqual([]);
  });

  it('keeps a slot with no recorded activity; bad options name the field', () => {
    const s = engine.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: 80 * G }] }] });
    s.commit({ node: 'n', gpus: [0], memoryPerGpu: 10 * G, evict: [], score: 0 }, { id: 'x' });
    expect(errorOf(() => s.release('x', { idleBefore: NOW })).message).toBe('slot "x" has no recorded activity; it was not released');
    expect(errorOf(() => s.release('x', { idleBefore: 'soon' as unknown as number })).field).toBe('options.idleBefore');
    expect(errorOf(() => s.release('x', { idleBfore: NOW } as never)).code).toBe('INVALID_ARGUMENT');
    expect(s.listSlots().map((x) => x.id)).toEqual(['x']);
    s.release('x');
    expect(s.listSlots()).toEqual([]);
  });
});
