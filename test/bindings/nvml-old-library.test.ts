// An old libnvidia-ml without the newer symbols: each missing symbol degrades only its own field.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, dgx1Volta, dgxA100, expectedGpus } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('falls back to nvmlDeviceGetComputeRunningProcesses (v1 layout) and still reads direct NVLinks', async () => {
  const machine = dgx1Volta();
  h.use(configText(machine));
  const old = await discoverDevices({ library: h.old, refresh: true });
  h.use(configText(machine));
  const current = await discoverDevices({ library: h.current, refresh: true });
  expect(old.gpus).toEqual(expectedGpus(machine));
  expect(old).toEqual(current);
  expect(h.calls()).toContain('nvmlDeviceGetComputeRunningProcesses_v3');
});

it('without nvmlDeviceGetNvLinkRemoteDeviceType cannot see NVSwitch links, and keeps everything else', async () => {
  const machine = dgxA100();
  h.use(configText(machine));
  const inv = await discoverDevices({ library: h.old, refresh: true });
  expect(h.calls()).toContain('nvmlDeviceGetComputeRunningProcesses');
  expect(h.calls()).not.toContain('nvmlDeviceGetComputeRunningProcesses_v3');
  expect(inv.gpus).toEqual(expectedGpus(machine));
  expect(inv.links).toHaveLength(28);
  expect(inv.links.every((l) => l.nvlink === undefined && (l.pcie === 'PXB' || l.pcie === 'SYS'))).toBe(true);
});
