// The JavaScript side of the core caches what it can (the arena's base, views of memory, the loaded
// pair matrix, the aligned input block) and must notice every change under it: the arena growing
// for a larger input, memory growing inside a kernel call, a restart after a trap. Each step here
// changes one of those between calls that must still answer as the ts baseline does.
import { describe, expect, it } from 'vitest';
import { mixedDeviceIds, unstructuredTopology } from '../../bench/inputs.js';
import { openEngine } from '../../src/engine.js';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset } from '../../src/hardware/presets.js';
import { validateTopology } from '../../src/hardware/topology.js';

const GIB = 2 ** 30;

describe('core caches across arena growth, memory growth and restarts', () => {
  it('every capability answers as ts after each kind of change', async () => {
    const wasm = await openEngine({ backend: 'wasm' });
    const ts = await openEngine({ backend: 'ts' });
    const dgx2 = validateTopology(inventoryTopology(getPreset('dgx2')));
    const gpus = Array.from({ length: 16 }, (_, k) => ({ index: k, memoryTotal: 32 * GIB }));
    const slots = [
      { id: 'a', gpus: [0, 1], memoryPerGpu: 20 * GIB, stale: true },
      { id: 'b', gpus: [2], memoryPerGpu: 30 * GIB },
    ];
    const calls = [
      () => wasm.planPlacement({ gpus, slots, topology: dgx2, memory: 40 * GIB, tensorParallelSizes: [2, 4] }),
      () => wasm.allocateAligned({ topology: dgx2, available: [3, 1, 4, 5, 9, 2, 6, 8], size: 2, policy: 'besteffort' }),
      () => wasm.allocateAligned({ topology: dgx2, available: [3, 1, 4, 5, 9, 2, 6, 8], size: 3, policy: 'topology' }),
      () => wasm.naturalSort(['cuda10', 'cuda2', 'cuda1']),
    ];
    const expected = [
      ts.planPlacement({ gpus, slots, topology: dgx2, memory: 40 * GIB, tensorParallelSizes: [2, 4] }),
      ts.allocateAligned({ topology: dgx2, available: [3, 1, 4, 5, 9, 2, 6, 8], size: 2, policy: 'besteffort' }),
      ts.allocateAligned({ topology: dgx2, available: [3, 1, 4, 5, 9, 2, 6, 8], size: 3, policy: 'topology' }),
      ['cuda1', 'cuda2', 'cuda10'],
    ];
    const check = (): void => calls.forEach((call, k) => expect(call(), `call ${k}`).toEqual(expected[k]));
    check();
    // 1. Memory grows inside a kernel call: besteffort on 20 GPUs grows its 2^20-entry table (16 MiB)
    //    during the call, and the answer is read through a fresh view.
    const pages = wasm.memoryPages();
    const t20 = unstructuredTopology(20, 3);
    const available = Array.from({ length: 20 }, (_, k) => 19 - k);
    const request = { topology: t20, available, size: 4, policy: 'besteffort' as const };
    expect(wasm.allocateAligned(request)).toEqual(ts.allocateAligned(request));
    expect(wasm.memoryPages()).toBeGreaterThan(pages);
    check();
    // 2. The arena outgrows its block and moves (past the table above): a sort of 100,000 IDs needs
    //    far more scratch than the calls above, and every cached base must follow.
    const arena = wasm.core!.exports.reservedBytes();
    const base = wasm.core!.reserveBlock(0);
    const ids = mixedDeviceIds(100_000, 7);
    expect(wasm.naturalSort(ids)).toEqual(ts.naturalSort(ids));
    expect(wasm.core!.exports.reservedBytes()).toBeGreaterThan(arena);
    expect(wasm.core!.reserveBlock(0)).not.toBe(base);
    check();
    // 3. A restart (a trap): new memory, new arena, no matrix loaded; every cache must start over.
    const restarts = wasm.core!.restarts;
    expect(() => wasm._debugTrap(1)).toThrow();
    expect(wasm.core!.restarts).toBe(restarts + 1);
    expect(wasm.core!.exports.reservedBytes()).toBe(0); // a fresh instance: the arena starts over
    check();
    expect(wasm.allocateAligned(request)).toEqual(ts.allocateAligned(request));
    check();
  });
});
