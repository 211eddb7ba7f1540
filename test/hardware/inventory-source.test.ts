// resolveInventory: --inventory FILE, else NVML discovery, else the preset, each with a one-line notice.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { Io } from '../../src/cli/lib/common.js';
import { DEFAULT_PRESET, resolveInventory } from '../../src/cli/lib/source.js';
import { getPreset } from '../../src/hardware/presets.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, driverNotLoaded, expectedGpus, pcieBox } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

function io(env: Record<string, string | undefined> = {}): Io & { errors: string[] } {
  const errors: string[] = [];
  return { out: () => {}, err: (t) => void errors.push(t), env, cwd: join(import.meta.dirname, '..', 'fixtures'), errors };
}

it('reads and validates --inventory FILE', async () => {
  const x = io();
  const { inventory, notice } = await resolveInventory({ inventory: 'inventory-dgx1-volta.json' }, x);
  expect(inventory.gpus).toHaveLength(8);
  expect(notice).toBe('using inventory file inventory-dgx1-volta.json');
  expect(x.errors).toEqual(['gpualloc: using inventory file inventory-dgx1-volta.json\n']);
});

it('names the file and the bad field of an invalid inventory file', async () => {
  const path = join(h.dir, 'bad.json');
  const text = JSON.stringify({ version: 1, gpus: [{ index: 0, memoryTotal: -1 }] });
  writeFileSync(path, text);
  // line 1, the column of the bad field's key
  await expect(resolveInventory({ inventory: path }, io())).rejects.toMatchObject({
    code: 'INVALID_INVENTORY',
    field: 'gpus[0].memoryTotal',
    message: `--inventory ${path}:1:${text.indexOf('"memoryTotal"') + 1}: gpus[0].memoryTotal: expected a non-negative integer, got -1`,
  });
  writeFileSync(path, '{"version": 1,');
  await expect(resolveInventory({ inventory: path }, io())).rejects.toMatchObject({ code: 'INVALID_INVENTORY', message: expect.stringMatching(/:1:15: not valid JSON/) });
});

it('falls back to the preset with a one-line notice when NVML fails', async () => {
  h.use(configText(driverNotLoaded()));
  const x = io({ GPUALLOC_NVML_LIBRARY: h.current });
  const { inventory, notice } = await resolveInventory({}, x);
  expect(inventory).toEqual(getPreset(DEFAULT_PRESET));
  expect(notice).toBe(`no GPU through NVML (NVIDIA driver not loaded); using preset ${DEFAULT_PRESET}`);
  expect(x.errors).toHaveLength(1);
  expect(x.errors[0].trimEnd().includes('\n')).toBe(false);
});

it('uses the GPUs NVML discovers when there are some', async () => {
  const machine = pcieBox();
  h.use(configText(machine));
  const x = io({ GPUALLOC_NVML_LIBRARY: h.current });
  const { inventory, notice } = await resolveInventory({ quiet: true }, x);
  expect(inventory.source).toBe('nvml');
  expect(inventory.gpus).toEqual(expectedGpus(machine));
  expect(notice).toBe("using this host's 4 GPUs (NVML)");
  expect(x.errors).toEqual([]);
});
