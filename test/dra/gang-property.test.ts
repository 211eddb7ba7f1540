// scheduleGroup against brute force on small random clusters (≤ 4 nodes, ≤ 3 pods): every way of
// giving each pod a node or leaving it out, pods placed in pod order with allocateClaims and the
// allocated state so far. A gang is placed iff brute force finds a placement; what is placed
// satisfies every rule, checked here from the results; no brute-force placement places more pods
// or, placing as many, uses fewer preferred domains (keys in order); a refused gang changes nothing.
// Half the cases have every pod alike, where the search tries one order of them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateClaims, createDraCluster, type GangResult } from '../../src/dra/index.js';
import { depth } from '../support/depth.js';
import { CLASSES, claimObject, GPU, V1 } from '../support/dra-clusters.js';

type Obj = Record<string, unknown>;
type Model = 'a100' | 'h100';

interface NodeSpec {
  gpus: Model[];
  rack?: string;
  zone?: string;
}
interface ClaimSpec {
  count: number;
  model?: Model;
}

const modelArb = fc.constantFrom<Model>('a100', 'h100');
const nodeArb: fc.Arbitrary<NodeSpec> = fc.record(
  {
    // Mostly a few node types (identical nodes are where symmetry could go wrong), sometimes any.
    gpus: fc.oneof(fc.constantFrom<Model[]>(['a100', 'a100'], ['h100', 'a100', 'h100'], ['h100', 'h100', 'h100', 'h100']), fc.array(modelArb, { minLength: 1, maxLength: 4 })),
    rack: fc.constantFrom('r1', 'r2'),
    zone: fc.constantFrom('z1', 'z2'),
  },
  { requiredKeys: ['gpus'] },
);
const claimArb: fc.Arbitrary<ClaimSpec> = fc.record({ count: fc.integer({ min: 1, max: 3 }), model: modelArb }, { requiredKeys: ['count'] });
const caseArb = fc
  .record({
    nodes: fc.array(nodeArb, { minLength: 1, maxLength: 4 }),
    pods: fc.array(fc.array(claimArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
    held: fc.array(fc.tuple(fc.nat(3), fc.nat(3)), { maxLength: 3 }),
    required: fc.constantFrom(undefined, 'rack', 'zone'),
    preferred: fc.constantFrom<string[]>([], ['rack'], ['zone'], ['zone', 'rack'], ['rack', 'zone']),
    minFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    // Often every pod alike (pods with identical claims are searched in one order).
    alike: fc.boolean(),
  })
  .map(({ alike, ...c }) => {
    const pods = alike ? c.pods.map(() => c.pods[0]) : c.pods;
    return { ...c, pods, minCount: Math.max(1, Math.ceil(c.minFraction * pods.length)) };
  });

const slice = (k: number, spec: NodeSpec): Obj => ({
  apiVersion: V1,
  kind: 'ResourceSlice',
  metadata: { name: `n${k}-gpus` },
  spec: {
    driver: GPU,
    pool: { name: `n${k}`, generation: 1, resourceSliceCount: 1 },
    nodeName: `n${k}`,
    devices: spec.gpus.map((m, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, model: { string: m } } })),
  },
});
const nodeObj = (k: number, spec: NodeSpec): Obj => {
  const labels: Record<string, string> = {};
  if (spec.rack !== undefined) labels.rack = spec.rack;
  if (spec.zone !== undefined) labels.zone = spec.zone;
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${k}`, labels } };
};
const claimOf = (p: number, c: number, spec: ClaimSpec): Obj =>
  claimObject(`p${p}-c${c}`, {
    devices: {
      requests: [
        {
          name: 'r',
          exactly: {
            deviceClassName: 'gpu',
            allocationMode: 'ExactCount',
            count: spec.count,
            ...(spec.model === undefined ? {} : { selectors: [{ cel: { expression: `device.attributes["${GPU}"].model == "${spec.model}"` } }] }),
          },
        },
      ],
    },
  });

/** Placed pods and domains per preferred key; lower is better (more pods, then fewer domains). */
function cost(placed: number, domains: number[]): number[] {
  return [-placed, ...domains];
}
function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}
const labelOf = (spec: NodeSpec, key: string): string | undefined => (key === 'rack' ? spec.rack : spec.zone);
function domainsOf(specs: NodeSpec[], nodes: number[], preferred: string[]): number[] {
  return preferred.map((key) => new Set(nodes.map((k) => labelOf(specs[k], key) ?? '\u0000none')).size);
}

describe('scheduleGroup against brute force', () => {
  it('finds a placement iff one exists, a valid one, with no better one', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const classes = CLASSES;
        const slices = c.nodes.map((n, k) => slice(k, n));
        const nodes = c.nodes.map((n, k) => nodeObj(k, n));
        const heldDevices = [...new Set(c.held.filter(([k, d]) => k < c.nodes.length && d < c.nodes[k].gpus.length).map(([k, d]) => `${GPU}/n${k}/gpu-${d}`))];
        const pods = c.pods.map((claims, p) => claims.map((spec, i) => claimOf(p, i, spec)));

        // Brute force: each pod gets a node (0..N-1) or is left out (N).
        const N = c.nodes.length;
        let bestCost: number[] | undefined;
        const choice = new Array<number>(pods.length).fill(0);
        const walk = (p: number): void => {
          if (p === pods.length) {
            const placed = choice.filter((k) => k < N);
            if (placed.length < c.minCount) return;
            if (c.required !== undefined) {
              const values = new Set(placed.map((k) => labelOf(c.nodes[k], c.required!)));
              if (values.has(undefined) || values.size > 1) return;
            }
            let held = heldDevices;
            for (let q = 0; q < pods.length; q++) {
              if (choice[q] === N) continue;
              const r = allocateClaims({ classes, slices, claims: pods[q], node: nodes[choice[q]], allocatedDevices: held, mode: 'first-fit' });
              if (r.reason !== undefined) return;
              held = [...held, ...r.results.flatMap((res) => res.devices.results.map((d) => `${d.driver}/${d.pool}/${d.device}`))];
            }
            const k = cost(placed.length, domainsOf(c.nodes, placed, c.preferred));
            if (bestCost === undefined || lexLess(k, bestCost)) bestCost = k;
            return;
          }
          for (let k = 0; k <= N; k++) {
            choice[p] = k;
            walk(p + 1);
          }
        };
        walk(0);

        const cluster = createDraCluster({ classes, slices, nodes, allocatedDevices: heldDevices, mode: 'first-fit' });
        const before = cluster.allocated();
        const topology = { ...(c.required === undefined ? {} : { required: c.required }), ...(c.preferred.length === 0 ? {} : { preferred: c.preferred }) };
        const r: GangResult = cluster.scheduleGroup({ pods, minCount: c.minCount, topology });
        expect(r.budgetExhausted).toBeUndefined();
        if (bestCost === undefined) {
          expect(r.placements).toEqual([]);
          expect(r.reason?.code).toBe('UNSCHEDULABLE');
          expect(cluster.allocated()).toEqual(before);
          return;
        }
        expect(r.reason).toBeUndefined();
        // Valid: each pod once, at least minCount, its claims' devices on its node and matching the
        // claim, no device twice nor one held before, one required domain.
        const podsPlaced = r.placements.map((p) => p.pod);
        expect(new Set(podsPlaced).size).toBe(podsPlaced.length);
        expect(podsPlaced.length).toBeGreaterThanOrEqual(c.minCount);
        const taken = new Set(heldDevices);
        for (const p of r.placements) {
          const k = Number(p.node.slice(1));
          expect(p.results).toHaveLength(c.pods[p.pod].length);
          p.results.forEach((res, i) => {
            const spec = c.pods[p.pod][i];
            expect(res.devices.results).toHaveLength(spec.count);
            for (const d of res.devices.results) {
              expect(d.pool).toBe(p.node);
              const id = `${d.driver}/${d.pool}/${d.device}`;
              expect(taken.has(id), id).toBe(false);
              taken.add(id);
              if (spec.model !== undefined) expect(c.nodes[k].gpus[Number(d.device.slice(4))]).toBe(spec.model);
            }
          });
        }
        const placedNodes = r.placements.map((p) => Number(p.node.slice(1)));
        if (c.required !== undefined) {
          const values = new Set(placedNodes.map((k) => labelOf(c.nodes[k], c.required!)));
          expect(values.has(undefined)).toBe(false);
          expect(values.size).toBe(1);
        }
        // The cluster keeps exactly the gang's claims besides what was held.
        expect(
          cluster
            .allocated()
            .claims.map((h) => h.claim)
            .sort(),
        ).toEqual(r.placements.flatMap((p) => c.pods[p.pod].map((_s, i) => `ns/p${p.pod}-c${i}`)).sort());
        // As good as the best brute-force placement (and none is better).
        expect(cost(placedNodes.length, domainsOf(c.nodes, placedNodes, c.preferred))).toEqual(bestCost);
      }),
      { numRuns: depth(25, 600), seed: 36 },
    );
  });
});
