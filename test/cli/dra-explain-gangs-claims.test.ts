// `gpualloc dra schedule --explain` beyond single pods: a gang's pods each get their terms beside
// first-fit's on the node the gang search gave them, and the gang a line of its own (what it
// placed, on how many nodes the scored choice beats first-fit, or why it was not placed); a
// pending claim without a pod gets the same two lines as a pod (claims one absent pod owns, once,
// named together), or why it was not placed. In text and in JSON. The dump is the sample cluster
// plus two more H100 DynamicMIG nodes like its first, a PodGroup of two pods asking a 20 GB MIG
// slice each (first in the queue), a gang that cannot start, and claims without a pod.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT } from '../support/cli.js';

const DUMP = 'data/samples/dra/cluster.json';
const NS = 'ml';
const MIG_20G = {
  devices: {
    requests: [
      {
        name: 'mig',
        exactly: {
          deviceClassName: 'mig.nvidia.com',
          allocationMode: 'ExactCount',
          count: 1,
          selectors: [{ cel: { expression: "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0" } }],
        },
      },
    ],
  },
};
const TOLERATE = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];

const pod = (name: string, group: string, second: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  // Before the sample's pods in the queue (they were made at 10:00).
  metadata: { name, namespace: NS, creationTimestamp: `2026-11-02T09:00:${String(second).padStart(2, '0')}Z` },
  spec: {
    schedulingGroup: { podGroupName: group },
    containers: [{ name: 'main', image: 'x', resources: { requests: { cpu: '1' }, claims: [{ name: 'mig' }] } }],
    resourceClaims: [{ name: 'mig', resourceClaimTemplateName: 'one-mig-20gb' }],
    tolerations: TOLERATE,
  },
});
const gang = (name: string, minCount: number) => ({
  apiVersion: 'scheduling.k8s.io/v1alpha2',
  kind: 'PodGroup',
  metadata: { name, namespace: NS },
  spec: { schedulingPolicy: { gang: { minCount } } },
});
const claim = (name: string, spec: unknown, owner?: string) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: NS, ...(owner !== undefined ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner, uid: `uid-${owner}`, controller: true }] } : {}) },
  spec,
});
// The sample's MIG node and its slices, again as h100-mig-2 and h100-mig-3.
const sample = JSON.parse(readFileSync(join(ROOT, DUMP), 'utf8')) as { items: Array<{ kind: string; metadata: { name: string } }> };
const MIG_NODE = sample.items.filter((o) => (o.kind === 'Node' || o.kind === 'ResourceSlice') && o.metadata.name.startsWith('h100-mig-1'));
const MIG_NODES = ['h100-mig-1', 'h100-mig-2', 'h100-mig-3'];
const EXTRA = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    ...MIG_NODES.slice(1).flatMap((name) => JSON.parse(JSON.stringify(MIG_NODE).replaceAll('h100-mig-1', name)) as unknown[]),
    gang('pair', 2),
    pod('pair-0', 'pair', 1),
    pod('pair-1', 'pair', 2),
    gang('waiting', 3),
    pod('waiting-0', 'waiting', 3),
    claim('solo-20g', MIG_20G),
    // Two claims of one pod that is not in the dump: placed together.
    claim('gone-a', MIG_20G, 'gone'),
    claim('gone-b', MIG_20G, 'gone'),
    claim('too-big', { devices: { requests: [{ name: 'gpus', exactly: { deviceClassName: 'gpu.nvidia.com', allocationMode: 'ExactCount', count: 16 } }] } }),
  ],
});

interface Explain {
  chosen: { fragmentation: number };
  firstFit: { devices: string[][]; objective: { fragmentation: number } };
  comparison: number;
}
interface Out {
  pods: Array<{ pod: string; node: string | null; group?: string; explain?: Explain; reason?: { message: string } }>;
  claims: Array<{ claim: string; node?: string; allocation?: { devices: { results: Array<{ device: string }> } }; explain?: Explain; reason?: { message: string } }>;
  groups: Array<{ group: string; placed: number; explain?: { better: number; asGood: number }; reason?: { message: string } }>;
}

const run = (extra: string[]) => cli(['dra', 'schedule', '--dump', DUMP, '--dump', '-', '--explain', ...extra], {}, EXTRA);

describe('gpualloc dra schedule --explain for gangs and claims without a pod', () => {
  it('explains each pod of a placed gang, the gang, and each pending claim without a pod, in JSON', async () => {
    const r = await run(['--json']);
    expect(r.code).toBe(1); // the waiting gang, too-big and legacy-2gpu are not placed
    const out = JSON.parse(r.stdout) as Out;
    const members = out.pods.filter((p) => p.group === 'ml/pair');
    expect(members.map((p) => p.pod)).toEqual(['ml/pair-0', 'ml/pair-1']);
    for (const p of members) {
      expect(MIG_NODES, p.pod).toContain(p.node);
      expect(p.explain, p.pod).toBeDefined();
      expect(p.explain!.comparison).toBeLessThanOrEqual(0);
      for (const id of p.explain!.firstFit.devices.flat()) expect(id.split('/')[1]).toBe(p.node);
    }
    const pair = out.groups.find((g) => g.group === 'ml/pair')!;
    expect(pair.placed).toBe(2);
    const better = members.filter((p) => p.explain!.comparison < 0).length;
    expect(pair.explain).toEqual({ better, asGood: 2 - better });
    const waiting = out.groups.find((g) => g.group === 'ml/waiting')!;
    expect(waiting.explain).toBeUndefined();
    expect(waiting.reason!.message).toContain('minCount');
    expect(out.pods.find((p) => p.pod === 'ml/waiting-0')!.explain).toBeUndefined();

    const byName = new Map(out.claims.map((c) => [c.claim, c]));
    const solo = byName.get('ml/solo-20g')!;
    expect(MIG_NODES).toContain(solo.node);
    expect(solo.explain!.comparison).toBeLessThanOrEqual(0);
    // The scored choice's terms are those of the allocation it made: as good as first-fit's means the same fragmentation.
    if (solo.explain!.comparison === 0) expect(solo.explain!.chosen).toEqual(solo.explain!.firstFit.objective);
    else expect(solo.explain!.chosen.fragmentation).toBeLessThanOrEqual(solo.explain!.firstFit.objective.fragmentation);
    // The two claims of the absent pod were placed together: one explanation of both, first-fit's devices per claim.
    const [a, b] = [byName.get('ml/gone-a')!, byName.get('ml/gone-b')!];
    expect(a.node).toBe(b.node);
    expect(a.explain).toEqual(b.explain);
    expect(a.explain!.firstFit.devices).toHaveLength(2);
    const tooBig = byName.get('ml/too-big')!;
    expect(tooBig.explain).toBeUndefined();
    expect(tooBig.reason!.message).toContain('no node can take claim ml/too-big');
  });

  it('prints the same in text: two lines per placed pod and claim, a line per gang, and why not', async () => {
    const r = await run([]);
    expect(r.stdout).toMatch(/^ml\/pair-0 on h100-mig-\d: scored {3}topology \d+, /m);
    expect(r.stdout).toMatch(/^ml\/pair-1 on h100-mig-\d: scored {3}topology \d+, /m);
    expect(r.stdout).toMatch(/^gang ml\/pair: 2 of 2 pending pod\(s\) placed; scored better than first-fit for \d pod\(s\) on their nodes, as good for \d$/m);
    expect(r.stdout).toMatch(/^gang ml\/waiting: not placed: PodGroup ml\/waiting \(gang, minCount 3\): 1 pod\(s\) exist/m);
    expect(r.stdout).toMatch(/^ml\/waiting-0: not placed: /m);
    expect(r.stdout).toMatch(/^claim ml\/solo-20g on h100-mig-\d: scored {3}topology \d+, /m);
    // The first-fit line's terms line up under the scored one's, and it names first-fit's devices.
    const lines = r.stdout.split('\n');
    const solo = lines.findIndex((l) => l.startsWith('claim ml/solo-20g on'));
    expect(lines[solo + 1]).toMatch(/^ +first-fit topology \d+, .*: gpu-\d-mig-\w+-\d+-\d$/);
    expect(lines[solo + 1]!.indexOf('topology')).toBe(lines[solo]!.indexOf('topology'));
    expect(lines.filter((l) => l.startsWith('claim ml/gone-a, ml/gone-b on '))).toHaveLength(1);
    expect(r.stdout).toMatch(/^claim ml\/too-big: not placed: no node can take claim ml\/too-big/m);
  });
});
