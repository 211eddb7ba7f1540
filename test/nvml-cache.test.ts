// discoverDevices caches per process and per library; refresh re-reads; callers get copies.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../bindings/index.js';
import { doubleHarness, type DoubleHarness } from './fixtures/nvml-double/build.js';
import { configText, migA100, pcieBox } from './fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('answers from the cache until refresh: true, without touching NVML', async () => {
  h.use(configText(pcieBox()));
  const first = await discoverDevices({ library: h.current, refresh: true });
  expect(first.gpus).toHaveLength(4);
  h.use(configText(migA100()));
  const cached = await discoverDevices({ library: h.current });
  expect(cached).toEqual(first);
  expect(h.calls()).toEqual([]);
  const fresh = await discoverDevices({ library: h.current, refresh: true });
  expect(fresh.gpus).toHaveLength(3);
  expect(h.calls()[0]).toBe('nvmlInit_v2');
});

it('returns copies: mutating a result does not change the next one', async () => {
  h.use(configText(pcieBox()));
  const a = await discoverDevices({ library: h.current, refresh: true });
  a.gpus[0].memoryTotal = 1;
  a.links.length = 0;
  const b = await discoverDevices({ library: h.current });
  expect(b.gpus[0].memoryTotal).toBe(48305799168);
  expect(b.links).toHaveLength(6);
});
