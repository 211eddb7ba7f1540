// The placement-quality bench's record of placements (bench/dra-quality.bench.ts): a stream run
// twice in one mode gives the same digest of its placements, first-fit and scored place a static-MIG
// stream differently (their splits differ), and placementDifferences reports exactly the rows,
// seeds and counts that changed. The speed protocol (warm-up, interleaving, rounds) is exercised by
// npm run bench:dra-quality; nothing here is timed.
import { describe, expect, it } from 'vitest';
import { buildFleet, seededStream, shapeMix } from '../../bench/dra-fleets/index.js';
import { placementDifferences, type QualityRow, runStream } from '../../bench/dra-quality.bench.js';

const fleet = buildFleet('a100-static-mig', 1);
const mix = shapeMix(fleet);

describe('bench:dra-quality placement digests', () => {
  it('are the same for the same stream and mode, and tell first-fit from scored', () => {
    const first = runStream(fleet, seededStream(fleet, mix, 1), 'first-fit', 'pack', 1);
    const again = runStream(fleet, seededStream(fleet, mix, 1), 'first-fit', 'pack', 1);
    const scored = runStream(fleet, seededStream(fleet, mix, 1), 'scored', 'pack', 1);
    expect(first.placements).toMatch(/^[0-9a-f]{64}$/);
    expect(again.placements).toBe(first.placements);
    expect(again.allocatedShare).toBe(first.allocatedShare);
    // Scored keeps multi-GPU claims under one root where first-fit splits them: other devices, another digest.
    expect(scored.split).toBeLessThan(first.split);
    expect(scored.placements).not.toBe(first.placements);
    expect(first.rounds).toBe(1);
    expect(first.cpuMsPerRound).toEqual([first.cpuMs]);
  });

  it('placementDifferences names each changed seed and count, and nothing when all match', () => {
    const row: QualityRow = {
      fleet: 'nvidia-mix',
      stream: 'mix',
      mode: 'scored',
      nodeScore: 'fragmentation',
      workload: true,
      nodes: 24,
      gpus: 192,
      seeds: [1, 2],
      allocatedShare: 0.9,
      unallocatedShare: 0.1,
      perSeedAllocated: [0.9, 0.9],
      placedBeforeFirstFailure: 80,
      multiGpu: 10,
      split: 2,
      avoidableSplit: 0,
      usPerClaimMedian: 100,
      usPerClaimMean: 120,
      usHalfFullMedian: 100,
      cpuMsPerClaim: 0.5,
      cpuMsPerClaimPerRound: [0.5],
      perSeedPlacements: ['a'.repeat(64), 'b'.repeat(64)],
    };
    // Times differ between runs and are not placements.
    expect(placementDifferences([{ ...row, cpuMsPerClaim: 9, usPerClaimMedian: 1 }], [row])).toEqual([]);
    const moved = { ...row, perSeedPlacements: ['a'.repeat(64), 'c'.repeat(64)], perSeedAllocated: [0.9, 0.8], split: 3 };
    const found = placementDifferences([moved], [row]);
    expect(found).toHaveLength(3);
    expect(found[0]).toContain('seed 2: allocated 0.8 against 0.9');
    expect(found[1]).toContain('seed 2: placements differ');
    expect(found[2]).toContain('split 3 against 2');
    // Another row (another node score) is not compared with this one.
    expect(placementDifferences([{ ...moved, nodeScore: 'pack' }], [row])).toEqual([]);
  });
});
