// The fleet row of the placement-quality bench (bench/dra-quality-fleet.ts): which claims map to a
// fleet pod and how (a share of an 80 GiB GPU by memory, whole GPUs, a GPU + NIC pair only where a
// root holds one GPU), which fleets' streams get the row, and a stream replayed through the FGD pod
// scheduler counts shares as the GPU's memory allows and places alike twice.
import { describe, expect, it } from 'vitest';
import { buildFleet, shapeClaim, shapeMix } from '../../bench/dra-fleets/index.js';
import { fleetMaps, fleetPodOf, runFleetStream } from '../../bench/dra-quality-fleet.js';
import { openEngine } from '../../src/engine.js';

const engine = await openEngine({ backend: 'wasm' });

describe('the fleet FGD row of bench:dra-quality', () => {
  it('maps shares by memory, whole GPUs by count, a pair only where each PCIe root holds one GPU, and no MIG profile', () => {
    const dgx = buildFleet('dgx-h100');
    const dynamic = buildFleet('h100-dynamic-mig');
    expect(fleetPodOf('shared:10', dgx)).toEqual({ gpus: 1, milli: 125 });
    expect(fleetPodOf('shared:30', dgx)).toEqual({ gpus: 1, milli: 375 });
    expect(fleetPodOf('example:2', dgx)).toEqual({ gpus: 2, milli: 1000 });
    expect(fleetPodOf('gpu:4', dynamic)).toEqual({ gpus: 4, milli: 1000 });
    expect(fleetPodOf('pair', dgx)).toEqual({ gpus: 1, milli: 1000 });
    // Two GPUs per root: a pair's NIC may be taken while a GPU of its root is free.
    expect(fleetPodOf('pair', dynamic)).toBeUndefined();
    expect(fleetPodOf('mig:3g.40gb', dynamic)).toBeUndefined();
  });

  it('gives the row to the streams of the whole-GPU and shared fleets, not to those with MIG claims', () => {
    const maps = (name: Parameters<typeof buildFleet>[0]) => {
      const fleet = buildFleet(name);
      return fleetMaps(
        shapeMix(fleet).map((m) => m.shape),
        fleet,
      );
    };
    expect(maps('dgx-h100')).toBe(true);
    expect(maps('example-shared')).toBe(true);
    expect(maps('h100-dynamic-mig')).toBe(false);
    expect(maps('a100-static-mig')).toBe(false);
    expect(maps('nvidia-mix')).toBe(false);
  });

  it('fits two 40 GiB shares on each 80 GiB GPU and no more, and places a stream alike twice', () => {
    const fleet = buildFleet('example-shared');
    const stream = Array.from({ length: 2 * fleet.gpus.size + 1 }, (_, i) => shapeClaim(`c-${i}`, 'shared:40'));
    const mix = [{ shape: 'shared:40', weight: 1 }];
    const run = runFleetStream(engine, fleet, stream, mix, 1);
    expect(run.placed).toBe(2 * fleet.gpus.size);
    expect(run.placedBeforeFirstFailure).toBe(2 * fleet.gpus.size);
    expect(run.allocatedShare).toBe(1);
    const again = runFleetStream(engine, fleet, stream, mix, 1);
    expect(again.placements).toBe(run.placements);
    expect(run.placements).toMatch(/^[0-9a-f]{64}$/);
  });

  it('counts a 2-GPU pod across two roots as a split a free root could have avoided', () => {
    // One share first: FGD packs the 2-GPU pod beside it and takes the lowest free indexes, GPUs 1 and 2 (two roots), where GPUs 2 and 3 share one.
    const fleet = buildFleet('example-shared');
    const stream = [shapeClaim('c-0', 'shared:10'), shapeClaim('c-1', 'example:2')];
    const run = runFleetStream(
      engine,
      fleet,
      stream,
      [
        { shape: 'shared:10', weight: 1 },
        { shape: 'example:2', weight: 1 },
      ],
      1,
    );
    expect(run.placed).toBe(2);
    expect(run.multiGpu).toBe(1);
    expect(run.split).toBe(1);
    expect(run.avoidableSplit).toBe(1);
  });
});
