// The fragmentation measure against the worked examples of the FGD simulator's unit test
// (pkg/utils/frag_test.go TestNodeGpuShareFragAmountScore, quoted in FGD.md §5.2), on both backends.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/fleet/types.js';
import type { TypicalPod } from '../../src/fleet/typical.js';
import { engines } from '../support/engines.js';
import { fleetOnState } from '../support/fleet-on-state.js';

// TestingGenerateGetTypicalPods: (cpu milli, per-GPU milli, GPU count, model, percentage).
const LIST: Array<[number, number, number, string, number]> = [
  [6000, 465, 1, '', 9.33],
  [8000, 440, 1, '2080', 9.15],
  [8000, 475, 1, 'T4', 8.76],
  [8000, 440, 1, 'P100', 8.72],
  [2000, 465, 1, '', 8.68],
  [12000, 900, 1, '', 8.65],
  [4000, 900, 1, '', 8.43],
  [16000, 678, 1, 'T4', 8.36],
  [8000, 500, 1, '', 8.29],
  [6000, 511, 1, '', 8.11],
  [14000, 1000, 2, '2080', 0.54],
  [4000, 1000, 1, '2080', 0.43],
  [32000, 1000, 2, 'T4', 0.43],
  [16000, 1000, 1, 'V100M16', 0.4],
  [64000, 1000, 2, '', 0.4],
  [10000, 1000, 2, '', 0.4],
  [11400, 1000, 1, 'T4', 0.36],
  [16000, 1000, 1, 'T4', 0.36],
  [4000, 1000, 2, '', 0.36],
  [14000, 1000, 2, 'V100M16', 0.36],
  [8000, 1000, 4, '', 0.36],
  [16000, 1000, 2, '', 0.32],
  [2000, 1000, 1, 'T4', 0.32],
  [6000, 1000, 1, '', 0.32],
  [4000, 1000, 1, '', 0.32],
  [5000, 1000, 1, '', 0.32],
  [32000, 1000, 4, 'V100M16', 0.32],
  [32000, 1000, 2, '', 0.32],
  [24000, 1000, 8, '2080', 0.32],
  [40000, 1000, 4, '', 0.29],
  [32000, 1000, 8, '', 0.29],
  [32000, 1000, 1, 'T4', 0.29],
  [16000, 1000, 1, '', 0.25],
  [7000, 1000, 1, 'V100M16', 0.25],
  [24000, 1000, 1, 'T4', 0.25],
];
const typical = (rows: typeof LIST): TypicalPod[] => rows.map(([cpu, milli, gpus, model, pct]) => ({ cpu, milli, gpus, models: model === '' ? [] : [model], count: 0, weight: pct / 100 }));
const share = (id: string, milli: number): Pod => ({ id, cpu: 0, memory: 0, gpus: 1, milli, models: [] });

describe('fleet fragmentation: FGD.md §5.2 worked examples', async () => {
  const { wasm, ts } = await engines();
  for (const engine of [wasm, ts]) {
    /** A one-node fleet (model "1080", cpu left 1000) after the given shares, by best fit. */
    const frag = (gpus: number, shares: number[], rows = LIST): number => {
      const fleet = fleetOnState(engine, 'bestfit', [{ id: 'n', cpu: 1000, memoryMiB: 1 << 20, gpus, model: '1080' }], typical(rows), [0]);
      try {
        shares.forEach((m, i) => expect(fleet.place(share(`p${i}`, m))).not.toBeNull());
        expect(fleet.scheduler.view('n').cpu).toBe(1000);
        return fleet.scheduler.nodeFragmentation('n');
      } finally {
        fleet.scheduler.close();
      }
    };
    it(`${engine.backend}: [200,1000,1000,500] scores 2566.62`, () => {
      expect(frag(4, [800, 500])).toBeCloseTo(2566.62, 2);
    });
    it(`${engine.backend}: 4 idle GPUs score 3802.40 and 8 idle GPUs 7604.80`, () => {
      expect(frag(4, [])).toBeCloseTo(3802.4, 2);
      expect(frag(8, [])).toBeCloseTo(7604.8, 2);
    });
    it(`${engine.backend}: the single pod (6000m, 465) is Q4 (lacks CPU) on [200,1000,1000,500]: 251.91 = 0.0933 × 2700`, () => {
      expect(frag(4, [800, 500], [LIST[0]])).toBeCloseTo(251.91, 2);
    });
  }
});
