// The fragmentation term's look-ahead: a parent's expected stranded share is its free share less
// what the next LOOKAHEAD_STEPS claims of the workload are expected to take of it, each taken
// where the parent can hold it and that is worth more than passing it on. Checked against a
// recursion written out here on a node small enough to do by hand, and on NVIDIA's DynamicMIG H100
// as its driver publishes it: a claim stream first-fit strands partitions on and scored does not.
import { describe, expect, it } from 'vitest';
import { buildFleet, dynamicMigNode, H100_80GB, HGX_H100_LAYOUT, NVIDIA_CLASSES, shapeClaim, shapeMix } from '../../bench/dra-fleets/index.js';
import { createDraCluster, DEFAULT_DRA_FEATURES, readDeviceClasses, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, addClaims, gatherPools, LOOKAHEAD_STEPS, PLACEMENT_SCALE, selectionOf, TopologySetup, workloadShapes } from '../../src/dra/testing.js';
import { claimObject, classObject, DRIVER, exactRequest, nodeObject, sliceObject } from '../support/dra-objects.js';

describe('the look-ahead of the fragmentation term', () => {
  // One counter set of two slots: `small-0` and `small-1` take one slot each, `big` takes both.
  const node = nodeObject('node-1', {});
  const sets = [{ name: 'slots', counters: { slots: { value: '2' } } }];
  const device = (name: string, slots: number) => ({
    name,
    attributes: { kind: { string: name.replace(/-\d$/, '') } },
    consumesCounters: [{ counterSet: 'slots', counters: { slots: { value: String(slots) } } }],
  });
  const slices = [sliceObject('node-1-slots', { devices: [device('small-0', 1), device('small-1', 1), device('big', 2)], sharedCounters: sets })];
  const classes = [classObject('gpu')];
  const claimOf = (kind: string) =>
    claimObject(kind, { devices: { requests: [exactRequest('r', 'gpu', 1, { selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].kind == "${kind}"` } }] })] } }, 'ml');

  /** The layout and the workload "small" : "big" = 1 : 1 over it, with the node in its empty state. */
  function table() {
    const features = { ...DEFAULT_DRA_FEATURES, partitionableDevices: true };
    const n = readNodes(node)[0]!;
    const model = new AllocationModel(n, features, gatherPools(readResourceSlices(slices), n, features), { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() });
    const probe = new AllocationModel(n, features, gatherPools(readResourceSlices(slices), n, features), { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() });
    addClaims(probe, readResourceClaims([claimOf('small'), claimOf('big')]), readDeviceClasses(classes));
    const setup = new TopologySetup(model);
    const shapes = setup.shapeTable(workloadShapes(probe, [1, 1], selectionOf(probe)));
    return { shapes, left: setup.layout.baseLeft(model), parent: setup.parentOf[0]! };
  }

  /** The same recursion over "slots used": a draw is small or big, each half the time; 500 thousandths a slot. */
  function byHand(steps: number, used: number): number {
    if (steps === 0) return 0;
    const pass = byHand(steps - 1, used);
    const small = used < 2 ? Math.max(pass, 500 + byHand(steps - 1, used + 1)) : pass;
    const big = used === 0 ? Math.max(pass, 1000 + byHand(steps - 1, 2)) : pass;
    return (small + big) / 2;
  }

  it('is the expected share the next claims take: 750 and 875 thousandths of the empty parent after one and two steps', () => {
    const { shapes, left, parent } = table();
    expect(shapes.expectedTake(parent, left, 1)).toBeCloseTo(750, 9);
    expect(shapes.expectedTake(parent, left, 2)).toBeCloseTo(875, 9);
    // One slot used (a small on it): 250 after one step (a small draw fits; a big one passes), 375 after two.
    left[0]! -= 1;
    expect(shapes.expectedTake(parent, left, 1)).toBeCloseTo(250, 9);
    expect(shapes.expectedTake(parent, left, 2)).toBeCloseTo(375, 9);
    for (let h = 1; h <= LOOKAHEAD_STEPS; h++) expect(shapes.expectedTake(parent, left, h)).toBeCloseTo(byHand(h, 1), 9);
    left[0]! += 1;
    for (let h = 1; h <= LOOKAHEAD_STEPS; h++) expect(shapes.expectedTake(parent, left, h)).toBeCloseTo(byHand(h, 0), 9);
  });

  it('makes a pick change the term by the expected stranded share it leaves (free worth less the look-ahead), plus the placements lost', () => {
    const { shapes, left, parent } = table();
    // No compute slices published: a device is worth its share of the counters (a small 500, big 1000).
    expect(Array.from(shapes.layout.worth.subarray(0, 3))).toEqual([500, 500, 1000]);
    // The state's part: what the next claims are expected to take, negated; a pick adds −its worth.
    const state = (used: number) => Math.round(-1000 * byHand(LOOKAHEAD_STEPS, used)) * PLACEMENT_SCALE;
    expect(shapes.fragmentation(parent, left)).toBe(state(0));
    expect(shapes.held(0)).toBe(-500_000 * PLACEMENT_SCALE);
    // A slot taken (`small-0`): `big` is lost (weight 500 of 1000); both smalls still fit the counters.
    left[0]! -= 1;
    const change = shapes.fragmentation(parent, left) + shapes.held(0) - state(0);
    expect(change).toBe(state(1) + 500 - 500_000 * PLACEMENT_SCALE - state(0));
    // In the term's units: the stranded share (free worth less the look-ahead's take) grew by this much.
    const stranded = (used: number) => 1000 * (1000 - 500 * used - byHand(LOOKAHEAD_STEPS, used));
    // (each part rounded to the term's integer units on its own: at most one unit apart)
    expect(Math.abs((change - 500) / PLACEMENT_SCALE - (stranded(1) - stranded(0)))).toBeLessThanOrEqual(1);
    // Full: nothing is left to strand.
    left[0]! -= 1;
    expect(shapes.fragmentation(parent, left)).toBe(0);
  });
});

describe('scored with the look-ahead on a DynamicMIG H100 (NVIDIA driver slices)', () => {
  // One HGX H100 GPU: its counter set, the whole GPU and every MIG placement.
  const layout = { ...HGX_H100_LAYOUT, gpuBus: HGX_H100_LAYOUT.gpuBus.slice(0, 1), gpuRoot: HGX_H100_LAYOUT.gpuRoot.slice(0, 1), gpuNuma: HGX_H100_LAYOUT.gpuNuma.slice(0, 1) };
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: {} } };
  const slices = dynamicMigNode('node-1', H100_80GB, layout);
  const run = (mode: 'first-fit' | 'scored', shapes: string[], workload?: Array<{ claim: unknown; weight: number }>) => {
    const cluster = createDraCluster({
      classes: NVIDIA_CLASSES,
      slices,
      nodes: [node],
      mode,
      ...(workload !== undefined ? { workload } : {}),
    });
    return shapes.map((s, i) => {
      const r = cluster.schedule(shapeClaim(`c-${i}`, s).claim);
      return r.node === undefined ? '-' : r.results[0]!.devices.results.map((d) => d.device).join(',');
    });
  };

  it('first-fit strands the 4g.40gb behind a 1g.10gb on slice 0; scored keeps it, and both are placed', () => {
    expect(run('first-fit', ['mig:1g.10gb', 'mig:4g.40gb'])).toEqual(['gpu-0-mig-1g10gb-19-0', '-']);
    const scored = run('scored', ['mig:1g.10gb', 'mig:4g.40gb']);
    expect(scored[1]).toBe('gpu-0-mig-4g40gb-5-0');
    expect(scored[0]).toMatch(/^gpu-0-mig-1g10gb-19-[4-6]$/);
  });

  it('puts two 2g.20gb side by side where the workload expects more, so a 3g.40gb still fits (one step ahead does not)', () => {
    // The benchmark's DynamicMIG mix, MIG profiles and whole GPUs (the GPU + NIC pair left out: no NIC here).
    const mix = shapeMix(buildFleet('h100-dynamic-mig')).filter((m) => m.shape !== 'pair');
    const workload = mix.map((m, i) => ({ claim: shapeClaim(`w-${i}`, m.shape).claim, weight: m.weight }));
    // One step ahead (FGD's expectation) puts the first at slice 4, where it keeps the 4g.40gb; the
    // second then closes the other 3g.40gb placement. Looking further, the first goes to slice 0.
    expect(run('scored', ['mig:2g.20gb', 'mig:2g.20gb', 'mig:3g.40gb'], workload)).toEqual(['gpu-0-mig-2g20gb-14-0', 'gpu-0-mig-2g20gb-14-2', 'gpu-0-mig-3g40gb-9-4']);
    expect(run('first-fit', ['mig:2g.20gb', 'mig:2g.20gb', 'mig:3g.40gb'])).toEqual(['gpu-0-mig-2g20gb-14-0', 'gpu-0-mig-2g20gb-14-2', 'gpu-0-mig-3g40gb-9-4']);
  });
});

describe('the look-ahead memo on an 8-GPU DynamicMIG node', () => {
  // Eight GPUs published alike: one kind, so a state met on one GPU is not computed again on another.
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: {} } };
  const slices = dynamicMigNode('node-1', H100_80GB, HGX_H100_LAYOUT);
  const mix = shapeMix(buildFleet('h100-dynamic-mig')).filter((m) => m.shape !== 'pair');

  function table() {
    const features = { ...DEFAULT_DRA_FEATURES, partitionableDevices: true };
    const n = readNodes(node)[0]!;
    const empty = { devices: new Set<string>(), sharedDeviceIds: new Set<string>(), capacity: new Map() };
    const model = new AllocationModel(n, features, gatherPools(readResourceSlices(slices), n, features), empty);
    const probe = new AllocationModel(n, features, gatherPools(readResourceSlices(slices), n, features), empty);
    addClaims(probe, readResourceClaims(mix.map((m, i) => shapeClaim(`w-${i}`, m.shape).claim)), readDeviceClasses(NVIDIA_CLASSES));
    const setup = new TopologySetup(model);
    const shapes = setup.shapeTable(
      workloadShapes(
        probe,
        mix.map((m) => m.weight),
        selectionOf(probe),
      ),
    );
    return { setup, shapes, model };
  }

  it('gives the eight GPUs one kind, and each GPU the value a fresh table computes for it alone', () => {
    const { setup, shapes, model } = table();
    const gpus = [...new Set(setup.parentOf)];
    expect(gpus).toHaveLength(8);
    expect(new Set(gpus.map((p) => shapes.kindOf[p])).size).toBe(1);
    const layout = setup.layout;
    // A partition of each GPU in turn: GPU g loses its g-th partition (counters as the layout reads them).
    const partitions = model.candidates.filter((c) => layout.partition(c.index) && layout.useStart[c.index + 1]! - layout.useStart[c.index]! > 1);
    const left = layout.baseLeft(model);
    const shared: number[] = [];
    gpus.forEach((p, g) => {
      const c = partitions.filter((x) => setup.parentOf[x.index] === p)[g]!;
      for (let u = layout.useStart[c.index]!; u < layout.useStart[c.index + 1]!; u++) left[layout.useIdx[u]!]! -= layout.useAmt[u]!;
      shared.push(shapes.fragmentation(p, left));
    });
    // The same states, each on a table that has seen nothing else.
    gpus.forEach((p, g) => {
      const fresh = table().shapes;
      expect(fresh.fragmentation(p, left)).toBe(shared[g]);
    });
    // GPUs in different states score differently (the memo tells states apart exactly).
    expect(new Set(shared).size).toBeGreaterThan(1);
  });
});
