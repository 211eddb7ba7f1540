// In the deep suite: HiGHS and 8-node replays take about 10 s.
// The offline bounds of the placement-quality benchmark stand on an abstract copy of the DynamicMIG
// fleet: its first-fit must place each claim where the engine's first-fit does, its GPU
// configurations must be exactly what the H100's counters allow, the must-place bound must be at
// least what an actual placement sequence reaches, and the static-MIG program must find the best
// whole-GPU placement of streams whose answer is known.
import { describe, expect, it } from 'vitest';
import { buildFleet, fleetGpus, openbShapes, openbStream, seededStream, shapeClaim, shapeMix } from '../../bench/dra-fleets/index.js';
import { apply, firstFit, H100_PROFILES, replay, SimFleet, simShape } from '../../bench/dra-mig-sim.js';
import { gpuConfigurations, mustPlaceBound, pilot, staticMigBest } from '../../bench/dra-quality-bound.js';
import { checkPlan, keepNodePairPlan, placeConfiguration, realizePlan, replayPlanInEngine } from '../../bench/dra-quality-exact.js';
import { loadSolver } from '../../bench/fleet-bound-lp.js';
import { openbRoot } from '../../bench/openb-root.js';
import { createDraCluster, DEFAULT_DRA_FEATURES } from '../../src/dra/index.js';

describe('the abstract DynamicMIG fleet and its bounds', () => {
  it("places the first 30 claims of a seeded stream where the engine's first-fit does (same node, same GPU, same share)", () => {
    const fleet = buildFleet('h100-dynamic-mig');
    const stream = seededStream(fleet, shapeMix(fleet), 3).slice(0, 30);
    const cluster = createDraCluster({ classes: fleet.classes, slices: fleet.slices, nodes: fleet.nodes, mode: 'first-fit', features: { ...DEFAULT_DRA_FEATURES, consumableCapacity: true } });
    const sim = new SimFleet(8);
    for (const c of stream) {
      const r = cluster.schedule(c.claim);
      const s = simShape(c.shape);
      const a = firstFit(sim, s);
      expect(a === undefined, c.shape).toBe(r.node === undefined);
      if (a === undefined || r.node === undefined) continue;
      apply(sim, s, a);
      expect(r.node).toBe(`h100-dynamic-mig-${a.node}`);
      const gpus = r.results[0]!.devices.results.filter((d) => d.driver === 'gpu.nvidia.com').map((d) => Number(/^gpu-(\d+)/.exec(d.device)?.[1]));
      expect(gpus).toEqual(a.gpus.map((g) => g % 8));
    }
    expect(sim.allocated).toBeCloseTo(
      stream.reduce((t, c) => t + c.gpus, 0),
      9,
    );
    expect(fleetGpus(fleet)).toBe(64);
  });

  it("finds every MIG configuration of one H100 and no other (the counters' rules)", () => {
    const configs = gpuConfigurations().map((c) => c.join(','));
    const names = Object.keys(H100_PROFILES);
    const of = (counts: Record<string, number>) => names.map((n) => counts[n] ?? 0).join(',');
    expect(configs).toContain(of({ '4g.40gb': 1, '3g.40gb': 1 }));
    expect(configs).toContain(of({ '1g.10gb': 7 }));
    expect(configs).toContain(of({ '2g.20gb': 3, '1g.10gb': 1 }));
    expect(configs).toContain(of({ '1g.20gb': 4 }));
    // Two 4g.40gb share slice 0; 1g.10gb has no placement on slice 7; eight compute slices never fit.
    expect(configs).not.toContain(of({ '4g.40gb': 2 }));
    expect(configs).not.toContain(of({ '1g.10gb': 8 }));
    expect(configs).not.toContain(of({ '3g.40gb': 2, '1g.10gb': 1 }));
    expect(new Set(configs).size).toBe(configs.length);
  });

  it('bounds from above what a clairvoyant placement sequence reaches (openb-like stream)', async () => {
    const solver = await loadSolver();
    // 7 × 4g.40gb and 7 × 3g.40gb (pairs fill 7 GPUs), then whole GPUs until 64 arrive.
    const shapes = [...Array.from({ length: 7 }, () => 'mig:4g.40gb'), ...Array.from({ length: 7 }, () => 'mig:3g.40gb'), ...Array.from({ length: 58 }, () => 'gpu:1')];
    const sim = shapes.map(simShape);
    const ff = replay(sim, firstFit);
    const best = pilot(sim, [firstFit]);
    const bound = mustPlaceBound(solver, shapes);
    // First-fit pairs each 3g.40gb with a 4g.40gb (slices 4–7 of the GPUs the 4g.40gb hold): 7 GPUs, then 57 whole.
    expect(ff).toBeCloseTo(64, 9);
    expect(best).toBeGreaterThanOrEqual(ff - 1e-9);
    expect(bound.gpus).toBeGreaterThanOrEqual(best - 1e-9);
    expect(bound.gpus).toBeLessThanOrEqual(64 + 1e-9);
  });

  it('static MIG: the best whole-GPU placement of known streams (4 whole GPUs and 2 NICs beside them per node)', () => {
    // Nine ×4 claims: one node each, the ninth finds none.
    expect(staticMigBest(Array.from({ length: 9 }, () => 'gpu:4')).whole).toBe(32);
    // Seventeen pairs: two per node (two roots with GPUs and a NIC each), the seventeenth fails.
    expect(staticMigBest(Array.from({ length: 17 }, () => 'pair')).whole).toBe(16);
    // A ×8 never fits a node of four; MIG devices: 64 × 1g.10gb, so 70 arrivals place 64 (64/7 GPUs).
    const r = staticMigBest(['gpu:8', ...Array.from({ length: 70 }, () => 'mig:1g.10gb')]);
    expect(r.whole).toBe(0);
    expect(r.mig).toBeCloseTo(64 / 7, 9);
    // Eight pairs, then eight ×4: one pair per node would leave no node four GPUs; two per node on
    // four nodes leave the other four whole for four ×4 claims (24 GPUs), and eight ×2 then fill the rest.
    const pairsThenFours = [...Array.from({ length: 8 }, () => 'pair'), ...Array.from({ length: 8 }, () => 'gpu:4')];
    expect(staticMigBest(pairsThenFours).whole).toBe(24);
    expect(staticMigBest([...pairsThenFours, ...Array.from({ length: 8 }, () => 'gpu:2')]).whole).toBe(32);
  });

  it("openb's seed 5: the bound's packing, laid out in arrival order, is a run the engine accepts, so the bound is the optimum", async () => {
    const solver = await loadSolver();
    const fleet = buildFleet('h100-dynamic-mig');
    const claims = openbStream(fleet, openbShapes(openbRoot(import.meta.url)), 5);
    const names = claims.map((c) => c.shape);
    const bound = mustPlaceBound(solver, names);
    // 6 of 448 sevenths unallocated: the last ×1 finds no GPU, the 4g.40gb GPUs strand 3 × 1/7 and one 3/7.
    expect(Math.round((64 - bound.gpus) * 7)).toBe(6);
    const plan = realizePlan(names, bound.packing);
    const check = checkPlan(names.map(simShape), plan);
    expect(check.error).toBeNull();
    expect(check.allocated).toBeCloseTo(bound.gpus, 9);
    expect(plan.flatMap((a, i) => (a === null ? [i] : []))).toEqual([names.length - 1]);
    const engine = replayPlanInEngine(fleet, claims, plan);
    expect(engine.error).toBeNull();
    expect(engine.allocated).toBeCloseTo(bound.gpus, 9);
    // The rule of thumb reaches it too: the ×8's node kept, 2g/3g at slice 4 of fresh GPUs, 4g beside them.
    expect(checkPlan(names.map(simShape), keepNodePairPlan(names.map(simShape))).allocated).toBeCloseTo(bound.gpus, 9);
  });

  it('refuses plans that are no run: a placement the counters do not allow, a claim left out that had room', () => {
    const fleet = buildFleet('h100-dynamic-mig');
    const claims = ['mig:3g.40gb', 'mig:4g.40gb', 'gpu:1'].map((s, i) => shapeClaim(`c-${i}`, s));
    const shapes = claims.map((c) => simShape(c.shape));
    const at = (gpu: number, start: number) => ({ node: gpu >> 3, gpus: [gpu], start });
    // 3g.40gb at slice 4 and 4g.40gb at 0 share GPU 9; the ×1 on GPU 10.
    const good = [at(9, 4), at(9, 0), at(10, 0)];
    expect(checkPlan(shapes, good)).toEqual({ allocated: 2, error: null });
    expect(replayPlanInEngine(fleet, claims, good)).toEqual({ allocated: 2, error: null });
    // 3g.40gb at slice 0 blocks the 4g.40gb there.
    const overlap = [at(9, 0), at(9, 0), at(10, 0)];
    expect(checkPlan(shapes, overlap).error).toMatch(/arrival 1: 4g\.40gb does not fit/);
    expect(replayPlanInEngine(fleet, claims, overlap).error).toMatch(/arrival 1: the engine finds no node/);
    // The ×1 on the GPU the partitions use; and the ×1 left out while 62 GPUs are free.
    expect(checkPlan(shapes, [at(9, 4), at(9, 0), at(9, 0)]).error).toMatch(/arrival 2: GPUs 9 are not all free/);
    expect(checkPlan(shapes, [at(9, 4), at(9, 0), null]).error).toMatch(/arrival 2 is left out but has a placement/);
    expect(replayPlanInEngine(fleet, claims, [at(9, 4), at(9, 0), null]).error).toMatch(/arrival 2 is left out but the engine places it/);
    // Configurations: 4g.40gb + 3g.40gb on one GPU; two 4g.40gb never.
    expect(placeConfiguration([0, 0, 0, 1, 1, 0])).toEqual([
      { profile: '4g.40gb', start: 0 },
      { profile: '3g.40gb', start: 4 },
    ]);
    expect(placeConfiguration([0, 0, 0, 0, 2, 0])).toBeUndefined();
  });
});
