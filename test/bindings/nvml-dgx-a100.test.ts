// DGX A100 on NVSwitch: every pair counts min(switch links) = 12 NVLinks, PCIe pairs are PXB.
import { cpus, hostname, totalmem } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, dgxA100, expectedGpus } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

describe('discoverDevices on an emulated DGX A100', () => {
  it('returns the machine field for field, NVSwitch pairs as 12 NVLinks', async () => {
    const machine = dgxA100();
    h.use(configText(machine));
    const inv = await discoverDevices({ library: h.current, refresh: true });
    const links = [];
    for (let a = 0; a < 8; a++) for (let b = a + 1; b < 8; b++) links.push({ a, b, pcie: a >> 1 === b >> 1 ? 'PXB' : 'SYS', nvlink: 12 });
    expect(inv).toEqual({
      version: 1,
      host: hostname(),
      source: 'nvml',
      gpus: expectedGpus(machine),
      links,
      cpus: cpus().map((_, i) => String(i)),
      memory: totalmem(),
    });
    expect(inv.gpus[0]).toMatchObject({ pciBusId: '0000:07:00.0', numaNode: 3, memoryUsed: 4 * 2 ** 30, processes: [{ pid: 4242, usedMemory: 4 * 2 ** 30 - 512 * 2 ** 20 }] });
    expect(inv.gpus[0].mig).toBeUndefined();
    expect(h.calls().at(-1)).toBe('nvmlShutdown');
  });

  it('counts the smaller switch-link count when GPUs have fewer active links', async () => {
    const machine = dgxA100();
    for (const l of machine.gpus[5].nvlinks!) if (l.link >= 8) l.active = false;
    h.use(configText(machine));
    const inv = await discoverDevices({ library: h.current, refresh: true });
    for (const l of inv.links) expect(l.nvlink).toBe(l.a === 5 || l.b === 5 ? 8 : 12);
  });
});
