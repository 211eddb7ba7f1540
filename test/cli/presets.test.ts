import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

describe('gpualloc presets', () => {
  it('lists every preset as text and JSON', async () => {
    const t = await cli(['presets']);
    expect(t.code).toBe(0);
    for (const n of ['dgx1-pascal', 'dgx1-volta', '4x-rtx8000', 'dgx2', 'dgx-a100', 'dgx-a100-mig', 'dgx-h100', '8x-l40s-pcie']) expect(t.stdout).toContain(n);
    const j = JSON.parse((await cli(['presets', '--json'])).stdout);
    expect(j.find((p: { name: string }) => p.name === 'dgx2')).toMatchObject({ gpus: 16, model: 'Tesla V100-SXM3-32GB', mig: 0 });
    expect(j.find((p: { name: string }) => p.name === 'dgx-a100-mig').mig).toBeGreaterThan(0);
  });
});
