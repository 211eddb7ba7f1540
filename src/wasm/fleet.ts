// Marshaling for the fleet kernels (assembly/fleet.ts): a fleet's state lives in a block of the
// core's heap for the fleet's whole life, so a pod costs two calls with scalar arguments (pick,
// refresh) and no copying. Freed blocks are kept for reuse by the next fleet of the same or smaller
// size (the core's stub runtime never returns memory), and a restarted core (after a trap) voids
// every block: a fleet used after that throws INTERNAL.

import type { FleetKernels, FleetMemory } from '../fleet/kernels.js';
import { AllocationError } from '../shared/errors.js';
import type { WasmCore } from './core.js';

type FleetExports = {
  fleetAlloc(ints: number, floats: number): number;
  fleetFloats(block: number, ints: number): number;
  fleetInit(s: number, f: number): void;
  fleetPick(s: number, f: number, policy: number, cls: number, tree: number, cpu: number, mem: number, num: number, milli: number, mask: number, u1: number, u2: number): number;
  fleetRefresh(s: number, f: number, node: number): void;
};

type WasmFleet = FleetMemory & { s: number; f: number; generation: number };

/** The fleet kernels over the WebAssembly core. */
export function fleetWasmKernels(core: WasmCore): FleetKernels {
  const ex = () => core.exports as unknown as FleetExports;
  /** Freed blocks (pointer, bytes), for this core generation. */
  let spare: { block: number; bytes: number }[] = [];
  let spareGeneration = core.generation;
  const check = (m: FleetMemory): WasmFleet => {
    const w = m as WasmFleet;
    if (w.generation !== core.generation) throw new AllocationError('INTERNAL', "fleet: the WebAssembly core was restarted after a trap; this fleet's state is gone");
    return w;
  };
  return {
    fleetAlloc(ints, floats) {
      if (spareGeneration !== core.generation) {
        spare = [];
        spareGeneration = core.generation;
      }
      const bytes = ((ints * 4 + 15) & ~15) + floats * 8;
      const k = spare.findIndex((b) => b.bytes >= bytes);
      let block: number;
      if (k >= 0) {
        block = spare[k]!.block; // findIndex found it
        spare.splice(k, 1);
        new Uint8Array(core.exports.memory.buffer, block, bytes).fill(0);
      } else block = core.call(() => ex().fleetAlloc(ints, floats));
      const f = core.call(() => ex().fleetFloats(block, ints));
      const generation = core.generation;
      let live = true;
      const m: WasmFleet = {
        s: block,
        f,
        generation,
        ints: () => {
          if (!live) throw new Error('fleet memory used after free()');
          return new Int32Array(core.exports.memory.buffer, block, ints);
        },
        floats: () => {
          if (!live) throw new Error('fleet memory used after free()');
          return new Float64Array(core.exports.memory.buffer, f, floats);
        },
        free: () => {
          if (!live) return;
          live = false;
          if (core.generation === generation) spare.push({ block, bytes });
        },
      };
      return m;
    },
    fleetInit(memory) {
      const m = check(memory);
      core.call(() => ex().fleetInit(m.s, m.f));
    },
    fleetPick(memory, policy, cls, tree, cpu, mem, num, milli, mask, u1, u2) {
      const m = check(memory);
      try {
        return ex().fleetPick(m.s, m.f, policy, cls, tree, cpu, mem, num, milli, mask, u1, u2);
      } catch (error) {
        throw core.trapped(error);
      }
    },
    fleetRefresh(memory, node) {
      const m = check(memory);
      try {
        ex().fleetRefresh(m.s, m.f, node);
      } catch (error) {
        throw core.trapped(error);
      }
    },
  };
}
