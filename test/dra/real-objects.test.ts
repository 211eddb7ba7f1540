// The "real objects" suite: DRA objects as their publishers write them (test/fixtures/dra-real, each
// file citing its source), read in every served version and scheduled as kube-scheduler would.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClusterDump, readDocuments, validateClaimSpec, validateClassSpec, validateSliceSpec } from '../../src/dra/index.js';
import { cli, ROOT } from '../support/cli.js';

const DIR = 'test/fixtures/dra-real';
const file = (name: string): string => `${DIR}/${name}`;
const read = async (name: string) => readClusterDump(await readDocuments(readFileSync(join(ROOT, DIR, name), 'utf8'), name), name);

type Out = {
  pods: Array<{
    pod: string;
    node: string | null;
    claims: Array<{ claim: string; allocation: { devices: { results: Array<{ request: string; device: string; pool: string }> } } | null }>;
    reason?: { code: string; message: string };
  }>;
  claims: Array<{ claim: string; node?: string; reason?: { code: string; message: string } }>;
};
async function schedule(files: string[], extra: string[] = [], stdin?: string): Promise<{ code: number; out: Out; stderr: string }> {
  const r = await cli(['dra', 'schedule', ...files.flatMap((f) => ['--dump', f]), '--json', ...extra], {}, stdin);
  let out: Out;
  try {
    out = JSON.parse(r.stdout) as Out;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 600)}`);
  }
  return { code: r.code, out, stderr: r.stderr };
}
const devices = (o: Out['pods'][number]): string[] => o.claims.flatMap((c) => c.allocation?.devices.results.map((r) => r.device) ?? []);

describe("every published object reads and passes the API server's validation", () => {
  for (const name of readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith('.yaml'))) {
    it(name, async () => {
      const dump = await read(name);
      expect(dump.classes.length + dump.slices.length + dump.claims.length + dump.templates.length + dump.pods.length + dump.nodes.length + dump.taintRules.length).toBeGreaterThan(0);
      for (const s of dump.slices) expect(validateSliceSpec((s as { spec: unknown }).spec)).toEqual([]);
      for (const c of dump.classes) expect(validateClassSpec((c as { spec: unknown }).spec)).toEqual([]);
      for (const c of dump.claims) expect(validateClaimSpec((c as { spec: unknown }).spec)).toEqual([]);
      expect(dump.invalid.size).toBe(0);
      expect(dump.warnings).toEqual([]);
    });
  }

  it('v1beta1 templates of the NVIDIA demos become v1 claims with `exactly`, and the Namespace is skipped', async () => {
    const dump = await read('nvidia-demo-gpu-test-count.yaml');
    expect(dump.templates[0].claimSpec).toEqual({ devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count: 2 } }] } });
    expect(dump.skipped).toEqual({ Namespace: 1 });
    expect(dump.pods.map((p) => p.label)).toEqual(['gpu-test1/gpu-pod']);
  });

  it('the DynamicMIG slices: counters first, devices named as the plugin names them', async () => {
    const dump = await read('nvidia-h100-dynamic-mig.yaml');
    const specs = dump.slices.map((s) => (s as { spec: { sharedCounters?: unknown[]; devices?: Array<{ name: string }> } }).spec);
    expect(specs[0].sharedCounters).toHaveLength(2);
    expect(specs[1].devices?.map((d) => d.name)).toContain('gpu-0-mig-1g10gb-19-6');
    expect(specs[1].devices?.map((d) => d.name)).toContain('gpu-0-mig-7g80gb-0-0');
  });
});

describe('scheduled as kube-scheduler schedules them', () => {
  it("NVIDIA's gpu-test-count (v1beta1 template, 2 GPUs) on two DGX H100s: one claim made for the pod, two GPUs of one node", async () => {
    const r = await schedule([file('nvidia-deviceclasses.yaml'), file('nvidia-dgx-h100.yaml'), file('nvidia-demo-gpu-test-count.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('skipped 1 object of kinds the scheduler does not use (Namespace 1)');
    expect(r.out.pods).toHaveLength(1);
    const pod = r.out.pods[0];
    expect(pod.node).toBe('dgx-h100-0');
    expect(pod.claims.map((c) => c.claim)).toEqual(['gpu-test1/gpu-pod-twogpus']);
    expect(devices(pod)).toEqual(['gpu-0', 'gpu-1']);
  });

  it("NVIDIA's gpu-test7: the pod's two claims land together on one node, on distinct GPUs", async () => {
    const r = await schedule([file('nvidia-deviceclasses.yaml'), file('nvidia-dgx-h100.yaml'), file('nvidia-demo-gpu-test7.yaml')]);
    expect(r.code).toBe(0);
    const pod = r.out.pods[0];
    expect(pod.claims).toHaveLength(2);
    const pools = new Set(pod.claims.flatMap((c) => c.allocation!.devices.results.map((x) => x.pool)));
    expect(pools).toEqual(new Set([pod.node]));
    expect(new Set(devices(pod)).size).toBe(2);
  });

  it("the documentation's v1beta2 MIG template (memory above 10Gi) on static MIG takes the 3g.20gb (the 2g.10gb has 9984Mi)", async () => {
    const r = await schedule([file('nvidia-deviceclasses.yaml'), file('nvidia-a100-static-mig.yaml'), file('nvidia-docs-mig-v1beta2.yaml')]);
    expect(r.code).toBe(0);
    expect(devices(r.out.pods[0])).toEqual(['gpu-1-mig-3g20gb-9-4']);
  });

  it('DynamicMIG: MIG partitions and the whole GPU exclude each other through the counters', async () => {
    const stream = [
      readFileSync(join(ROOT, DIR, 'nvidia-deviceclasses.yaml'), 'utf8'),
      readFileSync(join(ROOT, DIR, 'nvidia-h100-dynamic-mig.yaml'), 'utf8'),
      ...['a', 'b', 'c'].map(
        (n, i) => `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ${n}, namespace: ml}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: ${i === 2 ? 'gpu.nvidia.com' : 'mig.nvidia.com'}
        ${i === 2 ? 'count: 2' : `selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '7g.80gb'"}}]`}
`,
      ),
    ].join('\n---\n');
    const r = await schedule(['-'], [], stream);
    const byClaim = new Map(r.out.claims.map((c) => [c.claim, c]));
    // Both GPUs taken whole as 7g.80gb partitions: no whole GPU is left for claim c.
    expect(byClaim.get('ml/a')?.node).toBe('h100-dynmig-0');
    expect(byClaim.get('ml/b')?.node).toBe('h100-dynmig-0');
    expect(byClaim.get('ml/c')?.reason?.code).toBe('UNSCHEDULABLE');
    expect(r.code).toBe(1);
  });

  it('scheduler_perf: five template pods and an extended-resource pod all placed; Node capacity serves as allocatable', async () => {
    const r = await schedule([file('scheduler-perf.yaml')]);
    expect(r.code).toBe(0);
    expect(r.out.pods.map((p) => p.pod)).toEqual(['default/test-dra-0', 'default/test-dra-1', 'default/test-dra-2', 'default/test-dra-3', 'default/test-dra-4', 'default/test-dra-extended-0']);
    expect(r.out.pods.every((p) => p.node !== null)).toBe(true);
    const extended = r.out.pods[5];
    expect(extended.claims.map((c) => c.claim)).toEqual(['default/test-dra-extended-0-extended-resources']);
    // Ten devices per node: six pods fit, every device distinct.
    const used = r.out.pods.flatMap((p) => p.claims.flatMap((c) => c.allocation!.devices.results.map((x) => `${x.pool}/${x.device}`)));
    expect(new Set(used).size).toBe(6);
  });

  it("scheduler_perf's DeviceTaintRule (v1alpha3, empty selector) taints every device: kubectl describe's message for every pod", async () => {
    const r = await schedule([file('scheduler-perf.yaml'), file('scheduler-perf-devicetaintrule.yaml')]);
    expect(r.code).toBe(1);
    for (const p of r.out.pods) {
      expect(p.node).toBeNull();
      expect(p.reason).toEqual({ code: 'UNSCHEDULABLE', message: '0/3 nodes are available: 3 cannot allocate all claims.' });
    }
  });

  it("Intel's template pod lands on the node of its slice; AMD's two-partition claim finds no partition on an unpartitioned MI300X", async () => {
    const intel = await schedule([file('intel-gpu.yaml')]);
    expect(intel.code).toBe(0);
    expect(intel.out.pods[0].node).toBe('rpl-s');
    expect(['0000-00-02-0-0x7d67', '0000-04-00-0-0xe211']).toContain(devices(intel.out.pods[0])[0]);
    const amd = await schedule([file('amd-mi300x.yaml')]);
    expect(amd.code).toBe(1);
    expect(amd.out.pods[0]).toMatchObject({
      pod: 'gpu-test/pod-two-partitions-same-parent',
      node: null,
      reason: { code: 'UNSCHEDULABLE', message: '0/1 nodes are available: 1 cannot allocate all claims.' },
    });
  });

  it('a node taint the pod does not tolerate is named as kubectl describe names it; the NVIDIA demo pod tolerates nvidia.com/gpu', async () => {
    const tainted = readFileSync(join(ROOT, DIR, 'nvidia-dgx-h100.yaml'), 'utf8').replace(
      /podCIDR: 10.244.1.0\/24/g,
      'podCIDR: 10.244.1.0/24\n    taints:\n    - key: nvidia.com/gpu\n      effect: NoSchedule',
    );
    const classes = readFileSync(join(ROOT, DIR, 'nvidia-deviceclasses.yaml'), 'utf8');
    const demo = readFileSync(join(ROOT, DIR, 'nvidia-demo-gpu-test-count.yaml'), 'utf8');
    const tolerated = await schedule(['-'], [], [classes, tainted, demo].join('\n---\n'));
    expect(tolerated.out.pods[0].node).toBe('dgx-h100-0');
    const untolerated = await schedule(['-'], [], [classes, tainted, demo.replace(/ {2}tolerations:[\s\S]*$/, '')].join('\n---\n'));
    expect(untolerated.out.pods[0].reason?.message).toBe('0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: }.');
  });
});
