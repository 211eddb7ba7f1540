// The cluster handle keeps the scored objective's set-up once per node class (built on the class's
// first member) and what other claims hold once per node (made again when the node's allocated
// state changes). On DynamicMIG nodes of one class (each GPU with its own UUID), through claims and
// releases, every scored choice on any member is the one allocateClaims makes on that node alone
// from the same allocated state: the same devices, by the same objective.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dynamicMigNode, H100_80GB, HGX_H100_LAYOUT, type MachineLayout, NVIDIA_CLASSES, shapeClaim } from '../../bench/dra-fleets/index.js';
import { allocateClaims, createDraCluster, type NodeScore } from '../../src/dra/index.js';
import { depth } from '../support/depth.js';

/** Two GPUs of a machine (a DynamicMIG GPU publishes 19 devices). */
function twoGpus(layout: MachineLayout): MachineLayout {
  return { ...layout, gpuBus: layout.gpuBus.slice(0, 2), gpuRoot: layout.gpuRoot.slice(0, 2), gpuNuma: layout.gpuNuma.slice(0, 2) };
}

const NAMES = ['node-0', 'node-1', 'node-2'];
const SLICES = Object.fromEntries(NAMES.map((n) => [n, dynamicMigNode(n, H100_80GB, twoGpus(HGX_H100_LAYOUT))]));
const NODES = NAMES.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} } }));
const SHAPES = ['mig:1g.10gb', 'mig:1g.20gb', 'mig:2g.20gb', 'mig:3g.40gb', 'mig:4g.40gb', 'mig:7g.80gb', 'gpu:1'];

type Step = { kind: 'claim'; shape: string } | { kind: 'release'; which: number };

describe('the objective set-up per node class, what other claims hold per node state', () => {
  it.each(['spread', 'fragmentation'] as NodeScore[])('gives every member the allocation allocateClaims makes on it alone (%s)', (nodeScore) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...SHAPES).map((shape): Step => ({ kind: 'claim', shape })) },
            { weight: 1, arbitrary: fc.nat(20).map((which): Step => ({ kind: 'release', which })) },
          ),
          { minLength: 1, maxLength: depth(6, 24) },
        ),
        (steps) => {
          const cluster = createDraCluster({ classes: NVIDIA_CLASSES, slices: Object.values(SLICES).flat(), nodes: NODES, mode: 'scored', nodeScore, explain: true });
          expect(cluster.stats().nodeClasses).toBe(1);
          const held: string[] = [];
          let members = new Set<string>();
          steps.forEach((step, i) => {
            if (step.kind === 'release') {
              if (held.length > 0) cluster.release(held.splice(step.which % held.length, 1)[0]);
              return;
            }
            const claim = shapeClaim(`c-${i}`, step.shape).claim;
            const before = cluster.allocated().allocatedDevices;
            const got = cluster.schedule(claim);
            if (got.node === undefined) return;
            held.push(`bench/c-${i}`);
            members = new Set([...members, got.node]);
            const alone = allocateClaims({ classes: NVIDIA_CLASSES, slices: SLICES[got.node], node: NODES[NAMES.indexOf(got.node)], claims: [claim], allocatedDevices: before, explain: true });
            expect(alone.reason).toBeUndefined();
            expect(got.results).toEqual(alone.results);
            expect(got.explain?.chosen).toEqual(alone.explain?.chosen);
          });
          // The property means something only where nodes other than the class's first member were used.
          return members.size > 0;
        },
      ),
      { numRuns: depth(4, 60), seed: 4 },
    );
  });

  it('uses members other than the first in these streams', () => {
    const cluster = createDraCluster({ classes: NVIDIA_CLASSES, slices: Object.values(SLICES).flat(), nodes: NODES, mode: 'scored', nodeScore: 'spread' });
    const nodes = new Set(SHAPES.map((shape, i) => cluster.schedule(shapeClaim(`s-${i}`, shape).claim).node));
    expect(nodes.size).toBeGreaterThan(1);
  });
});
