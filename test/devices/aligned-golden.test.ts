// Golden tables computed by hand from the rules (issue 4), not from the implementation.
import { describe, expect, it } from 'vitest';
import type { AlignedPolicy } from '../../src/devices/aligned.js';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset } from '../../src/hardware/presets.js';
import type { Topology } from '../../src/hardware/topology.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const volta = inventoryTopology(getPreset('dgx1-volta'));
const ALL8 = [0, 1, 2, 3, 4, 5, 6, 7];

// Five GPUs; only 3-4 is strong (NV2+PIX = 250), every other pair SYS (10).
const lonePair: Topology = {
  gpus: 5,
  links: [
    { a: 0, b: 1, pcie: 'SYS' },
    { a: 0, b: 2, pcie: 'SYS' },
    { a: 0, b: 3, pcie: 'SYS' },
    { a: 0, b: 4, pcie: 'SYS' },
    { a: 1, b: 2, pcie: 'SYS' },
    { a: 1, b: 3, pcie: 'SYS' },
    { a: 1, b: 4, pcie: 'SYS' },
    { a: 2, b: 3, pcie: 'SYS' },
    { a: 2, b: 4, pcie: 'SYS' },
    { a: 3, b: 4, pcie: 'PIX', nvlink: 2 },
  ],
};

type Row = { name: string; topology: Topology; available: number[]; required?: number[]; size: number; policy: AlignedPolicy; devices: number[]; score: number };

const rows: Row[] = [
  // DGX-1 Volta pair scores: 0-3, 1-2, 4-7, 5-6 = 230; 2-3, 6-7 = 250; 0-4, 1-5 = 210; 0-1, 4-5 = 150.
  // Best pairing sums 920 twice ({0,3}{1,2}{4,7}{5,6} and {0,4}{1,5}{2,3}{6,7}); {0,3} < {0,4} comes first.
  { name: 'volta besteffort 2 of 8', topology: volta, available: ALL8, size: 2, policy: 'besteffort', devices: [0, 3], score: 230 },
  { name: 'volta besteffort 4 with GPU 4 required', topology: volta, available: ALL8, required: [4], size: 4, policy: 'besteffort', devices: [4, 5, 6, 7], score: 1120 },
  { name: 'volta besteffort 4 of 8', topology: volta, available: ALL8, size: 4, policy: 'besteffort', devices: [0, 1, 2, 3], score: 1120 },
  { name: 'volta besteffort 8 of 8', topology: volta, available: ALL8, size: 8, policy: 'besteffort', devices: ALL8, score: 3000 }, // every row sums to 750: 8 × 750 / 2
  // Padded: [0,1,2] size 2 → {0,pad}{1,2} (230) beats {0,1}{2,pad} (150) and {0,2}{1,pad} (130).
  { name: 'volta besteffort padded 2 of 3', topology: volta, available: [0, 1, 2], size: 2, policy: 'besteffort', devices: [1, 2], score: 230 },
  // Size 1: the first available, or the required one.
  { name: 'besteffort size 1', topology: volta, available: [5, 2, 7], size: 1, policy: 'besteffort', devices: [5], score: 0 },
  { name: 'besteffort size 1 required', topology: volta, available: [5, 2, 7], required: [7], size: 1, policy: 'besteffort', devices: [7], score: 0 },
  // lonePair size 3 of 5 (one padding slot): {0,1,2}{3,4,pad} = 30 + 250 is first among the 280s.
  // Upstream would return the padded group [3,4]; gpualloc returns the unpadded one.
  { name: 'padded group never returned', topology: lonePair, available: [0, 1, 2, 3, 4], size: 3, policy: 'besteffort', devices: [0, 1, 2], score: 30 },
  // Required 3 must sit in an unpadded group: {0,1,pad}{2,3,4} (10 + 270) precedes {0,3,4}{1,2,pad}.
  { name: 'required GPU kept out of the padded group', topology: lonePair, available: [0, 1, 2, 3, 4], required: [3], size: 3, policy: 'besteffort', devices: [2, 3, 4], score: 270 },
  // The caller's order drives the enumeration: 4 first → {4,3,2}{1,0,pad} = 280 comes first.
  { name: 'available order matters for besteffort', topology: lonePair, available: [4, 3, 2, 1, 0], size: 3, policy: 'besteffort', devices: [2, 3, 4], score: 270 },
  { name: 'required 0 size 3', topology: lonePair, available: [0, 1, 2, 3, 4], required: [0], size: 3, policy: 'besteffort', devices: [0, 1, 2], score: 30 },

  // topology policy. 2 of 8 on Volta: 250 for {2,3} and {6,7}; every row sums to 750, so the
  // remainders tie too; lowest indices → {2,3}.
  { name: 'volta topology 2 of 8', topology: volta, available: ALL8, size: 2, policy: 'topology', devices: [2, 3], score: 250 },
  { name: 'volta topology 2 of the rest', topology: volta, available: [0, 1, 4, 5, 6, 7], size: 2, policy: 'topology', devices: [6, 7], score: 250 },
  // {0,4} and {1,5} both 210, remainders both 210 → {0,4}.
  { name: 'volta topology 2 of 4', topology: volta, available: [5, 4, 1, 0], size: 2, policy: 'topology', devices: [0, 4], score: 210 },
  { name: 'volta topology 4 of 8', topology: volta, available: ALL8, size: 4, policy: 'topology', devices: [0, 1, 2, 3], score: 1120 },
  { name: 'volta topology GPU 4 required', topology: volta, available: ALL8, required: [4], size: 2, policy: 'topology', devices: [4, 7], score: 230 },
  // Size 1: least connected. Row sums within {0..4}: 0 → 720, 1 → 520, 2 → 620, 3 → 620, 4 → 240.
  { name: 'topology size 1 least connected', topology: volta, available: [0, 1, 2, 3, 4], size: 1, policy: 'topology', devices: [4], score: 0 },
  // Every row of the full Volta sums to 750: tie → GPU 0.
  { name: 'topology size 1 tie', topology: volta, available: ALL8, size: 1, policy: 'topology', devices: [0], score: 0 },
  // lonePair size 3: {x,3,4} all 270 with remainders 10 → lowest {0,3,4}.
  { name: 'lonePair topology 3', topology: lonePair, available: [4, 3, 2, 1, 0], size: 3, policy: 'topology', devices: [0, 3, 4], score: 270 },
  // Remainder tie-break: on Volta minus nothing, {0,3} (230) vs {1,2} (230) vs {4,7}, {5,6}... with
  // 2-3 and 6-7 unavailable: available {0,1,3,4,5,7}: 230 for {0,3} and {4,7}; 210 for {0,4}, {1,5}.
  // Remainder of {0,3}: {1,4,5,7} = 10+210+10+150+230+130 = 740; of {4,7}: {0,1,3,5} = 150+230+10+130+210+10 = 740 → {0,3}.
  { name: 'topology remainder tie then lowest', topology: volta, available: [0, 1, 3, 4, 5, 7], size: 2, policy: 'topology', devices: [0, 3], score: 230 },
];

describe('allocateAligned golden table', () => {
  for (const row of rows) {
    it(row.name, () => {
      for (const e of [wasm, ts]) {
        const got = e.allocateAligned({ topology: row.topology, available: row.available, required: row.required, size: row.size, policy: row.policy });
        expect(got).toEqual({ devices: row.devices, score: row.score });
      }
    });
  }

  it('DGX-1 Volta: 2 GPUs four times in a row, then nothing (besteffort)', () => {
    for (const e of [wasm, ts]) {
      let available = [...ALL8];
      const picks: number[][] = [];
      for (let k = 0; k < 4; k++) {
        const r = e.allocateAligned({ topology: volta, available, size: 2, policy: 'besteffort' });
        picks.push(r.devices);
        available = available.filter((g) => !(r.devices as readonly number[]).includes(g));
      }
      expect(picks).toEqual([
        [0, 3],
        [1, 2],
        [4, 7],
        [5, 6],
      ]);
      const last = e.allocateAligned({ topology: volta, available, size: 2, policy: 'besteffort' });
      expect(last.devices).toEqual([]);
      expect(last.reason?.code).toBe('INSUFFICIENT_DEVICES');
    }
  });

  it('DGX-1 Volta: 2 GPUs four times in a row (topology policy)', () => {
    for (const e of [wasm, ts]) {
      let available = [...ALL8];
      const picks: number[][] = [];
      for (let k = 0; k < 4; k++) {
        const r = e.allocateAligned({ topology: volta, available, size: 2 });
        picks.push(r.devices);
        available = available.filter((g) => !(r.devices as readonly number[]).includes(g));
      }
      // {2,3}, {6,7}, then {0,4} / {1,5} tie (210, remainders 210) → {0,4}, then {1,5}.
      expect(picks).toEqual([
        [2, 3],
        [6, 7],
        [0, 4],
        [1, 5],
      ]);
    }
  });
});
