// gpualloc simulate --scale K: the trace K times over (nodes and pods), named in the title; the run
// time per policy after the table; a malformed factor is a usage error naming the flag.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT } from '../support/cli.js';

const NODES = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const PODS = join(ROOT, 'data/openb/openb_pod_list_multigpu20.csv');

describe('gpualloc simulate --scale', () => {
  it('×2: twice the nodes and GPU capacity, about twice the pod attempts; --scale 1 is the trace itself', async () => {
    const args = ['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'bestfit', '--seeds', '42', '--json'];
    const [one, plain, two] = await Promise.all([cli([...args, '--scale', '1']), cli(args), cli([...args, '--scale', '2'])]);
    expect([one.code, plain.code, two.code]).toEqual([0, 0, 0]);
    const [r1, r0, r2] = [one, plain, two].map((r) => JSON.parse(r.stdout).runs[0]);
    expect(r1).toEqual(r0);
    expect(r2.capacityMilli).toBe(2 * r1.capacityMilli);
    expect(r2.pods / r1.pods).toBeGreaterThan(1.9);
    expect(r2.pods / r1.pods).toBeLessThan(2.1);
  });

  it('the title names the scale; the run time per policy follows the table', async () => {
    const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'bestfit,packing', '--seeds', '42', '--scale', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/, 2426 nodes, \d+ pods \(the trace ×2\)\n/);
    expect(r.stdout).toMatch(/\nRun time per policy and seed \(wasm\): bestfit \d+\.\d\d s \(\d+\.\d µs per pod attempt\), packing \d+\.\d\d s \(\d+\.\d µs per pod attempt\)\n$/);
  });

  it('a factor that is not an integer 1..1000 is a usage error naming --scale', async () => {
    for (const bad of ['0', '1.5', 'x', '1001']) {
      const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--scale', bad]);
      expect([r.code, r.stderr]).toEqual([2, `gpualloc: --scale: expected an integer 1..1000, got ${JSON.stringify(bad)}\n`]);
    }
  });
});
