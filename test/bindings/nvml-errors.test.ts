// NvmlError: "no library" and "no driver" are distinct; a failing call names itself; nvmlShutdown always runs after init.
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices, NvmlError } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, driverNotLoaded, pcieBox } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

async function failure(promise: Promise<unknown>): Promise<NvmlError> {
  try {
    await promise;
  } catch (error) {
    return error as NvmlError;
  }
  throw new Error('expected discoverDevices to throw');
}

it('reports a missing library as NVML_ERROR_LIBRARY_NOT_FOUND naming what it tried', async () => {
  const missing = join(h.dir, 'no-such-libnvidia-ml.so.1');
  const e = await failure(discoverDevices({ library: missing, fallback: false, refresh: true }));
  expect(e).toBeInstanceOf(NvmlError);
  expect(e.name).toBe('NvmlError');
  expect(e.nvmlName).toBe('NVML_ERROR_LIBRARY_NOT_FOUND');
  expect(e.code).toBe(12);
  expect(e.function).toBe('dlopen');
  expect(e.message).toContain('NVML library not found');
  expect(e.message).toContain(missing);
});

it('reports a driver that is not loaded as NVML_ERROR_DRIVER_NOT_LOADED, without calling nvmlShutdown', async () => {
  h.use(configText(driverNotLoaded()));
  const e = await failure(discoverDevices({ library: h.current, refresh: true }));
  expect(e).toBeInstanceOf(NvmlError);
  expect(e.nvmlName).toBe('NVML_ERROR_DRIVER_NOT_LOADED');
  expect(e.code).toBe(9);
  expect(e.function).toBe('nvmlInit_v2');
  expect(e.message).toContain('NVIDIA driver not loaded');
  expect(e.message).not.toContain('library not found');
  expect(h.calls()).toEqual(['nvmlInit_v2']);
});

it('names the failing function and still calls nvmlShutdown', async () => {
  h.use(configText({ ...pcieBox(), fails: [['nvmlDeviceGetCount_v2', 999]] }));
  const e = await failure(discoverDevices({ library: h.current, refresh: true }));
  expect(e).toMatchObject({ name: 'NvmlError', nvmlName: 'NVML_ERROR_UNKNOWN', code: 999, function: 'nvmlDeviceGetCount_v2' });
  expect(h.calls()).toEqual(['nvmlInit_v2', 'nvmlDeviceGetCount_v2', 'nvmlShutdown']);

  h.use(configText({ ...pcieBox(), fails: [['nvmlDeviceGetMemoryInfo', 4]] }));
  const m = await failure(discoverDevices({ library: h.current, refresh: true }));
  expect(m).toMatchObject({ nvmlName: 'NVML_ERROR_NO_PERMISSION', function: 'nvmlDeviceGetMemoryInfo' });
  expect(m.message).toContain('GPU 0');
  expect(h.calls().at(-1)).toBe('nvmlShutdown');
  expect(h.calls().filter((c) => c === 'nvmlShutdown')).toHaveLength(1);
});

it('leaves out a field whose call is not supported, keeping the rest', async () => {
  const machine = pcieBox();
  h.use(
    configText({
      ...machine,
      fails: [
        ['nvmlDeviceGetMinorNumber', 3],
        ['nvmlDeviceGetTopologyCommonAncestor', 3],
      ],
    }),
  );
  const inv = await discoverDevices({ library: h.current, refresh: true });
  expect(inv.gpus.map((g) => g.minorNumber)).toEqual([undefined, undefined, undefined, undefined]);
  expect(inv.gpus.map((g) => g.uuid)).toEqual(machine.gpus.map((g) => g.uuid));
  expect(inv.links).toEqual([]);
});

it('reads $GPUALLOC_NVML_LIBRARY when no library option is given', async () => {
  h.use(configText(pcieBox()));
  process.env.GPUALLOC_NVML_LIBRARY = h.current;
  try {
    const inv = await discoverDevices({ refresh: true, fallback: false });
    expect(inv.gpus).toHaveLength(4);
  } finally {
    delete process.env.GPUALLOC_NVML_LIBRARY;
  }
});

it('refuses a library that is not NVML, naming the missing entry point', async () => {
  const e = await failure(discoverDevices({ library: 'libc.so.6', fallback: false, refresh: true }));
  expect(e).toMatchObject({ name: 'NvmlError', nvmlName: 'NVML_ERROR_FUNCTION_NOT_FOUND', code: 13, function: 'nvmlInit_v2' });
  expect(e.message).toContain('not a usable NVML library');
});
