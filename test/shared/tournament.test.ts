// The one tournament tree layout (shared/tournament.ts) the cluster state's indexes and the DRA
// node index play: after building, and after any sequence of leaf changes each replayed above its
// leaf, every entry holds the winner of its subtree as a direct scan finds it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTree, leavesFor, replayAbove } from '../../src/shared/tournament.js';

/** The winner of leaves [from, to) by a scan: the highest key, the lowest position on equal keys (-1: none). */
function scanWinner(keys: Float64Array, present: boolean[], from: number, to: number): number {
  let best = -1;
  for (let m = from; m < Math.min(to, keys.length); m++) if (present[m] && (best < 0 || keys[m] > keys[best])) best = m;
  return best;
}

describe('shared tournament tree', () => {
  it('sizes the leaves as the least power of two at least the players', () => {
    expect([0, 1, 2, 3, 4, 5, 8, 9, 1000].map(leavesFor)).toEqual([1, 1, 2, 4, 4, 8, 8, 16, 1024]);
  });

  it('keeps every entry the winner of its subtree through builds and replays', () => {
    const change = fc.record({ m: fc.nat(), key: fc.integer({ min: -3, max: 3 }), present: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 40 }), fc.array(change, { maxLength: 30 }), (initial, changes) => {
        const keys = Float64Array.from(initial);
        const present = initial.map(() => true);
        const L = leavesFor(keys.length);
        const win = new Int32Array(2 * L).fill(-1);
        const match = (a: number, b: number): number => (a < 0 ? b : b < 0 ? a : keys[b] > keys[a] ? b : a);
        for (let m = 0; m < keys.length; m++) win[L + m] = m;
        buildTree(win, L, match);
        const check = (): void => {
          for (let t = 1; t < L; t++) {
            const depth = Math.floor(Math.log2(t));
            const width = L >> depth;
            const from = (t - (1 << depth)) * width;
            expect(win[t]).toBe(scanWinner(keys, present, from, from + width));
          }
        };
        check();
        for (const c of changes) {
          const m = c.m % keys.length;
          keys[m] = c.key;
          present[m] = c.present;
          win[L + m] = c.present ? m : -1;
          replayAbove(win, L + m, match);
          check();
        }
      }),
    );
  });
});
