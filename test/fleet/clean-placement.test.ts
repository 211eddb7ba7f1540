// The default policy's share rule: a clean placement (a wholly free GPU, or a remainder the
// clean-remainder table accepts) wins over every placement that is not, on both backends; FGD, which
// only asks whether one typical pod still fits, does not follow it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanRemainders, deadHole } from '../../src/fleet/policies/ours.js';
import type { FleetNode, Pod } from '../../src/fleet/types.js';
import { type TypicalPod, typicalPods } from '../../src/fleet/typical.js';
import { engines } from '../support/engines.js';
import { fleetOnState } from '../support/fleet-on-state.js';

const pod = (id: string, milli: number, gpus = 1, cpu = 1000): Pod => ({ id, cpu, memory: 1, gpus: milli === 0 ? 0 : gpus, milli, models: [] });
const node = (id: string, gpus: number, cpu = 64000): FleetNode => ({ id, cpu, memoryMiB: 1 << 20, gpus, model: 'G' });

describe('fleet: the default policy keeps shares on clean placements', async () => {
  const { wasm, ts } = await engines();

  for (const engine of [wasm, ts]) {
    it(`${engine.backend}: a 500 beside a 300 would leave 200, which no mix of 300 and 500 fills: fgd-close opens the idle GPU, FGD takes the hole`, () => {
      // Typical: whole GPUs 60 %, shares of 300 and 500 20 % each; the dead hole is 100 (the smallest share of the workload).
      const typical: TypicalPod[] = [
        { cpu: 1000, milli: 1000, gpus: 1, models: [], count: 3, weight: 0.6 },
        { cpu: 1000, milli: 300, gpus: 1, models: [], count: 1, weight: 0.2 },
        { cpu: 1000, milli: 500, gpus: 1, models: [], count: 1, weight: 0.2 },
      ];
      const pods = [pod('a', 300), pod('b', 500)];
      const run = (policy: string) => {
        const fleet = fleetOnState(engine, policy, [node('A', 1), node('B', 1)], typical, [0, 1], [...pods, pod('c', 100)]);
        try {
          return pods.map((p) => fleet.place(p));
        } finally {
          fleet.scheduler.close();
        }
      };
      // FGD: A goes from Frag 0.6·700 = 420 to 0.6·200 + 0.2·200 + 0.2·200 = 200 (⌊100·σ(0.22)⌋ = 55); B from 0 to 0.6·500 (⌊100·σ(−0.3)⌋ = 42).
      expect(run('fgd')).toEqual([
        { node: 0, gpus: [0] },
        { node: 0, gpus: [0] },
      ]);
      expect(run('fgd-close')).toEqual([
        { node: 0, gpus: [0] },
        { node: 1, gpus: [0] },
      ]);
    });
  }

  it('on random fleets and share mixes, every share lands on a clean placement whenever one fits (both backends, same placements)', () => {
    const sizes = [110, 160, 230, 320, 470, 550, 650, 810];
    const podArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...sizes) }, { weight: 2, arbitrary: fc.constant(1000) }, { weight: 1, arbitrary: fc.constant(0) });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(podArb, { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 2000, max: 64000 }), { minLength: 6, maxLength: 6 }),
        (gpuCounts, millis, cpus) => {
          const nodes = gpuCounts.map((g, i) => node(`n${i}`, g, cpus[i]));
          const pods = millis.map((m, i) => pod(`p${String(i).padStart(2, '0')}`, m, 1, 1000 + 500 * (i % 4)));
          const typical = typicalPods(pods);
          const clean = cleanRemainders(typical, deadHole(pods));
          const ranks = nodes.map((_, i) => nodes.length - 1 - i); // the last node wins a tie
          const both = [wasm, ts].map((e) => fleetOnState(e, 'fgd-close', nodes, typical, ranks, pods));
          const ids = both[0].state.nodes();
          try {
            for (const p of pods) {
              const state = ids.map((id) => both[0].scheduler.view(id));
              const isClean = (free: number) => free === 1000 || clean[free - p.milli] === 1;
              const sharing = p.gpus === 1 && p.milli > 0 && p.milli < 1000;
              const cleanFits = sharing && state.some((st) => st.cpu >= p.cpu && st.gpus.some((free) => free >= p.milli && isClean(free)));
              const [a, b] = both.map((f) => f.place(p));
              expect(a).toEqual(b);
              if (cleanFits) {
                expect(a).not.toBeNull();
                const free = state[(a as { node: number }).node].gpus[(a as { gpus: number[] }).gpus[0]];
                expect(isClean(free), `${p.milli} on a GPU with ${free} free`).toBe(true);
              }
            }
          } finally {
            for (const f of both) f.scheduler.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
