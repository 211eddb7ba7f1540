// Snapshots: validateTopology's result is frozen data the engine made, so a request that carries it
// is not re-read link by link; readInput takes it by identity, wherever it sits in the request.
// And the pair matrix the core holds is tracked by the core object for every kernel module that
// loads one (aligned and placement alternate on different topologies).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readInput, isSnapshot } from '../src/validate.js';
import { validateTopology, type Topology } from '../src/topology.js';
import { getPreset } from '../src/presets.js';
import { inventoryTopology } from '../src/inventory.js';
import { engines } from './engines.js';

const GIB = 2 ** 30;

function plainTopology(preset: string): Topology {
  const t = inventoryTopology(getPreset(preset));
  return { gpus: t.gpus, links: t.links.map((l) => ({ ...l })) };
}

describe('snapshots in requests', () => {
  it('validateTopology returns frozen data (every link too) that readInput takes as it is', () => {
    const t = validateTopology(plainTopology('dgx1-volta'));
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.links)).toBe(true);
    expect(t.links.every((l) => Object.isFrozen(l))).toBe(true);
    expect(isSnapshot(t)).toBe(true);
    expect(() => (t.links as unknown[]).push({ a: 0, b: 1 })).toThrow(TypeError);
    // Alone, and inside a request: the same object, not a copy.
    expect(readInput('topology', t, true, true)).toBe(t);
    const request = { topology: t, available: [0, 1, 2], size: 2 };
    const copy = readInput('request', request, false, true) as typeof request;
    expect(copy).not.toBe(request);
    expect(copy.topology).toBe(t);
    // Read again unchanged: the same copy; after an edit of the request's own fields: a new copy that still holds t.
    expect(readInput('request', request, false, true)).toBe(copy);
    request.available.push(3);
    const next = readInput('request', request, false, true) as typeof request;
    expect(next).not.toBe(copy);
    expect(next.available).toEqual([0, 1, 2, 3]);
    expect(next.topology).toBe(t);
    // Swapping the snapshot for another one is seen (compared by identity).
    const other = validateTopology(plainTopology('dgx1-volta'));
    request.topology = other;
    expect((readInput('request', request, false, true) as typeof request).topology).toBe(other);
    // Without reuse (a mutable working copy), a snapshot is still copied.
    expect(readInput('topology', t, true, false)).not.toBe(t);
    expect(readInput('topology', t, true, false)).toEqual(t);
  });

  it('allocateAligned and planPlacement give the same answers for a snapshot and for the plain topology', async () => {
    const { wasm, ts } = await engines();
    const presets = ['dgx1-volta', 'dgx-a100', 'dgx2'];
    fc.assert(
      fc.property(fc.constantFrom(...presets), fc.integer({ min: 1, max: 8 }), fc.constantFrom('besteffort' as const, 'topology' as const), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (preset, size, policy, seed) => {
        const plain = plainTopology(preset);
        const snap = validateTopology(plain);
        // A random subset of the GPUs, in a random order.
        const available = Array.from({ length: plain.gpus }, (_, k) => k).filter((_, k) => ((seed >>> (k % 31)) & 1) === 1 || k < size);
        const gpus = Array.from({ length: plain.gpus }, (_, k) => ({ index: k, memoryTotal: 40 * GIB }));
        for (const engine of [wasm, ts]) {
          const a = engine.allocateAligned({ topology: plain, available, size, policy });
          expect(engine.allocateAligned({ topology: snap, available, size, policy })).toEqual(a);
          const p = engine.planPlacement({ gpus, topology: plain, memory: 30 * GIB, tensorParallelSizes: [Math.min(size, plain.gpus)] });
          expect(engine.planPlacement({ gpus, topology: snap, memory: 30 * GIB, tensorParallelSizes: [Math.min(size, plain.gpus)] })).toEqual(p);
        }
        expect(wasm.allocateAligned({ topology: snap, available, size, policy })).toEqual(ts.allocateAligned({ topology: snap, available, size, policy }));
      }),
      { numRuns: 60 },
    );
  });

  it('the core reloads its pair matrix when aligned and placement calls alternate between topologies', async () => {
    const { wasm, ts } = await engines();
    const volta = validateTopology(plainTopology('dgx1-volta'));
    const a100 = validateTopology(plainTopology('dgx-a100'));
    const gpus = Array.from({ length: 8 }, (_, k) => ({ index: k, memoryTotal: 80 * GIB }));
    const all = [0, 1, 2, 3, 4, 5, 6, 7];
    const calls = [
      (e: typeof wasm) => e.allocateAligned({ topology: volta, available: all, size: 3, policy: 'topology' }),
      (e: typeof wasm) => e.planPlacement({ gpus, topology: a100, memory: 100 * GIB, tensorParallelSizes: [2, 4] }),
      (e: typeof wasm) => e.allocateAligned({ topology: a100, available: all, size: 3, policy: 'besteffort' }),
      (e: typeof wasm) => e.planPlacement({ gpus, topology: volta, memory: 100 * GIB, tensorParallelSizes: [2, 4] }),
      (e: typeof wasm) => e.allocateAligned({ topology: volta, available: all, size: 2, policy: 'besteffort' }),
    ];
    // The DGX-1 Volta's hybrid cube mesh and the A100's NVSwitch score differently: a stale matrix changes answers.
    expect(ts.allocateAligned({ topology: volta, available: all, size: 2, policy: 'besteffort' }).score).not.toBe(ts.allocateAligned({ topology: a100, available: all, size: 2, policy: 'besteffort' }).score);
    for (let round = 0; round < 3; round++) for (const call of calls) expect(call(wasm)).toEqual(call(ts));
  });
});
