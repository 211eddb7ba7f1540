// nodeFromInventory: the one way an inventory becomes a cluster node (ID, GPUs not lost, topology
// without lost GPUs, used memory net of gpualloc's own slots).
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/hardware/inventory.js';
import { nodeFromInventory } from '../../src/index.js';
import { codeOf, engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const inventory = (): Inventory => ({
  version: 1,
  host: 'dgx-01',
  gpus: [
    {
      index: 0,
      memoryTotal: 80 * G,
      memoryUsed: 10 * G,
      processes: [
        { pid: 1, usedMemory: 8 * G },
        { pid: 2, usedMemory: 4 * G },
      ],
    },
    { index: 1, memoryTotal: 80 * G, memoryUsed: 30 * G, processes: [{ pid: 3, usedMemory: 20 * G }] },
    { index: 2, memoryTotal: 80 * G, lost: true },
    { index: 3, memoryTotal: 80 * G, memoryUsed: 0 },
  ],
  links: [
    { a: 0, b: 1, nvlink: 4 },
    { a: 0, b: 2, nvlink: 4 },
    { a: 1, b: 3, pcie: 'SYS' },
  ],
});

describe('nodeFromInventory', () => {
  it("takes the larger of memoryUsed and the processes' sum; GPUs not lost; links without lost GPUs", () => {
    expect(nodeFromInventory(inventory())).toEqual({
      id: 'dgx-01',
      gpus: [
        { index: 0, memoryTotal: 80 * G, memoryUsed: 12 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 30 * G },
        { index: 3, memoryTotal: 80 * G },
      ],
      topology: {
        gpus: 4,
        links: [
          { a: 0, b: 1, nvlink: 4 },
          { a: 1, b: 3, pcie: 'SYS' },
        ],
      },
    });
  });

  it("subtracts the given slots' memory on each GPU (never below 0) and keeps the slots", () => {
    const slots = [
      { id: 's1', gpus: [0, 1], memoryPerGpu: 8 * G },
      { id: 's2', gpus: [1], memoryPerGpu: 40 * G },
    ];
    const node = nodeFromInventory(inventory(), { id: 'n7', slots });
    expect(node.id).toBe('n7');
    expect(node.gpus).toEqual([
      { index: 0, memoryTotal: 80 * G, memoryUsed: 4 * G },
      { index: 1, memoryTotal: 80 * G },
      { index: 3, memoryTotal: 80 * G },
    ]);
    expect(node.slots).toEqual(slots);
  });

  it('names the node node0 without a host, and rejects bad options and bad inventories by field', () => {
    const inv = inventory();
    delete inv.host;
    expect(nodeFromInventory(inv).id).toBe('node0');
    expect(codeOf(() => nodeFromInventory(inventory(), { slots: [{ id: 's', gpus: [2], memoryPerGpu: 1 }] }))).toBe('UNKNOWN_DEVICE_ID');
    expect(() => nodeFromInventory(inventory(), { name: 'x' } as never)).toThrow(/options\.name/);
    const bad = inventory();
    (bad.gpus[1] as { memoryUsed: unknown }).memoryUsed = -5;
    expect(() => nodeFromInventory(bad)).toThrow(/gpus\[1\]\.memoryUsed/);
  });

  it('fills the pod resources: cpu from cpus, hostMemory from memory, gpuModel from one common GPU name', () => {
    const inv = inventory();
    inv.cpus = ['0', '1', '2', '3', '4', '5'];
    inv.memory = 512 * G;
    inv.gpus.forEach((g) => (g.name = 'NVIDIA A100-SXM4-80GB'));
    const node = nodeFromInventory(inv);
    expect([node.cpu, node.hostMemory, node.gpuModel]).toEqual([6000, 512 * G, 'NVIDIA A100-SXM4-80GB']);
    // A lost GPU's name does not count; two names among the present GPUs, or a missing one, give no model.
    inv.gpus[2].name = 'other';
    expect(nodeFromInventory(inv).gpuModel).toBe('NVIDIA A100-SXM4-80GB');
    inv.gpus[1].name = 'other';
    expect(nodeFromInventory(inv).gpuModel).toBeUndefined();
    delete inv.gpus[1].name;
    expect(nodeFromInventory(inv).gpuModel).toBeUndefined();
    // Without cpus and memory: not tracked (absent), not 0.
    expect('cpu' in nodeFromInventory(inventory()) || 'hostMemory' in nodeFromInventory(inventory())).toBe(false);
  });

  it.each([
    ['wasm', wasm],
    ['ts', ts],
  ] as const)('ClusterState from an inventory carries the used memory (%s)', (_name, engine) => {
    const state = engine.createClusterState(inventory());
    expect(state.toJSON().nodes).toEqual([{ ...nodeFromInventory(inventory()), slots: [] }]);
    // GPUs 0 and 1 keep 68 and 50 GiB after the memory in use: a 70 GiB model goes to GPU 3 only.
    expect(state.plan({ memory: 70 * G, tensorParallelSizes: [1] }).options.map((o) => o.gpus)).toEqual([[3]]);
  });
});
