import { describe, expect, it } from 'vitest';
import { inventoryTopology } from '../../src/hardware/inventory.js';
import { getPreset, listPresets } from '../../src/hardware/presets.js';
import { linkScore, validateTopology } from '../../src/hardware/topology.js';
import { AllocationError } from '../../src/shared/errors.js';

const NAMES = ['dgx1-pascal', 'dgx1-volta', '4x-rtx8000', 'dgx2', 'dgx-a100', 'dgx-h100', '8x-l40s-pcie', 'dgx-a100-mig'];

function link(name: string, a: number, b: number) {
  return getPreset(name).links.find((l) => l.a === Math.min(a, b) && l.b === Math.max(a, b));
}

describe('presets', () => {
  it('lists every required machine', () => {
    const names = listPresets().map((p) => p.name);
    for (const n of NAMES) expect(names).toContain(n);
    for (const p of listPresets()) expect(p.description.length).toBeGreaterThan(10);
  });

  it('are complete inventories with one link per pair and a valid topology', () => {
    for (const name of NAMES) {
      const inv = getPreset(name);
      const n = inv.gpus.length;
      expect(inv.version).toBe(1);
      expect(inv.source).toBe(`preset:${name}`);
      expect(inv.links.length).toBe((n * (n - 1)) / 2);
      expect(() => validateTopology(inventoryTopology(inv))).not.toThrow();
      const uuids = new Set(inv.gpus.map((g) => g.uuid));
      expect(uuids.size).toBe(n);
      inv.gpus.forEach((g, k) => {
        expect(g.index).toBe(k);
        expect(g.uuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(g.pciBusId).toMatch(/^0000:[0-9A-F]{2}:00\.0$/);
        expect(Number.isInteger(g.memoryTotal) && g.memoryTotal > 10 * 2 ** 30).toBe(true);
        expect(typeof g.numaNode).toBe('number');
      });
      expect(inv.cpus!.length).toBeGreaterThan(0);
      expect(inv.memory! > 2 ** 36).toBe(true);
    }
  });

  it('dgx1-volta matches the go-gpuallocator fixture rows', () => {
    // Row 0 of the DGX-1 Volta table (go-gpuallocator test fixture): -, NV1+PIX, NV1+PHB, NV2+PHB, NV2+SYS, SYS, SYS, SYS
    expect(link('dgx1-volta', 0, 1)).toEqual({ a: 0, b: 1, pcie: 'PIX', nvlink: 1 });
    expect(link('dgx1-volta', 0, 3)).toEqual({ a: 0, b: 3, pcie: 'PHB', nvlink: 2 });
    expect(link('dgx1-volta', 0, 4)).toEqual({ a: 0, b: 4, pcie: 'SYS', nvlink: 2 });
    expect(link('dgx1-volta', 0, 5)).toEqual({ a: 0, b: 5, pcie: 'SYS' });
    expect(link('dgx1-volta', 6, 7)).toEqual({ a: 6, b: 7, pcie: 'PIX', nvlink: 2 });
    expect(link('dgx1-volta', 3, 7)).toEqual({ a: 3, b: 7, pcie: 'SYS', nvlink: 1 });
    // Each V100 has 6 NVLinks.
    const inv = getPreset('dgx1-volta');
    for (let g = 0; g < 8; g++) expect(inv.links.filter((l) => l.a === g || l.b === g).reduce((s, l) => s + (l.nvlink ?? 0), 0)).toBe(6);
  });

  it('NVSwitch machines link every pair with the per-GPU link count', () => {
    expect(getPreset('dgx-a100').links.every((l) => l.nvlink === 12)).toBe(true);
    expect(getPreset('dgx-h100').links.every((l) => l.nvlink === 18)).toBe(true);
    expect(getPreset('dgx2').links.every((l) => l.nvlink === 6)).toBe(true);
    expect(getPreset('dgx2').gpus.length).toBe(16);
    expect(getPreset('8x-l40s-pcie').links.every((l) => l.nvlink === undefined)).toBe(true);
    expect(linkScore(link('8x-l40s-pcie', 0, 1))).toBe(50);
    expect(linkScore(link('8x-l40s-pcie', 0, 2))).toBe(20);
    expect(linkScore(link('8x-l40s-pcie', 0, 4))).toBe(10);
  });

  it('dgx-a100-mig has valid A100-80GB MIG layouts', () => {
    const inv = getPreset('dgx-a100-mig');
    const slices: Record<string, number> = { '1g.10gb': 1, '2g.20gb': 2, '3g.40gb': 3, '4g.40gb': 4, '7g.80gb': 7 };
    let migGpus = 0;
    for (const g of inv.gpus) {
      if (g.mig === undefined) continue;
      migGpus++;
      expect(g.mig.reduce((s, m) => s + slices[m.profile], 0)).toBeLessThanOrEqual(7);
      expect(g.mig.reduce((s, m) => s + m.memoryTotal, 0)).toBeLessThanOrEqual(g.memoryTotal);
      for (const m of g.mig) expect(m.uuid).toMatch(/^MIG-[0-9a-f-]{36}$/);
    }
    expect(migGpus).toBeGreaterThanOrEqual(2);
    expect(inv.gpus[0].mig!.length).toBe(7);
    expect(inv.gpus[0].mig![0].memoryTotal).toBe(10200547328);
    expect(inv.gpus.some((g) => g.mig === undefined)).toBe(true);
  });

  it('getPreset returns a fresh copy and rejects unknown names', () => {
    const a = getPreset('dgx-a100');
    a.gpus.pop();
    expect(getPreset('dgx-a100').gpus.length).toBe(8);
    expect(() => getPreset('dgx-9000')).toThrow(AllocationError);
    expect(() => getPreset('dgx-9000')).toThrow(/dgx-9000/);
  });
});
