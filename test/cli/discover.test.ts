// gpualloc discover against the NVML double: the recorded DGX A100 output, --json, --out, exit code 3.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import type { Io } from '../../src/cli/lib/common.js';
import { main } from '../../src/cli/main.js';
import { validateInventory } from '../../src/hardware/inventory.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, dgxA100, driverNotLoaded, expectedGpus } from '../fixtures/nvml-double/machines.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'discover-dgx-a100.txt');

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: h.dir };
  const code = await main(argv, io);
  return { code, out, err };
}

it('prints the GPU table and topology matrix of a DGX A100 as recorded', async () => {
  h.use(configText(dgxA100()));
  const r = await run(['discover', '--library', h.current, '--refresh']);
  expect(r.code).toBe(0);
  expect(r.out).toBe(readFileSync(FIXTURE, 'utf8'));
  expect(r.out).toContain('GPU0  X         NV12+PXB  NV12+SYS');
});

it('writes the inventory with --out and prints it with --json', async () => {
  h.use(configText(dgxA100()));
  const r = await run(['discover', '--library', h.current, '--refresh', '--json', '--out', 'inv.json']);
  expect(r.code).toBe(0);
  const file = join(h.dir, 'inv.json');
  expect(existsSync(file)).toBe(true);
  expect(readFileSync(file, 'utf8')).toBe(r.out);
  const inv = validateInventory(JSON.parse(r.out), 'inv.json');
  expect(inv.gpus).toEqual(expectedGpus(dgxA100()));
  expect(inv.links).toHaveLength(28);
  expect(r.err).toContain('wrote the inventory of 8 GPUs to inv.json');
});

it('exits 3 with the NVML error name on a driver that is not loaded', async () => {
  h.use(configText(driverNotLoaded()));
  const r = await run(['discover', '--library', h.current, '--refresh', '--json']);
  expect(r.code).toBe(3);
  expect(JSON.parse(r.out)).toEqual({ error: { code: 'NVML_ERROR_DRIVER_NOT_LOADED', message: expect.stringContaining('NVIDIA driver not loaded') } });
  const text = await run(['discover', '--library', join(h.dir, 'missing.so'), '--refresh']);
  expect(text.code).toBe(3);
  expect(text.err).toContain('NVML library not found');
});

it('reads the library named by --library and no other, even where another one loads', async () => {
  // On a GPU host the driver's libnvidia-ml.so.1 would load; here a working double stands in for it
  // through $GPUALLOC_NVML_LIBRARY, which a named library must not fall back to either.
  h.use(configText(dgxA100()));
  const saved = process.env.GPUALLOC_NVML_LIBRARY;
  process.env.GPUALLOC_NVML_LIBRARY = h.current;
  try {
    const missing = join(h.dir, 'missing.so');
    // A long-lived caller asked for the same path with fallback first: that inventory (of the
    // variable's library) is cached, and must not answer a request for that path alone.
    expect((await discoverDevices({ library: missing, refresh: true })).gpus).toHaveLength(8);
    const r = await run(['discover', '--library', missing]);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toContain(`Tried: ${missing}.`);
    // Without --library, the variable's library is read.
    const ok = await run(['discover', '--refresh', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).gpus).toHaveLength(8);
  } finally {
    if (saved === undefined) delete process.env.GPUALLOC_NVML_LIBRARY;
    else process.env.GPUALLOC_NVML_LIBRARY = saved;
  }
});

it('with --library, a library that does not load is named as the one tried, not the soname', async () => {
  const missing = join(h.dir, 'missing.so');
  const r = await run(['discover', '--library', missing, '--refresh']);
  expect(r.code).toBe(3);
  expect(r.err).toContain(`${missing} could not be loaded, and nothing else was tried (fallback off)`);
  expect(r.err).not.toContain('libnvidia-ml.so.1');
});
