// A GPU answering GPU_IS_LOST is reported lost; the others are still discovered, with their pairs.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, expectedGpus, lostGpu } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('marks lost GPUs (at handle or at query) and discovers the rest', async () => {
  const machine = lostGpu();
  h.use(configText(machine));
  const inv = await discoverDevices({ library: h.current, refresh: true });
  expect(inv.gpus).toEqual(expectedGpus(machine));
  expect(inv.gpus[1]).toEqual({ index: 1, id: 'cuda1', memoryTotal: 0, lost: true });
  expect(inv.gpus[3]).toEqual({ index: 3, id: 'cuda3', memoryTotal: 0, lost: true });
  expect(inv.gpus[0].uuid).toBe(machine.gpus[0].uuid);
  expect(inv.links).toEqual([{ a: 0, b: 2, pcie: 'PIX' }]);
  expect(h.calls().at(-1)).toBe('nvmlShutdown');
});
