// discoverDevices caches per process and per library; refresh re-reads; callers get copies.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, migA100, pcieBox } from '../fixtures/nvml-double/machines.js';

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

it('keys the cache by the paths tried: a library named in one call is not the variable of another', async () => {
  // { library: A } with $GPUALLOC_NVML_LIBRARY = B tries A, B, the soname...; {} with the variable = A
  // tries A, the soname...: a different list, so the first call's inventory (read from B) must not
  // answer the second.
  h.use(configText(pcieBox()));
  const missing = `${h.current}.missing`;
  const saved = process.env.GPUALLOC_NVML_LIBRARY;
  try {
    process.env.GPUALLOC_NVML_LIBRARY = h.current;
    const first = await discoverDevices({ library: missing, refresh: true });
    expect(first.gpus).toHaveLength(4);
    process.env.GPUALLOC_NVML_LIBRARY = missing;
    const second = await discoverDevices({}).then(
      (inventory) => inventory,
      (error: unknown) => error,
    );
    // Without NVML on this host the second call fails; with it, it reads the host's GPUs: never the double's cached four.
    expect(second).not.toEqual(first);
  } finally {
    if (saved === undefined) delete process.env.GPUALLOC_NVML_LIBRARY;
    else process.env.GPUALLOC_NVML_LIBRARY = saved;
  }
});

it('nvmlCandidates: the order tried, without repeats; an empty path counts as not given', async () => {
  const { nvmlCandidates, NVML_SEARCH_PATHS } = await import('../../bindings/library.js');
  const env = { GPUALLOC_NVML_LIBRARY: '/env/libnvml.so' };
  expect(nvmlCandidates('/a.so', env)).toEqual(['/a.so', '/env/libnvml.so', ...NVML_SEARCH_PATHS]);
  expect(nvmlCandidates(undefined, env)).toEqual(['/env/libnvml.so', ...NVML_SEARCH_PATHS]);
  expect(nvmlCandidates('/env/libnvml.so', env)).toEqual(['/env/libnvml.so', ...NVML_SEARCH_PATHS]);
  expect(nvmlCandidates('/a.so', env, false)).toEqual(['/a.so']);
  expect(nvmlCandidates('', env, false)).toEqual(['/env/libnvml.so']);
  expect(nvmlCandidates(undefined, {}, false)).toEqual([]);
  expect(nvmlCandidates('', { GPUALLOC_NVML_LIBRARY: '' })).toEqual([...NVML_SEARCH_PATHS]);
});
