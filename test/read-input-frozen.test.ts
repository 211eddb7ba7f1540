// Input the caller froze all the way down is read once: its copy stands without a compare on later
// calls, since frozen plain data cannot change. Anything that could still change (a getter, an
// unfrozen child, a typed array) keeps being compared.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readInput } from '../src/validate.js';
import { placementRequest } from './fuzz/requests.js';
import { engines, outcome } from './engines.js';
import type { PlacementRequest } from '../src/placement.js';
import { deepFreeze } from '../bench/inputs.js';

describe('readInput and frozen input', () => {
  it('a deeply frozen request part gives back the same copy; a new frozen part gives a new copy', () => {
    const gpus = deepFreeze([{ index: 0, memoryTotal: 10 }, { index: 1, memoryTotal: 20 }]);
    const request = { gpus, memory: 5 };
    const first = readInput('request', request, false, true) as typeof request;
    expect(readInput('request', request, false, true)).toBe(first);
    expect(first.gpus).toEqual(gpus);
    // The request itself is not frozen: replacing its frozen part is seen.
    request.gpus = deepFreeze([{ index: 0, memoryTotal: 30 }]);
    const second = readInput('request', request, false, true) as typeof request;
    expect(second).not.toBe(first);
    expect(second.gpus).toEqual([{ index: 0, memoryTotal: 30 }]);
    // Back to the first frozen array: its earlier copy again.
    request.gpus = gpus;
    expect((readInput('request', request, false, true) as typeof request).gpus).toBe(first.gpus);
  });

  it('frozen input is not read again: a proxy over frozen data sees no property read on the second call', () => {
    // A proxy may count reads, but over a frozen target it must answer with the target's values (the
    // invariants of frozen objects), so it is frozen data too. The first read copies it (reads every
    // field); the second must take that copy without reading; an unfrozen twin is compared (read).
    let gets = 0;
    const counted = <T extends object>(target: T): T => new Proxy(target, { get: (t, k, r) => ((gets += 1), Reflect.get(t, k, r)) });
    const frozen = { gpus: Object.freeze([counted(Object.freeze({ index: 0, memoryTotal: 10 })), counted(Object.freeze({ index: 1, memoryTotal: 20 }))]) };
    const first = readInput('request', frozen, false, true);
    expect(gets).toBeGreaterThan(0);
    gets = 0;
    expect(readInput('request', frozen, false, true)).toBe(first);
    expect(gets).toBe(0);
    const open = { gpus: [counted({ index: 0, memoryTotal: 10 })] };
    readInput('request', open, false, true);
    gets = 0;
    readInput('request', open, false, true);
    expect(gets).toBeGreaterThan(0);
  });

  it('a frozen object with a getter is read again each time (a getter can answer differently)', () => {
    let n = 0;
    const tricky = Object.freeze({
      get memoryTotal(): number {
        n += 1;
        return n;
      },
      index: 0,
    });
    const request = { gpus: Object.freeze([tricky]) };
    const a = readInput('request', request, false, true) as { gpus: Array<{ memoryTotal: number }> };
    const b = readInput('request', request, false, true) as { gpus: Array<{ memoryTotal: number }> };
    expect(b).not.toBe(a);
    expect(b.gpus[0].memoryTotal).toBeGreaterThan(a.gpus[0].memoryTotal);
  });

  it('a frozen parent with an unfrozen child sees edits of the child; a typed array child is compared by identity', () => {
    const child = { index: 0, memoryTotal: 10 };
    const parent = Object.freeze([child]);
    const first = readInput('gpus', parent, true, true) as Array<typeof child>;
    child.memoryTotal = 11;
    const second = readInput('gpus', parent, true, true) as Array<typeof child>;
    expect(second).not.toBe(first);
    expect(second[0].memoryTotal).toBe(11);
    // Two levels down: a frozen parent of a frozen child that holds an unfrozen grandchild is not
    // frozen data (the child is frozen, but not all the way down), so an edit of the grandchild is seen.
    const grandchild = { memoryTotal: 10 };
    const outer = Object.freeze([Object.freeze({ index: 0, spec: grandchild })]);
    const o1 = readInput('gpus', outer, true, true);
    expect(readInput('gpus', outer, true, true)).toBe(o1);
    grandchild.memoryTotal = 12;
    const o2 = readInput('gpus', outer, true, true) as Array<{ spec: typeof grandchild }>;
    expect(o2).not.toBe(o1);
    expect(o2[0].spec.memoryTotal).toBe(12);
    // A typed array passes through uncopied and is compared by identity: the same array gives the
    // same copy, another with equal items gives a new one.
    const typed = new Int32Array([1, 2]);
    const holder: { data: Int32Array; n: number } = { data: typed, n: 1 };
    const h1 = readInput('x', holder, true, true) as typeof holder;
    expect(h1.data).toBe(typed);
    expect(readInput('x', holder, true, true)).toBe(h1);
    holder.data = new Int32Array([1, 2]);
    const h2 = readInput('x', holder, true, true) as typeof holder;
    expect(h2).not.toBe(h1);
    expect(h2.data).toBe(holder.data);
  });

  it('planPlacement on frozen requests, with frozen parts swapped between calls, plans as a fresh clone does', async () => {
    const { wasm, ts } = await engines();
    await fc.assert(
      fc.asyncProperty(placementRequest, fc.array(fc.nat(50), { minLength: 1, maxLength: 5 }), async (base, steps) => {
        const request = { ...base } as PlacementRequest;
        request.gpus = deepFreeze(structuredClone(base.gpus));
        if (base.slots !== undefined) request.slots = deepFreeze(structuredClone(base.slots));
        if (base.topology !== undefined) request.topology = deepFreeze(structuredClone(base.topology));
        for (const k of steps) {
          // Swap in a new frozen slot list: one slot less, or one slot's memory halved.
          const slots = structuredClone(request.slots ?? []);
          if (slots.length > 0) {
            if (k % 2 === 0) slots.splice(k % slots.length, 1);
            else slots[k % slots.length].memoryPerGpu = Math.floor(slots[k % slots.length].memoryPerGpu / 2);
          }
          request.slots = deepFreeze(slots);
          for (const engine of [wasm, ts]) {
            // The first call after the swap is the one that must see it.
            expect(outcome(() => engine.planPlacement(request))).toEqual(outcome(() => engine.planPlacement(structuredClone(request))));
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
