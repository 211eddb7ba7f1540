// Whole-GPU picks on GPUs in MIG mode, from the command line: aligned, plan (one host, a state file,
// an inventory file) and the demo leave dgx-a100-mig's GPUs 0-4 out unless --allow-mig, and say so;
// topo and presets name them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';

const MIG = 'GPU 3 is in MIG mode (its slices are allocated with gpualloc replicas)';

describe('whole-GPU picks and MIG mode', () => {
  it('aligned: --size 4 cannot be met from GPUs 5-7; --size 3 takes them; --allow-mig takes 0-3; a required MIG GPU is refused', async () => {
    const four = await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '4']);
    expect(four.code).toBe(1);
    expect(four.stderr).toMatch(/INSUFFICIENT_DEVICES\): size 4: only 3 GPUs are available \(left out: GPUs 0,1,2,3,4 in MIG mode; --allow-mig picks them whole\)/);
    const three = JSON.parse((await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '3', '--json'])).stdout);
    expect([three.rounds[0].devices, three.migLeftOut]).toEqual([
      [5, 6, 7],
      [0, 1, 2, 3, 4],
    ]);
    const text = await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '3']);
    expect(text.stdout).toMatch(/\nleft out: GPUs 0,1,2,3,4 in MIG mode \(their slices are allocated with gpualloc replicas; --allow-mig picks them whole\)\n$/);
    const allowed = JSON.parse((await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '4', '--allow-mig', '--json'])).stdout);
    expect(allowed.rounds[0].devices).toEqual([0, 1, 2, 3]);
    expect(allowed.migLeftOut).toBeUndefined();
    const explicit = JSON.parse((await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '2', '--available', '3,4,5,6', '--json'])).stdout);
    expect(explicit.rounds[0].devices).toEqual([5, 6]);
    const required = await cli(['aligned', '--preset', 'dgx-a100-mig', '--size', '2', '--required', '3']);
    expect(required.code).toBe(1);
    expect(required.stderr).toContain(`(MIG_MODE): --required: ${MIG}; --allow-mig picks it as a whole GPU`);
    // A machine without MIG GPUs prints what it always did.
    expect((await cli(['aligned', '--preset', 'dgx-a100', '--size', '4'])).stdout).not.toMatch(/MIG/);
  });

  it('plan: 140 GiB goes to GPUs 6,7, each MIG GPU rejected with MIG_MODE; --allow-mig places it on 0,1; a state file and an inventory file keep the rule', async () => {
    const plan = JSON.parse((await cli(['plan', '--preset', 'dgx-a100-mig', '--memory', '140GiB', '--json'])).stdout);
    expect(plan.options[0].gpus).toEqual([6, 7]);
    expect(plan.options.every((o: { gpus: number[] }) => o.gpus.every((g) => g >= 5))).toBe(true);
    expect(plan.rejected.filter((r: { code: string }) => r.code === 'MIG_MODE').map((r: { gpu: number; message: string }) => [r.gpu, r.message])).toEqual(
      [0, 1, 2, 3, 4].map((g) => [g, `GPU ${g} on node dgx-a100-mig is in MIG mode (its slices are allocated with gpualloc replicas)`]),
    );
    const text = await cli(['plan', '--preset', 'dgx-a100-mig', '--memory', '140GiB', '--limit', '1']);
    expect(text.stdout).toContain(`  GPU 3 on node dgx-a100-mig is in MIG mode (its slices are allocated with gpualloc replicas)\n`);
    const allowed = JSON.parse((await cli(['plan', '--preset', 'dgx-a100-mig', '--memory', '140GiB', '--allow-mig', '--json'])).stdout);
    expect(allowed.options[0].gpus).toEqual([0, 1]);
    expect(allowed.rejected.some((r: { code: string }) => r.code === 'MIG_MODE')).toBe(false);
    const big = await cli(['plan', '--preset', 'dgx-a100-mig', '--memory', '300GiB']);
    expect(big.code).toBe(1);
    expect(big.stdout).toMatch(/5 of them in MIG mode/);
    await inTempDir('gpualloc-mig-', async (dir) => {
      const state = join(dir, 'state.json');
      const committed = JSON.parse((await cli(['plan', '--preset', 'dgx-a100-mig', '--memory', '140GiB', '--state', state, '--commit', '--json'])).stdout);
      expect(committed.options[0].gpus).toEqual([6, 7]);
      const gpus = JSON.parse(readFileSync(state, 'utf8')).nodes[0].gpus as Array<{ index: number; mig?: boolean }>;
      expect(gpus.filter((g) => g.mig === true).map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
      const next = JSON.parse((await cli(['plan', '--memory', '60GiB', '--tp', '1', '--state', state, '--json'])).stdout);
      expect(next.options.map((o: { gpus: number[] }) => o.gpus)).toEqual([[5]]);
      const inventory = join(dir, 'node.json');
      expect((await cli(['presets', '--inventory', 'dgx-a100-mig', '--out', inventory])).code).toBe(0);
      const fromFile = JSON.parse((await cli(['plan', '--inventory', inventory, '--memory', '140GiB', '--json'])).stdout);
      expect(fromFile.options).toEqual(plan.options);
    });
  });

  it('the demo, topo and presets follow the rule', async () => {
    const demo = (await cli(['demo', '--preset', 'dgx-a100-mig'])).stdout;
    expect(demo).toMatch(/4\. 3 whole GPUs by topology \(GPUs 0,1,2,3,4 in MIG mode left out\):\n.*\n.*\ntopology\s+5,6,7\s/);
    expect(demo).toMatch(/llama-70b\s+140 GiB\s+6,7\s/);
    const topo = JSON.parse((await cli(['topo', '--preset', 'dgx-a100-mig', '--json'])).stdout);
    expect(topo.mig).toEqual([0, 1, 2, 3, 4]);
    expect((await cli(['topo', '--preset', 'dgx-a100-mig'])).stdout).toContain(
      '\nMIG mode: GPUs 0,1,2,3,4 (left out of whole-GPU picks unless --allow-mig; gpualloc replicas allocates their slices)\n',
    );
    expect(JSON.parse((await cli(['topo', '--preset', 'dgx-a100', '--json'])).stdout).mig).toBeUndefined();
    expect((await cli(['presets'])).stdout).toContain('\ndgx-a100-mig: GPUs 0,1,2,3,4 in MIG mode: whole-GPU picks (aligned, plan, demo) leave them out');
  });
});
