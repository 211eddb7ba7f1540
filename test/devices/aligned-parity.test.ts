import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset } from '../../src/hardware/presets.js';
import type { Topology } from '../../src/hardware/topology.js';
import { engines } from '../support/engines.js';
import { arbRequest, arbTopology } from '../support/oracle/topologies.js';

const { wasm, ts } = await engines();

describe('allocateAligned: wasm and ts agree', () => {
  it('besteffort on random topologies of up to 16 GPUs', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 16).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const req = { topology: t, available: r.available, required: r.required, size: r.size, policy: 'besteffort' as const };
          expect(wasm.allocateAligned(req)).toEqual(ts.allocateAligned(req));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('topology on random topologies of up to 16 GPUs', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 16).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const req = { topology: t, available: r.available, required: r.required, size: r.size };
          expect(wasm.allocateAligned(req)).toEqual(ts.allocateAligned(req));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('topology above the exact range (greedy + swaps), 24 to 64 GPUs', () => {
    fc.assert(
      fc.property(
        arbTopology(24, 64).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const req = { topology: t, available: r.available, required: r.required, size: r.size };
          const got = wasm.allocateAligned(req);
          expect(got).toEqual(ts.allocateAligned(req));
          if (got.reason === undefined) {
            expect(got.devices.length).toBe(r.size);
            for (const g of r.required) expect(got.devices).toContain(g);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('both policies on every preset and size, with a rotating required GPU', () => {
    for (const name of ['dgx1-pascal', 'dgx1-volta', '4x-rtx8000', 'dgx2', 'dgx-a100', 'dgx-h100', '8x-l40s-pcie']) {
      const topology: Topology = inventoryTopology(getPreset(name));
      const all = Array.from({ length: topology.gpus }, (_, g) => g);
      for (let size = 1; size <= topology.gpus; size++) {
        for (const policy of ['besteffort', 'topology'] as const) {
          const required = size > 1 ? [size % topology.gpus] : [];
          const req = { topology, available: all, required, size, policy };
          const w = wasm.allocateAligned(req);
          expect(w).toEqual(ts.allocateAligned(req));
          expect(w.devices.length).toBe(size);
        }
      }
    }
  });
});
