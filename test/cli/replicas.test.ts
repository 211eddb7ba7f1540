// gpualloc replicas: inventory expansion, policy sources, text and JSON output, exit codes.
import { describe, expect, it } from 'vitest';
import { expandInventory } from '../../src/cli/commands/replicas.js';
import { getPreset } from '../../src/hardware/presets.js';
import { cli } from '../support/cli.js';

const INV = 'test/fixtures/replicas-inventory.json';
const NO_ENV = { GPUALLOC_ALLOCATION_POLICY: undefined };

async function json(argv: string[], env: Record<string, string | undefined> = NO_ENV) {
  const r = await cli(['replicas', ...argv, '--json'], env);
  return { ...r, out: JSON.parse(r.stdout) };
}

// The fixture: GPU-a (index 0), GPU-b (index 1, MIG slices MIG-b2 and MIG-b1), GPU-c (index 2),
// GPU-d lost, GPU-e MIG-enabled without slices. With --replicas 2 that is 8 devices on 3 GPUs.
const PARTLY_TAKEN = 'GPU-a::1,MIG-b2::1,MIG-b1::1,GPU-c::0,GPU-c::1';

describe('gpualloc replicas', () => {
  it('expands GPUs and MIG slices, skipping lost GPUs and MIG-enabled GPUs without slices', async () => {
    const { validateInventory } = await import('../../src/hardware/inventory.js');
    const { readFileSync } = await import('node:fs');
    const inventory = validateInventory(JSON.parse(readFileSync(INV, 'utf8')), INV);
    const { devices, parents } = expandInventory(inventory, 2);
    expect(devices).toEqual(['GPU-a::0', 'GPU-a::1', 'MIG-b2::0', 'MIG-b1::0', 'MIG-b2::1', 'MIG-b1::1', 'GPU-c::0', 'GPU-c::1']);
    expect(parents['MIG-b1::1']).toBe('GPU-b');
    expect(parents['GPU-c::0']).toBe('GPU-c');
  });

  it('pack fills GPU-a, then the lowest slice replica of GPU-b (issue example shape)', async () => {
    const { code, out } = await json(['--inventory', INV, '--replicas', '2', '--size', '3', '--policy', 'pack']);
    expect(code).toBe(0);
    expect(out.policy).toBe('pack');
    expect(out.policySource).toBe('request');
    expect(out.devices).toEqual(['GPU-a::0', 'GPU-a::1', 'MIG-b1::0']);
    expect(out.picks.map((p: { gpu: number }) => p.gpu)).toEqual([0, 0, 1]);
    expect(out.picks[2]).toEqual({ device: 'MIG-b1::0', gpu: 1, physical: 'GPU-b', mig: 'MIG-b1', profile: '1g.10gb', required: false });
  });

  it('distributed is the default and puts one pick on each physical GPU first', async () => {
    const { code, out } = await json(['--inventory', INV, '--replicas', '2', '--size', '4']);
    expect(code).toBe(0);
    expect(out.policySource).toBe('default');
    expect(out.devices).toEqual(['GPU-a::0', 'MIG-b1::0', 'GPU-c::0', 'GPU-a::1']);
    expect(out.picks.map((p: { physical: string }) => p.physical)).toEqual(['GPU-a', 'GPU-b', 'GPU-c', 'GPU-a']);
  });

  it('each policy on a partly taken node (GPU-a 1, GPU-b 2, GPU-c 0 in use)', async () => {
    const base = ['--inventory', INV, '--replicas', '2', '--size', '3', '--available', PARTLY_TAKEN];
    expect((await json([...base, '--policy', 'distributed'])).out.devices).toEqual(['GPU-c::0', 'GPU-a::1', 'GPU-c::1']);
    expect((await json([...base, '--policy', 'spread'])).out.devices).toEqual(['GPU-c::0', 'GPU-a::1', 'MIG-b1::1']);
    expect((await json([...base, '--policy', 'pack'])).out.devices).toEqual(['MIG-b1::1', 'MIG-b2::1', 'GPU-a::1']);
  });

  it('takes the policy from the environment, the flag and the YAML config in that precedence', async () => {
    const base = ['--inventory', INV, '--replicas', '2', '--size', '3', '--available', PARTLY_TAKEN];
    const fromEnv = await json(base, { GPUALLOC_ALLOCATION_POLICY: 'pack' });
    expect([fromEnv.out.policy, fromEnv.out.policySource]).toEqual(['pack', 'env']);
    expect(fromEnv.out.devices).toEqual(['MIG-b1::1', 'MIG-b2::1', 'GPU-a::1']);
    const fromConfig = await json([...base, '--config', 'test/fixtures/replicas-plugin-spread.yaml']);
    expect([fromConfig.out.policy, fromConfig.out.policySource]).toEqual(['spread', 'config']);
    expect(fromConfig.out.devices).toEqual(['GPU-c::0', 'GPU-a::1', 'MIG-b1::1']);
    const envOverConfig = await json([...base, '--config', 'test/fixtures/replicas-plugin-spread.yaml'], { GPUALLOC_ALLOCATION_POLICY: 'distributed' });
    expect(envOverConfig.out.policySource).toBe('env');
    const flag = await json([...base, '--allocation-policy', 'pack', '--config', 'test/fixtures/replicas-plugin-spread.yaml'], { GPUALLOC_ALLOCATION_POLICY: 'distributed' });
    expect([flag.out.policy, flag.out.policySource]).toEqual(['pack', 'flag']);
    const request = await json([...base, '--policy', 'spread', '--allocation-policy', 'pack'], { GPUALLOC_ALLOCATION_POLICY: 'distributed' });
    expect([request.out.policy, request.out.policySource]).toEqual(['spread', 'request']);
  });

  it('puts required devices first', async () => {
    const { out } = await json(['--inventory', INV, '--replicas', '2', '--size', '2', '--policy', 'pack', '--required', 'GPU-c::1']);
    expect(out.devices).toEqual(['GPU-c::1', 'GPU-c::0']);
    expect(out.picks.map((p: { required: boolean }) => p.required)).toEqual([true, false]);
  });

  it('prints a table of picks and their physical GPUs', async () => {
    const r = await cli(['replicas', '--inventory', INV, '--replicas', '2', '--size', '3', '--policy', 'pack'], NO_ENV);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('policy: pack (from --policy)');
    expect(lines).toContainEqual(expect.stringMatching(/^1\s+GPU-a::0\s+0\s+GPU-a\s+-\s+picked$/));
    expect(lines).toContainEqual(expect.stringMatching(/^3\s+MIG-b1::0\s+1\s+GPU-b\s+1g\.10gb MIG-b1\s+picked$/));
    expect(lines).toContainEqual(expect.stringMatching(/^0\s+GPU-a\s+2\s+2\/2$/));
    expect(lines).toContainEqual(expect.stringMatching(/^1\s+GPU-b\s+1\s+1\/4$/));
    expect(r.stderr).toMatch(/using inventory file/);
  });

  it('exits 1 with INSUFFICIENT_DEVICES when the request cannot be met', async () => {
    const { code, out, stderr } = await json(['--inventory', INV, '--replicas', '2', '--size', '9']);
    expect(code).toBe(1);
    expect(out.devices).toEqual([]);
    expect(out.reason.code).toBe('INSUFFICIENT_DEVICES');
    expect(stderr).toMatch(/INSUFFICIENT_DEVICES/);
  });

  it('exits 2 with errors that name where a bad value came from', async () => {
    const env = await json(['--inventory', INV, '--size', '1'], { GPUALLOC_ALLOCATION_POLICY: 'binpack' });
    expect(env.code).toBe(2);
    expect(env.out.error.code).toBe('UNKNOWN_POLICY');
    expect(env.out.error.message).toMatch(/environment variable GPUALLOC_ALLOCATION_POLICY: .*"binpack"/);
    const config = await json(['--inventory', INV, '--size', '1', '--config', 'test/fixtures/replicas-plugin-bad.yaml']);
    expect(config.out.error).toEqual({
      code: 'UNKNOWN_POLICY',
      message: expect.stringMatching(/config file test\/fixtures\/replicas-plugin-bad\.yaml:4:5: flags\.plugin\.allocationPolicy: .*"most-allocated"/),
    });
    const missing = await json(['--inventory', INV, '--size', '1', '--config', 'test/fixtures/replicas-no-such.yaml']);
    expect(missing.out.error.code).toBe('INVALID_CONFIG');
    const flag = await json(['--inventory', INV, '--size', '1', '--allocation-policy', 'best']);
    expect(flag.out.error.message).toMatch(/--allocation-policy: .*"best"/);
    const unknown = await json(['--inventory', INV, '--size', '1', '--available', 'GPU-a::0,GPU-z::0']);
    expect(unknown.code).toBe(2);
    expect(unknown.out.error.code).toBe('UNKNOWN_DEVICE_ID');
    expect(unknown.out.error.message).toMatch(/^--available \(item 2\): .*"GPU-z::0"/);
    const noSize = await json(['--inventory', INV]);
    expect([noSize.code, noSize.out.error.code]).toEqual([2, 'USAGE']);
    const zeroReplicas = await json(['--inventory', INV, '--size', '1', '--replicas', '0']);
    expect([zeroReplicas.code, zeroReplicas.out.error.code]).toEqual([2, 'USAGE']);
  });

  it('groups MIG slices of a preset by their parent GPU: distributed visits every GPU once first', async () => {
    const inventory = getPreset('dgx-a100-mig');
    const physical = new Set(expandInventory(inventory, 1).devices.map((id) => expandInventory(inventory, 1).byId.get(id)!.physical));
    const { code, out } = await json(['--preset', 'dgx-a100-mig', '--size', String(physical.size)]);
    expect(code).toBe(0);
    const landed = out.picks.map((p: { physical: string }) => p.physical);
    expect(new Set(landed)).toEqual(physical);
    for (const p of out.picks) {
      const gpu = inventory.gpus.find((g) => g.index === p.gpu)!;
      expect(p.physical).toBe(gpu.uuid);
      if (p.mig !== undefined) expect(gpu.mig!.map((m) => m.uuid)).toContain(p.mig);
    }
  });
});
