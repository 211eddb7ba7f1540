// ClusterState.plan on realistic clusters (every node a preset machine with its NVLink / PCIe
// topology, used memory on some GPUs, stale slots, requests accepting several TP sizes) equals the
// brute-force merge of every node planned alone, on both backends, after random commit / release /
// markStale sequences: the topology-class index never drops a better option.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClusterNode, nodeFromInventory } from '../../src/cluster/node.js';
import type { ClusterPlanRequest } from '../../src/cluster/state.js';
import { getPreset } from '../../src/hardware/presets.js';
import { referencePlan } from '../support/cluster-reference.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { arbClusterOf, arbOpOf, arbRequestOf, checkOpsAgainstReference, lcg } from '../support/oracle/cluster-ops.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
// dgx2 (16 GPUs) last: drawn less often, its brute-force plans are the slow part.
const MACHINES = ['dgx1-pascal', 'dgx1-volta', '4x-rtx8000', 'dgx-a100', 'dgx-h100', '8x-l40s-pcie', 'dgx1-volta', 'dgx-a100', 'dgx2'];

const arbNode = (id: string) =>
  fc
    .record({
      machine: fc.integer({ min: 0, max: MACHINES.length - 1 }),
      used: fc.array(fc.constantFrom(0, 0, 0, 2, 9), { minLength: 16, maxLength: 16 }),
      bare: fc.integer({ min: 0, max: 9 }),
    })
    .map((r): ClusterNode => {
      const node = nodeFromInventory(getPreset(MACHINES[r.machine]), { id });
      node.gpus = node.gpus.map((g, p) => (r.used[p] > 0 ? { ...g, memoryUsed: r.used[p] * G } : g));
      if (r.bare === 0) delete node.topology; // a few nodes without topology data
      return node;
    });

const arbCluster = arbClusterOf(arbNode, 14);
const arbRequest = arbRequestOf(300, ['spread', 'spread', 'spread', 'pack'], fc.constantFrom([1, 2, 4, 8], [2, 4], [4, 8], [2], [8], [1, 2], [3, 5]));
const arbOp = arbOpOf(arbRequest, { commit: 6, release: 2, stale: 2 });

describe('ClusterState.plan on realistic clusters', () => {
  it('equals the brute-force merge over preset machines with used memory and stale slots (wasm and ts)', () => {
    fc.assert(
      fc.property(arbCluster, fc.array(arbOp, { minLength: 1, maxLength: 16 }), fc.array(arbRequest, { minLength: 1, maxLength: 3 }), (nodes, ops, probes) => {
        checkOpsAgainstReference(wasm, ts, nodes, ops, probes);
      }),
      { numRuns: depth(10, 40) },
    );
  }, 120_000);

  it('many identical machines, half filled: the plan equals the brute-force merge at every step', () => {
    // 120 nodes of three machine types; every decision is checked against the full merge.
    const nodes: ClusterNode[] = Array.from({ length: 120 }, (_, k) => nodeFromInventory(getPreset(['dgx1-volta', 'dgx-a100', '8x-l40s-pcie'][k % 3]), { id: `n${k + 1}` }));
    const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
    const rand = lcg(11);
    for (let t = 0; t < depth(60, 150); t++) {
      const sizes = [[1, 2, 4, 8], [2, 4], [4, 8], [2]][rand(4)];
      const req: ClusterPlanRequest = { memory: (4 + rand(150)) * G, model: `m${rand(5)}`, tensorParallelSizes: sizes };
      const plans = states.map((s) => s.plan({ ...req, maxNodes: 1 }).options);
      if (t % 5 === 0) expect(plans[1]).toEqual(referencePlan(ts, states[1].toJSON(), req));
      expect(plans[0]).toEqual(plans[1]);
      if (plans[0].length > 0) {
        const option = plans[0][rand(plans[0].length)];
        for (const s of states) s.commit(option);
      }
      if (t % 6 === 5) {
        const slots = states[1].listSlots();
        const id = slots[rand(slots.length)].id;
        const release = rand(2) === 0;
        for (const s of states) release ? s.release(id) : s.markStale(id);
      }
    }
  });
  it('many stale slots of several models, and requests that often fit only by eviction or not at all (wasm and ts)', () => {
    // Every node holds up to five stale slots (models a, b, c, x); requests of models a-c may evict
    // all but their own model's slots, so the stale index's bound (every stale slot) is often above
    // what a request may free. Large requests fail: the plan must prove it without missing a node.
    const arbStaleNode = (id: string) =>
      fc
        .record({
          machine: fc.integer({ min: 0, max: MACHINES.length - 2 }),
          bare: fc.integer({ min: 0, max: 9 }),
          slots: fc.array(
            fc.record({
              model: fc.constantFrom('a', 'b', 'c', 'x'),
              first: fc.nat(),
              width: fc.constantFrom(1, 1, 2, 4),
              share: fc.integer({ min: 10, max: 45 }),
              stale: fc.integer({ min: 0, max: 5 }),
              at: fc.nat(50),
            }),
            { maxLength: 6 },
          ),
        })
        .map((r): ClusterNode => {
          const node = nodeFromInventory(getPreset(MACHINES[r.machine]), { id });
          if (r.bare === 0) delete node.topology;
          const room = new Map(node.gpus.map((g) => [g.index, g.memoryTotal]));
          node.slots = [];
          r.slots.forEach((s, j) => {
            const gpus = Array.from({ length: Math.min(s.width, node.gpus.length) }, (_, q) => node.gpus[(s.first + q) % node.gpus.length].index).sort((a, b) => a - b);
            const per = Math.floor((node.gpus[0].memoryTotal * s.share) / 100);
            if (gpus.some((g) => room.get(g)! < per)) return;
            for (const g of gpus) room.set(g, room.get(g)! - per);
            node.slots!.push({ id: `${id}-s${j}`, model: s.model, gpus, memoryPerGpu: per, lastActivity: s.at, stale: s.stale > 0 });
          });
          return node;
        });
    const arbStaleCluster = fc.integer({ min: 2, max: 16 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, j) => arbStaleNode(`n${(j * 5) % 11}-${j}`))));
    const arbBigRequest = fc.record({
      memory: fc.integer({ min: 20, max: 700 }).map((x) => x * G),
      model: fc.constantFrom('a', 'b', 'c'),
      limit: fc.integer({ min: 1, max: 12 }),
      allowEviction: fc.constantFrom(true, true, true, false),
      sizes: fc.constantFrom<number[]>([1, 2, 4, 8], [2, 4, 8], [4, 8], [8], [1, 2], [2]),
      pick: fc.nat(),
    });
    let failed = 0;
    let evicting = 0;
    fc.assert(
      fc.property(arbStaleCluster, fc.array(arbBigRequest, { minLength: 1, maxLength: 10 }), (nodes, requests) => {
        const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
        for (const r of requests) {
          const req: ClusterPlanRequest = { memory: r.memory, model: r.model, limit: r.limit, allowEviction: r.allowEviction, tensorParallelSizes: [...r.sizes] };
          const expected = referencePlan(ts, states[1].toJSON(), req);
          const plans = states.map((s) => s.plan({ ...req, maxNodes: 1 }));
          for (const plan of plans) expect(plan.options).toEqual(expected);
          if (expected.length === 0) {
            failed++;
            // No node with as many GPUs as the smallest size: nothing to search at all (INSUFFICIENT_DEVICES).
            const anySize = nodes.some((n) => n.gpus.length >= Math.min(...r.sizes));
            for (const plan of plans) expect(plan.reason?.code).toBe(anySize ? 'NO_VIABLE_OPTION' : 'INSUFFICIENT_DEVICES');
            continue;
          }
          if (expected.some((o) => o.evict.length > 0)) evicting++;
          // Commit one option (evictions included), so later requests see the index after changes.
          const option = expected[r.pick % expected.length];
          for (const s of states) s.commit(option, { lastActivity: 100 });
        }
      }),
      { numRuns: depth(25, 60) },
    );
    // The generator reaches both paths this test is about.
    expect(failed).toBeGreaterThan(depth(3, 10));
    expect(evicting).toBeGreaterThan(depth(3, 10));
  }, 120_000);
});
