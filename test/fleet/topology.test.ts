// Topology-aware fractions: on a node with a topology, whole GPUs come from the topology search and a
// share that opens a GPU keeps NVLink pairs whole; without a topology the protocol's lowest-index
// choice stands. Both backends.
import { describe, expect, it } from 'vitest';
import { type FleetNode, type FleetPod, validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import type { Topology } from '../../src/hardware/topology.js';
import { engines } from '../support/engines.js';
import { fleetOnState } from '../support/fleet-on-state.js';

// Four GPUs, NVLink pairs (0,3) and (1,2); every other pair over the CPU interconnect.
const TOPOLOGY: Topology = {
  gpus: 4,
  links: [
    { a: 0, b: 3, nvlink: 2 },
    { a: 1, b: 2, nvlink: 2 },
    { a: 0, b: 1, pcie: 'SYS' },
    { a: 0, b: 2, pcie: 'SYS' },
    { a: 1, b: 3, pcie: 'SYS' },
    { a: 2, b: 3, pcie: 'SYS' },
  ],
};
const pods: FleetPod[] = [
  { id: 'a-share', cpu: 100, memoryMiB: 1, gpus: 1, milli: 300 },
  { id: 'b-share', cpu: 100, memoryMiB: 1, gpus: 1, milli: 800 },
  { id: 'c-pair', cpu: 100, memoryMiB: 1, gpus: 2, milli: 1000 },
];

describe('fleet topology-aware fractions', async () => {
  const { wasm, ts } = await engines();
  /** The GPUs each pod takes, placed in order on one node. */
  const run = (engine: typeof wasm, node: FleetNode, policy: string) => {
    const list = validatePods('pods', pods);
    const fleet = fleetOnState(engine, policy, [node], typicalPods(list), [0], list);
    try {
      return list.map((p) => fleet.place(p)?.gpus ?? []);
    } finally {
      fleet.scheduler.close();
    }
  };
  for (const engine of [wasm, ts]) {
    for (const policy of ['fgd', 'fgd-close', 'bestfit', 'packing']) {
      it(`${engine.backend} ${policy}: the 800 share takes GPU 0's NVLink partner, and the 2-GPU pod the whole NVLink pair (1,2)`, () => {
        const plain: FleetNode = { id: 'n', cpu: 64000, memoryMiB: 1 << 20, gpus: 4, model: 'A' };
        const linked = run(engine, { ...plain, topology: TOPOLOGY }, policy);
        const flat = run(engine, plain, policy);
        expect(linked[0]).toHaveLength(1);
        const first = linked[0][0];
        const partner = first === 0 ? 3 : first === 3 ? 0 : first === 1 ? 2 : 1;
        expect(linked[1]).toEqual([partner]);
        expect(linked[2]).toEqual([0, 1, 2, 3].filter((g) => g !== first && g !== partner));
        // Without the topology: the lowest-index whole GPUs.
        expect(flat[2]).toEqual([0, 1, 2, 3].filter((g) => !flat[0].includes(g) && !flat[1].includes(g)).slice(0, 2));
      });
    }
  }
  it('rejects a topology whose GPU count differs from the node', () => {
    expect(() => wasm.simulateFleet({ nodes: [{ id: 'n', cpu: 1, memoryMiB: 1, gpus: 2, model: 'A', topology: TOPOLOGY }], pods })).toThrow(/nodes\[0\]\.topology\.gpus/);
  });
});
