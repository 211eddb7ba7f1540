// gpualloc aligned and gpualloc topo: text and JSON output, --repeat, exit codes.
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';

describe('gpualloc aligned', () => {
  it('--repeat on DGX-1 Volta (besteffort): {0,3} {1,2} {4,7} {5,6}, then infeasible (exit 1)', async () => {
    const r = await cli(['aligned', '--preset', 'dgx1-volta', '--size', '2', '--policy', 'besteffort', '--repeat', '5', '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.rounds.map((x: { devices: number[] }) => x.devices)).toEqual([[0, 3], [1, 2], [4, 7], [5, 6], []]);
    expect(out.rounds[4].reason.code).toBe('INSUFFICIENT_DEVICES');
    expect(r.stderr).toMatch(/request 5 infeasible/);
  });

  it('prints GPUs and the score as text', async () => {
    const r = await cli(['aligned', '--preset', 'dgx1-volta', '--size', '4', '--required', '4']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1\s+4,5,6,7\s+1120\s/m);
    expect(r.stderr).toMatch(/using preset dgx1-volta/);
  });

  it('honours --available order for besteffort', async () => {
    const r = await cli(['aligned', '--preset', 'dgx1-volta', '--size', '2', '--available', '0,1,2', '--policy', 'besteffort', '--json']);
    expect(JSON.parse(r.stdout).rounds[0]).toEqual({ request: 1, devices: [1, 2], score: 230 });
  });

  it('rejects bad options with exit 2', async () => {
    expect((await cli(['aligned', '--preset', 'dgx1-volta'])).code).toBe(2);
    expect((await cli(['aligned', '--preset', 'dgx1-volta', '--size', '2', '--policy', 'packed'])).code).toBe(2);
    const bad = await cli(['aligned', '--preset', 'dgx1-volta', '--size', '2', '--available', '0,9', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('UNKNOWN_DEVICE_ID');
    expect((await cli(['aligned', '--preset', 'nope', '--size', '2'])).code).toBe(2);
  });
});

describe('gpualloc topo', () => {
  it('prints the DGX-1 Volta matrix like nvidia-smi topo -m', async () => {
    const r = await cli(['topo', '--preset', 'dgx1-volta']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^GPU0\s+X\s+NV1\s+NV1\s+NV2\s+NV2\s+SYS\s+SYS\s+SYS\s+0$/m);
    expect(r.stdout).toMatch(/^GPU7\s+SYS\s+SYS\s+SYS\s+NV1\s+NV2\s+NV1\s+NV2\s+X\s+1$/m);
  });

  it('shows PCIe levels where there is no NVLink, and scores with --scores', async () => {
    const r = await cli(['topo', '--preset', '8x-l40s-pcie', '--json']);
    const out = JSON.parse(r.stdout);
    expect(out.links[0]).toEqual(['X', 'PIX', 'NODE', 'NODE', 'SYS', 'SYS', 'SYS', 'SYS']);
    expect(out.scores[0]).toEqual([0, 50, 20, 20, 10, 10, 10, 10]);
    const a100 = await cli(['topo', '--preset', 'dgx-a100']);
    expect(a100.stdout).toMatch(/^GPU3\s+NV12\s+NV12\s+NV12\s+X\s+NV12/m);
    const s = await cli(['topo', '--preset', 'dgx1-volta', '--scores']);
    expect(s.stdout).toMatch(/^GPU0\s+X\s+150\s+130\s+230\s+210\s+10\s+10\s+10\s/m);
  });
});

describe('--inventory FILE', () => {
  it('topo and aligned read an inventory file', async () =>
    inTempDir('gpualloc-aligned-', async (dir) => {
      const { writeFileSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { getPreset } = await import('../../src/hardware/presets.js');
      const file = join(dir, 'rtx.json');
      writeFileSync(file, JSON.stringify(getPreset('4x-rtx8000')));
      const topo = await cli(['topo', '--inventory', file]);
      expect(topo.code).toBe(0);
      expect(topo.stdout).toMatch(/^GPU0\s+X\s+NV2\s+PHB\s+PHB\s+0$/m);
      const r = await cli(['aligned', '--inventory', file, '--size', '2', '--required', '3', '--json']);
      expect(JSON.parse(r.stdout).rounds[0]).toEqual({ request: 1, devices: [2, 3], score: 250 });
      const missing = await cli(['topo', '--inventory', join(dir, 'nope.json')]);
      expect(missing.code).toBe(2);
    }));
});
