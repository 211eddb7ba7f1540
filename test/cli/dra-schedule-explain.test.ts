// `gpualloc dra schedule --explain`: per placed pod, the objective's terms of the scored
// allocation beside first-fit's on the same node (as `dra allocate --explain` has them), in text
// and as each pod's "explain" in JSON; nothing for a pod not placed; refused in first-fit mode.
// `--workload pending`: the input's pending claims weigh the fragmentation term (looking ahead).
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const DUMP = 'data/samples/dra/cluster.json';

interface Terms {
  topology: number;
  fragmentation: number;
  parents: number;
  consumption: number;
}
interface Pod {
  pod: string;
  node: string | null;
  claims: Array<{ allocation: { devices: { results: Array<{ pool: string; device: string }> } } | null }>;
  explain?: { chosen: Terms; firstFit: { devices: string[][]; objective: Terms }; comparison: number };
}

describe('gpualloc dra schedule --explain', () => {
  it('gives each placed pod its terms beside first-fit on the node it took, never worse by the objective', async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP, '--explain', '--json']);
    expect(r.code).toBe(1); // one pod of the sample cannot be placed
    const pods = (JSON.parse(r.stdout) as { pods: Pod[] }).pods;
    const placed = pods.filter((p) => p.node !== null);
    expect(placed.length).toBeGreaterThan(3);
    for (const p of placed) {
      expect(p.explain, p.pod).toBeDefined();
      expect(p.explain!.comparison, p.pod).toBeLessThanOrEqual(0);
      // first-fit's devices are on the pod's own node (the samples' pools are named after nodes).
      for (const id of p.explain!.firstFit.devices.flat()) expect(id.split('/')[1], p.pod).toBe(p.node);
      if (p.explain!.comparison === 0) expect(p.explain!.chosen).toEqual(p.explain!.firstFit.objective);
    }
    for (const p of pods.filter((q) => q.node === null)) expect(p.explain).toBeUndefined();
    // The sample's infer-20g: the scored search beats first-fit's slice with another one.
    const infer = placed.find((p) => p.pod === 'ml/infer-20g')!;
    expect(infer.explain!.comparison).toBe(-1);
    expect(infer.claims[0]!.allocation!.devices.results[0]!.device).not.toBe(infer.explain!.firstFit.devices.flat()[0]!.split('/')[2]);
  });

  it('prints two lines per placed pod in text, and no explain without the flag', async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP, '--explain']);
    expect(r.stdout).toMatch(/^ml\/trainer on dgx-h100-1: scored {3}topology \d+, .*consumption \d+$/m);
    expect(r.stdout).toMatch(/^ +first-fit topology .*: gpu-0, gpu-1, gpu-2, gpu-3$/m);
    expect(r.stdout).not.toContain('ml/legacy-2gpu on');
    const plain = await cli(['dra', 'schedule', '--dump', DUMP, '--json']);
    expect((JSON.parse(plain.stdout) as { pods: Pod[] }).pods.every((p) => p.explain === undefined)).toBe(true);
  });

  it('is refused in first-fit mode', async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP, '--explain', '--mode', 'first-fit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--explain is for the scored mode');
  });
});

describe('gpualloc dra --workload pending', () => {
  const SAMPLE = 'data/samples/dra/h100-dynamic-mig.json';
  const terms = (text: string): number[] => [...text.matchAll(/fragmentation (-?[\d.]+)‰/g)].map((m) => Number(m[1]));

  it("weighs fragmentation by the input's pending claims, looking ahead: the 1g slice's terms change, and its slice keeps the 4g and the 2g", async () => {
    const args = ['dra', 'allocate', '--dump', SAMPLE, '--node', 'h100-mig-1', '--claim', 'ml/infer-1g', '--explain'];
    const plain = await cli(args);
    const pending = await cli([...args, '--workload', 'pending']);
    expect(plain.code).toBe(0);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(/gpu-1-mig-1g10gb-19-6/);
    const [chosen, firstFit] = terms(pending.stdout);
    // The pending 4g and 2g still fit beside the slice taken (expected stranding goes down), not beside first-fit's slice 0.
    expect(chosen).toBeLessThan(0);
    expect(firstFit).toBeGreaterThan(chosen!);
    expect(terms(plain.stdout)[0]).not.toBe(chosen);
    const all = await cli(['dra', 'schedule', '--dump', SAMPLE, '--workload', 'pending']);
    for (const d of ['gpu-1-mig-1g10gb-19-6', 'gpu-1-mig-4g40gb-5-0', 'gpu-1-mig-2g20gb-14-4']) expect(all.stdout).toContain(d);
  });

  it('takes only pending, and only in the scored mode', async () => {
    const bad = await cli(['dra', 'schedule', '--dump', SAMPLE, '--workload', 'all']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--workload: expected pending, got "all"/);
    const firstFit = await cli(['dra', 'schedule', '--dump', SAMPLE, '--mode', 'first-fit', '--workload', 'pending']);
    expect(firstFit.code).toBe(2);
    expect(firstFit.stderr).toMatch(/--workload is for the scored mode/);
  });
});
