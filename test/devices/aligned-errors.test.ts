import { describe, expect, it } from 'vitest';
import { BESTEFFORT_MAX_AVAILABLE } from '../../src/devices/aligned.js';
import { openEngine } from '../../src/engine.js';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset } from '../../src/hardware/presets.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const volta = inventoryTopology(getPreset('dgx1-volta'));

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AllocationError);
    return (e as AllocationError).code;
  }
  return 'no error';
}

describe('allocateAligned: malformed input throws, infeasible returns a reason', () => {
  for (const e of [wasm, ts]) {
    it(`rejects bad sizes, indices and policies (${e.backend})`, () => {
      const base = { topology: volta, available: [0, 1, 2, 3], size: 2 };
      expect(code(() => e.allocateAligned({ ...base, size: 0 }))).toBe('INVALID_ARGUMENT');
      expect(code(() => e.allocateAligned({ ...base, size: 1.5 }))).toBe('INVALID_ARGUMENT');
      expect(code(() => e.allocateAligned({ ...base, size: Number.NaN }))).toBe('INVALID_ARGUMENT');
      expect(code(() => e.allocateAligned({ ...base, available: [0, 8] }))).toBe('UNKNOWN_DEVICE_ID');
      expect(code(() => e.allocateAligned({ ...base, available: [0, -1] }))).toBe('INVALID_ARGUMENT');
      expect(code(() => e.allocateAligned({ ...base, available: [0, 2, 0] }))).toBe('DUPLICATE_DEVICE');
      expect(code(() => e.allocateAligned({ ...base, required: [9] }))).toBe('UNKNOWN_DEVICE_ID');
      expect(code(() => e.allocateAligned({ ...base, required: [1, 1] }))).toBe('DUPLICATE_DEVICE');
      expect(code(() => e.allocateAligned({ ...base, policy: 'packed' as never }))).toBe('UNKNOWN_POLICY');
      expect(code(() => e.allocateAligned({ ...base, available: '0,1' as never }))).toBe('INVALID_ARGUMENT');
      expect(code(() => e.allocateAligned({ ...base, topology: { gpus: 2, links: [{ a: 0, b: 5 }] } }))).toBe('INVALID_TOPOLOGY');
      expect(code(() => e.allocateAligned(null as never))).toBe('INVALID_ARGUMENT');
      expect(() => e.allocateAligned({ ...base, available: [0, 8] })).toThrow(/available\[1\].*8/);
      expect(() => e.allocateAligned({ ...base, size: 0 })).toThrow(/size.*0/);
    });

    it(`returns reasons in upstream's order (${e.backend})`, () => {
      expect(e.allocateAligned({ topology: volta, available: [0, 1], size: 3 })).toEqual({ devices: [], score: 0, reason: { code: 'INSUFFICIENT_DEVICES', message: expect.stringContaining('2') } });
      expect(e.allocateAligned({ topology: volta, available: [0, 1, 2], required: [0, 1, 2], size: 2 }).reason?.code).toBe('TOO_MANY_REQUIRED');
      expect(e.allocateAligned({ topology: volta, available: [0, 1, 2], required: [5], size: 2, policy: 'besteffort' }).reason?.code).toBe('REQUIRED_NOT_AVAILABLE');
      expect(e.allocateAligned({ topology: volta, available: [], size: 1 }).reason?.code).toBe('INSUFFICIENT_DEVICES');
    });

    it(`limits besteffort to ${BESTEFFORT_MAX_AVAILABLE} available GPUs, never hangs (${e.backend})`, () => {
      const big = { gpus: 40, links: [] };
      const available = Array.from({ length: BESTEFFORT_MAX_AVAILABLE + 1 }, (_, g) => g);
      expect(code(() => e.allocateAligned({ topology: big, available, size: 4, policy: 'besteffort' }))).toBe('LIMIT_EXCEEDED');
      // Trivial sizes need no search.
      expect(e.allocateAligned({ topology: big, available, size: 1, policy: 'besteffort' }).devices).toEqual([0]);
      expect(e.allocateAligned({ topology: big, available, size: available.length, policy: 'besteffort' }).devices).toEqual(available);
      // The topology policy answers on 64 GPUs.
      const all = Array.from({ length: 64 }, (_, g) => g);
      expect(e.allocateAligned({ topology: { gpus: 64, links: [] }, available: all, size: 32 }).devices).toEqual(all.slice(0, 32));
    });

    it(`never mutates its input (${e.backend})`, () => {
      const available = [7, 3, 0, 4];
      const required = [4];
      const topology = structuredClone(volta);
      e.allocateAligned({ topology, available, required, size: 2, policy: 'besteffort' });
      e.allocateAligned({ topology, available, required, size: 2 });
      expect(available).toEqual([7, 3, 0, 4]);
      expect(required).toEqual([4]);
      expect(topology).toEqual(volta);
    });
  }

  it('reloads the pair matrix when the topology object changes in place', () => {
    const t = structuredClone(volta);
    expect(wasm.allocateAligned({ topology: t, available: [0, 1, 2, 3], size: 2 }).devices).toEqual([2, 3]);
    t.links = t.links.map((l) => (l.a === 0 && l.b === 1 ? { ...l, nvlink: 4 } : l));
    expect(wasm.allocateAligned({ topology: t, available: [0, 1, 2, 3], size: 2 }).devices).toEqual([0, 1]);
    // An edit inside a link object is noticed too, and so is one that makes the topology invalid.
    for (const e of [wasm, ts]) {
      const u = structuredClone(volta);
      expect(e.allocateAligned({ topology: u, available: [0, 1, 2, 3], size: 2 }).devices).toEqual([2, 3]);
      u.links.find((l) => l.a === 1 && l.b === 3)!.nvlink = 5;
      expect(e.allocateAligned({ topology: u, available: [0, 1, 2, 3], size: 2 }).devices).toEqual([1, 3]);
      u.links[0].b = 99;
      expect(code(() => e.allocateAligned({ topology: u, available: [0, 1, 2, 3], size: 2 }))).toBe('INVALID_TOPOLOGY');
    }
  });

  it('keeps WASM memory stable over many calls after warm-up', async () => {
    // A core of its own: the shared one's heap holds whatever the worker's other files left, so its growth here would measure them.
    const own = await openEngine({ backend: 'wasm' });
    const req = { topology: inventoryTopology(getPreset('dgx2')), available: Array.from({ length: 16 }, (_, g) => g), size: 4, policy: 'besteffort' as const };
    const mixed = (k: number) => ({ ...req, size: 2 + (k % 7), policy: k % 2 === 0 ? ('besteffort' as const) : ('topology' as const) });
    // Warm-up: every size and policy the loop asks for, so the heap has grown to what they need.
    for (let k = 0; k < 50; k++) own.allocateAligned(mixed(k));
    const pages = own.memoryPages();
    for (let k = 0; k < 2000; k++) own.allocateAligned(mixed(k));
    expect(own.memoryPages()).toBe(pages);
  });
});
