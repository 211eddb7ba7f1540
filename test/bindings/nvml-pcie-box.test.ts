// A PCIe-only box: every NVML topology level maps to its name, no NVLink, NUMA left out where unsupported.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, expectedGpus, pcieBox } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('reads a PCIe-only box field for field with each PCIe level and no NVLink', async () => {
  const machine = pcieBox();
  h.use(configText(machine));
  const inv = await discoverDevices({ library: h.current, refresh: true });
  expect(inv.gpus).toEqual(expectedGpus(machine));
  expect(inv.gpus.every((g) => g.numaNode === undefined && g.mig === undefined)).toBe(true);
  expect(inv.links).toEqual([
    { a: 0, b: 1, pcie: 'INTERNAL' },
    { a: 0, b: 2, pcie: 'PIX' },
    { a: 0, b: 3, pcie: 'PXB' },
    { a: 1, b: 2, pcie: 'PHB' },
    { a: 1, b: 3, pcie: 'NODE' },
    { a: 2, b: 3, pcie: 'SYS' },
  ]);
});
