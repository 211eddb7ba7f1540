// A long-lived service's traffic through the wasm backend: mixed valid calls of every capability, bad
// input and core traps interleaved. Returns WASM memory in 64 KiB pages after warm-up and at the end.
import type { Engine } from '../../../src/engine.js';
import { AllocationError } from '../../../src/shared/errors.js';

const G = 2 ** 30;
const topology = {
  gpus: 8,
  links: [
    { a: 0, b: 1, nvlink: 12 },
    { a: 2, b: 3, nvlink: 12 },
    { a: 4, b: 5, pcie: 'PIX' as const },
    { a: 6, b: 7, pcie: 'SYS' as const },
  ],
};
const gpus = Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * G }));
const ids = Array.from({ length: 64 }, (_, k) => `cuda${(k * 37) % 64}`);
const devices = Array.from({ length: 32 }, (_, k) => `GPU-${k >> 2}::${k & 3}`);

/** Runs `calls` mixed calls (one in 1000 malformed, one in 100,000 a trap); returns page counts. */
export function soak(engine: Engine, calls: number): { warm: number; end: number; max: number; errors: number } {
  const state = engine.createClusterState({
    nodes: [
      { id: 'n1', gpus, topology },
      { id: 'n2', gpus },
    ],
  });
  let warm = 0;
  let max = 0;
  let errors = 0;
  for (let k = 0; k < calls; k++) {
    try {
      switch (k % 8) {
        case 0:
          engine.naturalSort(ids.slice(0, 1 + (k % 64)));
          break;
        case 1:
          engine.splitDevices({ agents: ['a', 'b', 'c'], mode: 'auto-split', devices: { cuda: ids.slice(0, 8) }, amounts: { mem: 512 * G } });
          break;
        case 2:
          engine.allocateReplicas({ devices, available: devices.slice(k % 8), size: 1 + (k % 6), policy: k % 3 === 0 ? 'pack' : 'distributed' });
          break;
        case 3:
          engine.allocateAligned({ topology, available: [0, 1, 2, 3, 4, 5, 6, 7], size: 1 + (k % 4) });
          break;
        case 4:
          engine.planPlacement({ gpus, topology, memory: (1 + (k % 200)) * G, limit: 4 });
          break;
        case 5: {
          const p = state.plan({ memory: (1 + (k % 60)) * G, limit: 2 });
          if (p.options.length > 0) state.commit(p.options[0]);
          const slots = state.listSlots();
          if (slots.length > 6) state.release(slots[0].id);
          break;
        }
        case 6:
          if (k % 1000 === 6) engine.naturalSort([1 as never]);
          else engine.naturalSort(['b10', 'b9', 'a']);
          break;
        default:
          if (k % 100_000 === 7) engine._debugTrap((k % 3) as 0 | 1 | 2);
          else engine.planPlacement({ gpus, memory: 40 * G, tensorParallelSizes: [1, 2] });
      }
    } catch (error) {
      if (!(error instanceof AllocationError)) throw error;
      errors++;
    }
    if (k === 10_000) warm = engine.memoryPages();
    if ((k & 1023) === 0) max = Math.max(max, engine.memoryPages());
  }
  return { warm, end: engine.memoryPages(), max: Math.max(max, engine.memoryPages()), errors };
}
