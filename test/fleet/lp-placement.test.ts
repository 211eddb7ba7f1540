// fgd-lp's share rule: an on-plan placement (the GPU's best completion at the configuration-LP
// prices still includes the share) wins over every placement that is not, on both backends; FGD and
// fgd-close, which only ask whether a typical pod or a mix of typical sizes fits the remainder, do
// not follow it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planTables } from '../../src/fleet/policies/share-values.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { type FleetNode, type Pod, validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { ROOT } from '../support/cli.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { fleetOnState } from '../support/fleet-on-state.js';

const pod = (id: string, milli: number, cpu = 4000): Pod => ({ id, cpu, memory: 1, gpus: milli === 0 ? 0 : 1, milli, models: [] });
const node = (id: string, gpus: number, cpu = 64000): FleetNode => ({ id, cpu, memoryMiB: 1 << 20, gpus, model: 'G' });

describe('fleet: fgd-lp keeps shares on placements the LP plan can complete', async () => {
  const { wasm, ts } = await engines();
  const file = join(ROOT, 'data/openb/openb_pod_list_default.csv');
  const openb = parsePodCsv(file, readFileSync(file, 'utf8'));

  for (const engine of [wasm, ts]) {
    it(`${engine.backend}: openb's prices: a 370 beside a 470 leaves 160 (clean, but worth nothing): fgd-lp opens the idle GPU, FGD and fgd-close fill the GPU`, () => {
      const run = (policy: string) => {
        const fleet = fleetOnState(engine, policy, [node('A', 1), node('B', 1)], typicalPods(validatePods('openb', openb)), [0, 1], validatePods('openb', openb));
        try {
          return [pod('a', 470), pod('b', 370)].map((p) => fleet.place(p));
        } finally {
          fleet.scheduler.close();
        }
      };
      // A 470 costs half a GPU, a 370 a third; 530 free is worth a half (a 470 or a 480), 160 nothing: the 370 would lose 1/6 there.
      expect(run('fgd-lp')).toEqual([
        { node: 0, gpus: [0] },
        { node: 1, gpus: [0] },
      ]);
      expect(run('fgd-close')).toEqual([
        { node: 0, gpus: [0] },
        { node: 0, gpus: [0] },
      ]);
      expect(run('fgd')).toEqual([
        { node: 0, gpus: [0] },
        { node: 0, gpus: [0] },
      ]);
    });
  }

  it('on random fleets and share mixes, every share lands on an on-plan placement whenever one fits (both backends, same placements)', () => {
    const sizes = [110, 160, 230, 320, 370, 470, 550, 650, 810];
    const podArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...sizes) }, { weight: 2, arbitrary: fc.constant(1000) }, { weight: 1, arbitrary: fc.constant(0) });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(podArb, { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 2000, max: 64000 }), { minLength: 6, maxLength: 6 }),
        (gpuCounts, millis, cpus) => {
          const nodes = gpuCounts.map((g, i) => node(`n${i}`, g, cpus[i]));
          const pods = millis.map((m, i) => pod(`p${String(i).padStart(2, '0')}`, m, 1000 + 500 * (i % 4)));
          const { value, price } = planTables(pods);
          const ranks = nodes.map((_, i) => nodes.length - 1 - i);
          const both = [wasm, ts].map((e) => fleetOnState(e, 'fgd-lp', nodes, typicalPods(pods), ranks, pods));
          const ids = both[0].state.nodes();
          try {
            for (const p of pods) {
              const state = ids.map((id) => both[0].scheduler.view(id));
              const onPlan = (free: number) => value[free] - price[p.milli] - value[free - p.milli] < 1e-9;
              const sharing = p.gpus === 1 && p.milli > 0 && p.milli < 1000;
              const planFits = sharing && state.some((st) => st.cpu >= p.cpu && st.gpus.some((free) => free >= p.milli && onPlan(free)));
              const [a, b] = both.map((f) => f.place(p));
              expect(a).toEqual(b);
              if (planFits) {
                expect(a).not.toBeNull();
                const free = state[(a as { node: number }).node].gpus[(a as { gpus: number[] }).gpus[0]];
                expect(onPlan(free), `${p.milli} on a GPU with ${free} free`).toBe(true);
              }
            }
          } finally {
            for (const f of both) f.scheduler.close();
          }
        },
      ),
      { numRuns: depth(25, 100) },
    );
  });

  it('wasm and ts give the same event log on the default trace (seed 42)', () => {
    const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
    const request = { nodes: parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')), pods: openb, policy: 'fgd-lp' as const, seed: 42, events: true };
    const [a, b] = [wasm, ts].map((e) => e.simulateFleet(request));
    expect(a.events).toHaveLength(a.pods);
    expect(a).toStrictEqual(b);
  });
});
