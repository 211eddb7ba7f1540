// The benchmark's fleets are what NVIDIA's GPU driver publishes: device names, the standard
// attributes, DynamicMIG's counter sets (one per GPU, every placement consuming its memory slices,
// the whole GPU consuming all of it), static MIG layouts that fit, and objects the strict reader
// accepts. Streams are seeded: same seed, same claims, arriving until 100 % of the GPUs.
import { describe, expect, it } from 'vitest';
import { A100_80GB, ALL_BALANCED, buildFleet, dynamicMigNode, fleetGpus, H100_80GB, HGX_H100_LAYOUT, placeLayout, seededStream, shapeMix } from '../../bench/dra-fleets/index.js';
import { readResourceSlices } from '../../src/dra/index.js';

type Dev = { name: string; attributes: Record<string, { string?: string }>; consumesCounters?: Array<{ counterSet: string; counters: Record<string, { value: string }> }> };
type Slice = { spec: { devices?: Dev[]; sharedCounters?: Array<{ name: string; counters: Record<string, { value: string }> }> } };

describe('driver-faithful fleets', () => {
  it('a DynamicMIG H100 node: per GPU a counter set, the whole GPU and every placement (152 devices), named as the driver names them', () => {
    const slices = dynamicMigNode('n', H100_80GB, HGX_H100_LAYOUT) as Slice[];
    expect(() => readResourceSlices(slices)).not.toThrow();
    const devices = slices.flatMap((s) => s.spec.devices ?? []);
    const sets = slices.flatMap((s) => s.spec.sharedCounters ?? []);
    expect(devices).toHaveLength(152);
    expect(sets.map((s) => s.name)).toEqual(Array.from({ length: 8 }, (_, g) => `gpu-${g}-counter-set`));
    expect(Object.keys(sets[0].counters).sort()).toEqual(
      ['copy-engines', 'decoders', 'encoders', 'jpeg-engines', 'memory', ...Array.from({ length: 8 }, (_, i) => `memory-slice-${i}`), 'multiprocessors', 'ofa-engines'].sort(),
    );
    expect(sets[0].counters.encoders.value).toBe('0');
    for (const d of devices) {
      expect(d.name).toMatch(/^gpu-\d+(-mig-[0-9a-z]+-\d+-\d+)?$/);
      expect(d.attributes['resource.kubernetes.io/pcieRoot']?.string).toMatch(/^pci0000:[0-9a-f]{2}$/);
      expect(d.attributes['resource.kubernetes.io/pciBusID']?.string).toMatch(/^0000:[0-9a-f]{2}:00\.0$/);
    }
    const whole = devices.find((d) => d.name === 'gpu-3') as Dev;
    expect(whole.consumesCounters?.[0].counters).toEqual(sets[3].counters);
    const threeG = devices.find((d) => d.name === 'gpu-3-mig-3g40gb-9-4') as Dev;
    expect(Object.keys(threeG.consumesCounters?.[0].counters ?? {}).filter((k) => k.startsWith('memory-slice-'))).toEqual(['memory-slice-4', 'memory-slice-5', 'memory-slice-6', 'memory-slice-7']);
  });

  it("static MIG layouts are placed where they fit (mig-parted's all-balanced on an A100 80GB)", () => {
    const placed = placeLayout(A100_80GB, ALL_BALANCED);
    const used = new Set<number>();
    for (const { profile, start } of placed) {
      expect(profile.starts).toContain(start);
      for (let i = start; i < start + profile.size; i++) {
        expect(used.has(i)).toBe(false);
        used.add(i);
      }
    }
    expect(placed.map((p) => p.profile.name).sort()).toEqual(['1g.10gb', '1g.10gb', '2g.20gb', '3g.40gb']);
  });

  it('streams are seeded and arrive until the fleet’s GPUs are asked for', () => {
    const fleet = buildFleet('nvidia-mix');
    expect(fleetGpus(fleet)).toBe(24 * 8);
    const a = seededStream(fleet, shapeMix(fleet), 3);
    expect(seededStream(fleet, shapeMix(fleet), 3)).toEqual(a);
    expect(seededStream(fleet, shapeMix(fleet), 4)).not.toEqual(a);
    const asked = a.reduce((s, c) => s + c.gpus, 0);
    expect(asked).toBeGreaterThanOrEqual(fleetGpus(fleet));
    expect(asked - a[a.length - 1].gpus).toBeLessThan(fleetGpus(fleet));
  });
});
