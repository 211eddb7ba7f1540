// MIG: devices listed when MIG mode is on, profile parsed from the MIG device name; empty when on with none.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices, migProfile } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, expectedGpus, migA100 } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('reads a MIG-enabled A100 host field for field', async () => {
  const machine = migA100();
  h.use(configText(machine));
  const inv = await discoverDevices({ library: h.current, refresh: true });
  expect(inv.gpus).toEqual(expectedGpus(machine));
  expect(inv.gpus[0].mig).toEqual([
    { uuid: 'MIG-6f1b2c3d-0000-5a6b-8c9d-000000000001', profile: '3g.20gb', memoryTotal: 20937965568 },
    { uuid: 'MIG-6f1b2c3d-0000-5a6b-8c9d-000000000002', profile: '2g.10gb', memoryTotal: 10200547328 },
    { uuid: 'MIG-6f1b2c3d-0000-5a6b-8c9d-000000000003', profile: '1g.5gb', memoryTotal: 5100273664 },
  ]);
  expect(inv.gpus[1].mig).toEqual([]);
  expect(inv.gpus[2].mig).toBeUndefined();
  expect(inv.links).toEqual([
    { a: 0, b: 1, pcie: 'PXB' },
    { a: 0, b: 2, pcie: 'SYS' },
    { a: 1, b: 2, pcie: 'SYS' },
  ]);
});

it('parses MIG profiles from device names', () => {
  expect(migProfile('NVIDIA A100-SXM4-40GB MIG 1g.5gb')).toBe('1g.5gb');
  expect(migProfile('NVIDIA H100 80GB HBM3 MIG 1g.10gb+me')).toBe('1g.10gb+me');
  expect(migProfile('NVIDIA A100-SXM4-80GB MIG 1c.2g.20gb')).toBe('1c.2g.20gb');
  expect(migProfile('NVIDIA H200 MIG 7g.141gb')).toBe('7g.141gb');
});

it('whole-GPU picks on the discovered host leave its MIG GPUs out (slices or not), unless allowed', async () => {
  const { openEngine, nodeFromInventory, wholeGpuCandidates } = await import('../../src/index.js');
  h.use(configText(migA100()));
  const inv = await discoverDevices({ library: h.current, refresh: true });
  expect(wholeGpuCandidates(inv)).toEqual({ available: [2], mig: [0, 1] });
  expect(wholeGpuCandidates(inv, { allowMig: true })).toEqual({ available: [0, 1, 2], mig: [] });
  expect(nodeFromInventory(inv).gpus.map((g) => g.mig === true)).toEqual([true, true, false]);
  const state = (await openEngine({ backend: 'ts' })).createClusterState(inv);
  const plan = state.plan({ memory: 2 ** 30, tensorParallelSizes: [1] });
  expect(plan.options.map((o) => o.gpus)).toEqual([[2]]);
  expect(state.plan({ memory: 2 ** 30, tensorParallelSizes: [1], allowMig: true }).options.map((o) => o.gpus)).toEqual([[0], [1], [2]]);
});
