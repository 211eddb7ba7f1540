// gpualloc simulate's options: --json's shape, --seeds as a range or a list, --csv's curves, the
// default policy, and usage errors (a repeated policy or seed among them).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir, ROOT } from '../support/cli.js';

const NODES = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const PODS = join(ROOT, 'data/openb/openb_pod_list_multigpu20.csv');

describe('gpualloc simulate: options', () => {
  it('--json: one run per policy and seed, the allocation curve binned 0..130', async () => {
    const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd,bestfit', '--seeds', '44..45', '--json']);
    expect(r.code).toBe(0);
    const { runs } = JSON.parse(r.stdout);
    expect(runs.map((x: { policy: string; seed: number }) => [x.policy, x.seed])).toEqual([
      ['fgd', 44],
      ['fgd', 45],
      ['bestfit', 44],
      ['bestfit', 45],
    ]);
    for (const run of runs) {
      expect(Object.keys(run).sort()).toEqual(['allocation', 'capacityMilli', 'failed', 'pods', 'policy', 'seed']);
      expect(run.capacityMilli).toBe(6212000);
      const xs = Object.keys(run.allocation).map(Number);
      expect(Math.min(...xs)).toBe(0);
      expect(Math.max(...xs)).toBe(130);
      expect(run.allocation[50]).toBeCloseTo(50, 0);
      expect(run.allocation[130]).toBeLessThan(100);
      expect(run.failed).toBeGreaterThan(0);
    }
  });
  it('without --policy runs the default policy; --seeds takes a list; the table shows mean and spread', async () => {
    const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--seeds', '42,43']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fgd-node\s+\d+\.\d\d ± \d+\.\d\d/m);
    expect(r.stdout).toMatch(/seeds 42\.\.43 \(2\)/);
    const gap = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--seeds', '42,50']);
    expect(gap.stdout).toMatch(/seeds 42,50 \(2\)/);
  });
  it('--csv writes allocation and fragmentation per arrived percent', async () => {
    await inTempDir('gpualloc-csv-', async (dir) => {
      const file = join(dir, 'curves.csv');
      const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd', '--seeds', '42', '--csv', file]);
      expect(r.code).toBe(0);
      const [head, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
      expect(head).toBe('policy,seed,arrived,allocation,fragmentation');
      expect(rows).toHaveLength(131);
      const at = (x: number) => rows[x].split(',').map((v, i) => (i === 0 ? v : Number(v)));
      expect(at(0).slice(0, 3)).toEqual(['fgd', 42, 0]);
      expect(at(0)[3] as number).toBeLessThan(0.5); // rows below 0.5 % arrived
      // Fragmentation falls as the cluster fills: idle GPUs count as fragments of CPU-only typical pods.
      expect(at(120)[4] as number).toBeLessThan(at(10)[4] as number);
    });
  });
  it('usage errors: --events with several seeds, an unknown policy, a bad seed range', async () => {
    expect((await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--seeds', '1..2', '--events', 'x.jsonl'])).code).toBe(2);
    const bad = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd,nope']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--policy: .*got "nope"/)]);
    expect((await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--seeds', '9..3'])).code).toBe(2);
    // A repeated policy or seed would count one run twice in the mean and sd.
    const twice = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd,bestfit,fgd']);
    expect([twice.code, twice.stderr]).toEqual([2, 'gpualloc: --policy: "fgd" is given twice in "fgd,bestfit,fgd"\n']);
    const seed = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--seeds', '42,43,42']);
    expect([seed.code, seed.stderr]).toEqual([2, 'gpualloc: --seeds: 42 is given twice in "42,43,42"\n']);
  });
});
