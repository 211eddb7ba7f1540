// allocateAligned without `available`: every GPU of the topology is available (issue 18, point 10).
import { describe, expect, it } from 'vitest';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset } from '../../src/hardware/presets.js';
import { engines, outcome } from '../support/engines.js';

const { wasm, ts } = await engines();
const volta = inventoryTopology(getPreset('dgx1-volta'));

describe('allocateAligned: available defaults to every GPU of the topology', () => {
  for (const [name, engine] of [
    ['wasm', wasm],
    ['ts', ts],
  ] as const) {
    it(`${name}: the same picks as available 0..gpus-1, for each policy, size and required set`, () => {
      const all = Array.from({ length: volta.gpus }, (_, g) => g);
      for (const policy of ['topology', 'besteffort'] as const) {
        for (let size = 1; size <= volta.gpus; size++) {
          for (const required of [[], [5]]) {
            const implicit = outcome(() => engine.allocateAligned({ topology: volta, size, policy, required }));
            const explicit = outcome(() => engine.allocateAligned({ topology: volta, available: all, size, policy, required }));
            expect(implicit, `${policy} size ${size} required ${required}`).toEqual(explicit);
            expect((implicit as { devices: number[] }).devices).toHaveLength(size);
          }
        }
      }
    });

    it(`${name}: the DGX-1 Volta pair 2-3 (NV2+PIX, 250) is the best pair without an available list`, () => {
      // Hand-checked from the DGX-1 table: 2-3 and 6-7 score 250, the highest pair; ties to lowest indices.
      expect(engine.allocateAligned({ topology: volta, size: 2 })).toEqual({ devices: [2, 3], score: 250 });
    });

    it(`${name}: a size above the topology's GPU count is infeasible, not an error`, () => {
      const r = engine.allocateAligned({ topology: volta, size: 9 });
      expect(r.devices).toEqual([]);
      expect(r.reason?.code).toBe('INSUFFICIENT_DEVICES');
    });
  }
});
