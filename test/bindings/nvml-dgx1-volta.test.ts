// DGX-1 Volta: direct NVLinks counted per pair by remote PCI bus ID, matching go-gpuallocator's fixture.
import { beforeAll, expect, it } from 'vitest';
import { discoverDevices } from '../../bindings/index.js';
import { type DoubleHarness, doubleHarness } from '../fixtures/nvml-double/build.js';
import { configText, DGX1_TABLE, dgx1Volta, expectedGpus } from '../fixtures/nvml-double/machines.js';

let h: DoubleHarness;
beforeAll(() => {
  h = doubleHarness();
});

it('reads a DGX-1 Volta field for field, its NVLink pairs as in the reference table', async () => {
  const machine = dgx1Volta();
  h.use(configText(machine));
  const inv = await discoverDevices({ library: h.current, refresh: true });
  const links = [];
  for (let a = 0; a < 8; a++) {
    for (let b = a + 1; b < 8; b++) {
      const [, nv, pcie] = /^(?:NV(\d)\+)?(\w+)$/.exec(DGX1_TABLE[a][b])!;
      links.push(nv === undefined ? { a, b, pcie } : { a, b, pcie, nvlink: Number(nv) });
    }
  }
  expect(inv.gpus).toEqual(expectedGpus(machine));
  expect(inv.links).toEqual(links);
  // spot checks against the DGX-1 Volta table (go-gpuallocator test fixture), independent of the parsing above
  expect(inv.links.find((l) => l.a === 0 && l.b === 3)).toEqual({ a: 0, b: 3, pcie: 'PHB', nvlink: 2 });
  expect(inv.links.find((l) => l.a === 0 && l.b === 5)).toEqual({ a: 0, b: 5, pcie: 'SYS' });
  expect(inv.links.find((l) => l.a === 6 && l.b === 7)).toEqual({ a: 6, b: 7, pcie: 'PIX', nvlink: 2 });
  expect(inv.gpus[2].processes).toEqual([
    { pid: 91, usedMemory: 300 * 2 ** 20 },
    { pid: 777, usedMemory: 2 * 2 ** 30 },
  ]);
});
