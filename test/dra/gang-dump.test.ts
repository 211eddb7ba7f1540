// Gangs from a dump: PodGroups (scheduling.k8s.io/v1alpha2, Kubernetes 1.36) and the pods that name
// them in spec.schedulingGroup.podGroupName, placed all or nothing by schedulePods through the
// cluster's scheduleGroup; every pod of a gang that cannot be placed reported with the reason and
// nothing of it kept; the topology constraint (spec.schedulingConstraints.topology[0].key) keeps
// the gang in one domain; the pods' own filters hold, counting the gang's pods placed so far; bad
// PodGroups are errors at the file, line and column. The objects follow upstream's own: the PodGroup
// of pkg/registry/scheduling/podgroup/strategy_test.go ("foo" in "default", gang minCount 5), the
// Pod of kubernetes.io's "Scheduling Group" page (worker-0 in some-ns, podGroupName training-worker-0),
// the PodGroup API page's `gang: { minCount: 4 }`, and TopologyConstraint's example key
// "topology.kubernetes.io/rack" (staging/src/k8s.io/api/scheduling/v1alpha2/types.go).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { claimsOfDump, createDraCluster, type PodSchedule, readClusterDump, readDocuments, schedulePods } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { cli } from '../support/cli.js';
import { CLASSES, GPU, V1 } from '../support/dra-clusters.js';

type Obj = Record<string, unknown>;
const RACK = 'topology.kubernetes.io/rack';

const nodeOf = (name: string, labels: Record<string, string> = {}, cpu = '64'): Obj => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  status: { allocatable: { cpu, memory: '512Gi', pods: '110' } },
});
const gpus = (node: string, n = 8): Obj => ({
  apiVersion: V1,
  kind: 'ResourceSlice',
  metadata: { name: `${node}-gpus` },
  spec: {
    driver: GPU,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices: Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' } } })),
  },
});
const template = (namespace: string, count = 8): Obj => ({
  apiVersion: V1,
  kind: 'ResourceClaimTemplate',
  metadata: { name: 'gpus', namespace },
  spec: { spec: { devices: { requests: [{ name: 'gpus', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count } }] } } },
});
/** A pod with a claim from the "gpus" template; in the group when `group` is given. */
const podOf = (name: string, namespace: string, group?: string, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    ...(group !== undefined ? { schedulingGroup: { podGroupName: group } } : {}),
    containers: [{ name: 'ml-worker', image: 'training:v1', resources: { requests: { cpu: '1' } } }],
    resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'gpus' }],
    ...extra,
  },
});
/** A PodGroup: gang with minCount, or basic; a topology key when given. */
const groupOf = (name: string, namespace: string, minCount: number | 'basic', key?: string): Obj => ({
  apiVersion: 'scheduling.k8s.io/v1alpha2',
  kind: 'PodGroup',
  metadata: { name, namespace },
  spec: {
    schedulingPolicy: minCount === 'basic' ? { basic: {} } : { gang: { minCount } },
    ...(key !== undefined ? { schedulingConstraints: { topology: [{ key }] } } : {}),
  },
});

async function dumpOf(objects: Obj[]) {
  return readClusterDump(await readDocuments(stringify({ apiVersion: 'v1', kind: 'List', items: [...CLASSES, ...objects] }), 'dump.yaml'), 'dump.yaml');
}

async function run(objects: Obj[]): Promise<{ out: PodSchedule; allocated: number; warnings: string[] }> {
  const dump = await dumpOf(objects);
  const { claims, held } = claimsOfDump(dump.claims);
  const cluster = createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held });
  const out = schedulePods({
    pods: dump.pods,
    nodes: dump.nodeInfos,
    claims,
    templates: dump.templates,
    podGroups: dump.podGroups,
    extendedResources: new Map(),
    placer: cluster,
    order: 'scheduler',
  });
  return { out, allocated: cluster.allocated().claims.length, warnings: dump.warnings };
}

async function errorOf(fn: () => Promise<unknown>): Promise<AllocationError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AllocationError);
    return error as AllocationError;
  }
  throw new Error('expected an AllocationError');
}

const fiveFoo = Array.from({ length: 5 }, (_, i) => podOf(`foo-${i}`, 'default', 'foo'));
const cluster = (n: number, labels: (k: number) => Record<string, string> = () => ({})): Obj[] => Array.from({ length: n }, (_, k) => [nodeOf(`n${k}`, labels(k)), gpus(`n${k}`)]).flat();

describe('gangs from a dump', () => {
  it('places a gang PodGroup all together, each pod with its group', async () => {
    const { out, allocated } = await run([...cluster(5), template('default'), groupOf('foo', 'default', 5), ...fiveFoo]);
    expect(out.pods.map((p) => [p.pod, p.group, p.reason])).toEqual(fiveFoo.map((_, i) => [`default/foo-${i}`, 'default/foo', undefined]));
    expect(new Set(out.pods.map((p) => p.node)).size).toBe(5);
    expect(allocated).toBe(5);
    expect(out.groups).toEqual([{ group: 'default/foo', policy: 'gang', minCount: 5, pods: fiveFoo.map((_, i) => `default/foo-${i}`), bound: 0, placed: 5 }]);
  });

  it('a gang that cannot be placed: each pod reported with the reason, nothing kept, the next pod placed', async () => {
    // Four 8-GPU nodes, five 8-GPU pods with minCount 5 (upstream's fixture): none placed.
    const later = podOf('after', 'default', undefined, {});
    (later.metadata as Obj).creationTimestamp = '2026-01-02T00:00:00Z';
    const { out, allocated } = await run([...cluster(4), template('default'), groupOf('foo', 'default', 5), ...fiveFoo, later]);
    const gang = out.pods.filter((p) => p.group === 'default/foo');
    expect(gang).toHaveLength(5);
    for (const p of gang) {
      expect(p.node).toBeNull();
      expect(p.reason?.code).toBe('UNSCHEDULABLE');
      expect(p.reason?.message).toMatch(/^PodGroup default\/foo \(gang, minCount 5\): the gang is larger than the cluster: 5 pod\(s\) need at least 40 device\(s\) of one request shape, 32 free/);
      expect(p.claims.every((c) => c.allocation === null)).toBe(true);
    }
    expect(out.groups[0]).toMatchObject({ placed: 0, reason: { code: 'UNSCHEDULABLE' } });
    // The gang held nothing: the pod after it gets a node.
    expect(out.pods.find((p) => p.pod === 'default/after')?.node).toBe('n0');
    expect(allocated).toBe(1);
  });

  it('minCount below the pod count: as many as fit, the rest reported', async () => {
    const { out } = await run([...cluster(4), template('default'), groupOf('foo', 'default', 4), ...fiveFoo]);
    expect(out.pods.filter((p) => p.node !== null && p.reason === undefined)).toHaveLength(4);
    const left = out.pods.find((p) => p.node === null);
    expect(left?.reason?.message).toMatch(/4 pod\(s\) placed, at least 4 needed; no room for this one/);
    expect(out.groups[0]).toMatchObject({ placed: 4, minCount: 4 });
  });

  it('the topology constraint keeps the gang in one domain of the label; too small a domain is refused without search', async () => {
    const racks = (k: number) => ({ [RACK]: k < 3 ? 'r1' : 'r2' });
    const three = [0, 1, 2].map((i) => podOf(`w-${i}`, 'some-ns', 'training-worker-0'));
    const { out } = await run([...cluster(6, racks), template('some-ns'), groupOf('training-worker-0', 'some-ns', 3, RACK), ...three]);
    const nodes = out.pods.map((p) => p.node);
    expect(nodes.every((n) => n !== null)).toBe(true);
    expect(new Set(nodes.map((n) => (Number(n!.slice(1)) < 3 ? 'r1' : 'r2'))).size).toBe(1);
    expect(out.groups[0].topologyKey).toBe(RACK);
    // Four pods: the cluster has room, no rack does.
    const four = [0, 1, 2, 3].map((i) => podOf(`w-${i}`, 'some-ns', 'training-worker-0'));
    const r = await run([...cluster(6, racks), template('some-ns'), groupOf('training-worker-0', 'some-ns', 4, RACK), ...four]);
    expect(r.out.pods.every((p) => p.node === null)).toBe(true);
    expect(r.out.pods[0].reason?.message).toMatch(
      /^PodGroup some-ns\/training-worker-0 \(gang, minCount 4, topology topology.kubernetes.io\/rack\): no placement of 4 of 4 pod\(s\) in any of 2 domain\(s\) .*refused without search/,
    );
    expect(r.allocated).toBe(0);
    // A key no node has: the reason names it.
    const none = await run([...cluster(2), template('some-ns'), groupOf('training-worker-0', 'some-ns', 1, 'nope'), three[0]]);
    expect(none.out.pods[0].reason?.message).toBe('PodGroup some-ns/training-worker-0 (gang, minCount 1, topology nope): no node has the label "nope" (topology.required)');
  });

  it("the pods' filters hold, counting the gang's own pods: CPU, node selector", async () => {
    // Two 16-GPU nodes with 8 CPUs: two 4-GPU pods asking 6 CPUs each cannot share a node.
    const nodes = [nodeOf('a', { pool: 'x' }, '8'), gpus('a', 16), nodeOf('b', { pool: 'x' }, '8'), gpus('b', 16), nodeOf('c', {}, '64'), gpus('c', 16)];
    const cpu = { containers: [{ name: 'm', image: 'i', resources: { requests: { cpu: '6' } } }], nodeSelector: { pool: 'x' } };
    const pods = [podOf('p0', 'default', 'g', cpu), podOf('p1', 'default', 'g', cpu)];
    const { out } = await run([...nodes, template('default', 4), groupOf('g', 'default', 2), ...pods]);
    expect(out.pods.map((p) => p.node).sort()).toEqual(['a', 'b']);
    // Three such pods: two nodes pass the selector and each holds one: refused.
    const r = await run([...nodes, template('default', 4), groupOf('g', 'default', 3), ...pods, podOf('p2', 'default', 'g', cpu)]);
    expect(r.out.pods.every((p) => p.node === null)).toBe(true);
    expect(r.allocated).toBe(0);
  });

  it('a missing PodGroup, too few pods, a basic group, a pod of 1.35', async () => {
    // Upstream keeps a pod pending until its PodGroup exists.
    const worker = podOf('worker-0', 'some-ns', 'training-worker-0');
    const missing = await run([...cluster(1), template('some-ns'), worker]);
    expect(missing.out.pods[0].reason).toEqual({ code: 'UNSCHEDULABLE', message: 'podgroup.scheduling.k8s.io "training-worker-0" not found' });
    expect(missing.out.groups[0]).toMatchObject({ group: 'some-ns/training-worker-0', policy: 'missing' });
    // minCount 4 (the PodGroup API page's) with 2 pods: held until 4 exist.
    const few = await run([...cluster(4), template('some-ns'), groupOf('training-worker-0', 'some-ns', 4), worker, podOf('worker-1', 'some-ns', 'training-worker-0')]);
    expect(few.out.pods.map((p) => p.reason?.message)).toEqual([
      'PodGroup some-ns/training-worker-0 (gang, minCount 4): 2 pod(s) exist; kube-scheduler holds the gang until minCount do',
      'PodGroup some-ns/training-worker-0 (gang, minCount 4): 2 pod(s) exist; kube-scheduler holds the gang until minCount do',
    ]);
    // A basic group: each pod on its own, the group named.
    const basic = await run([...cluster(1), template('some-ns'), groupOf('training-worker-0', 'some-ns', 'basic'), worker]);
    expect(basic.out.pods[0]).toMatchObject({ node: 'n0', group: 'some-ns/training-worker-0' });
    // spec.workloadRef (1.35) is not read by 1.36: warned, the pod scheduled alone.
    const old = await run([...cluster(1), template('default'), podOf('old', 'default', undefined, { workloadRef: { name: 'w', podGroup: 'pg' } })]);
    expect(old.warnings).toEqual([expect.stringMatching(/Pod\/default\/old: spec.workloadRef: .*spec.schedulingGroup.podGroupName/)]);
    expect(old.out.pods[0].node).toBe('n0');
  });

  it('bad PodGroups and pods listed twice are errors at the file, line and column, naming the field', async () => {
    const base = [...cluster(1), template('default')];
    const both = groupOf('foo', 'default', 5);
    ((both.spec as Obj).schedulingPolicy as Obj).basic = {};
    expect((await errorOf(() => dumpOf([...base, both]))).message).toMatch(/^dump.yaml:\d+:\d+: PodGroup\/default\/foo: spec.schedulingPolicy: expected exactly one of `basic`, `gang`/);
    expect((await errorOf(() => dumpOf([...base, groupOf('foo', 'default', 0)]))).message).toMatch(/spec.schedulingPolicy.gang.minCount: expected an integer greater than zero, got 0/);
    const twoKeys = groupOf('foo', 'default', 2, RACK);
    ((twoKeys.spec as Obj).schedulingConstraints as Obj).topology = [{ key: RACK }, { key: 'zone' }];
    expect((await errorOf(() => dumpOf([...base, twoKeys]))).message).toMatch(/spec.schedulingConstraints.topology: expected at most 1 item/);
    const alpha1 = { ...groupOf('foo', 'default', 2), apiVersion: 'scheduling.k8s.io/v1alpha1' };
    expect((await errorOf(() => dumpOf([...base, alpha1]))).message).toMatch(
      /PodGroup\/default\/foo: apiVersion: expected one that Kubernetes 1.36 serves \(scheduling.k8s.io\/v1alpha2\), got "scheduling.k8s.io\/v1alpha1"/,
    );
    expect((await errorOf(() => dumpOf([...base, groupOf('foo', 'default', 2), groupOf('foo', 'default', 3)]))).message).toMatch(/PodGroup\/default\/foo: listed twice/);
    expect((await errorOf(() => dumpOf([...base, podOf('p', 'default'), podOf('p', 'default')]))).message).toMatch(/Pod\/default\/p: listed twice/);
  });

  it('a claim shared by two pods of a gang, and PodGroup-level claims, are named and not placed', async () => {
    const claim = {
      apiVersion: V1,
      kind: 'ResourceClaim',
      metadata: { name: 'shared', namespace: 'default' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } }] } },
    };
    const uses = { resourceClaims: [{ name: 'c', resourceClaimName: 'shared' }] };
    const { out, allocated } = await run([...cluster(2), claim, groupOf('g', 'default', 2), podOf('a', 'default', 'g', uses), podOf('b', 'default', 'g', uses)]);
    expect(out.pods.map((p) => p.reason?.message)).toEqual([
      expect.stringMatching(/ResourceClaim default\/shared is used by pods default\/a and default\/b.*not supported/),
      expect.stringMatching(/ResourceClaim default\/shared is used by pods default\/a and default\/b.*not supported/),
    ]);
    expect(allocated).toBe(0);
    const shared = groupOf('g', 'default', 1);
    (shared.spec as Obj).resourceClaims = [{ name: 'c', resourceClaimName: 'shared' }];
    const r = await run([...cluster(2), template('default'), shared, podOf('a', 'default', 'g')]);
    expect(r.out.pods[0].reason?.message).toMatch(/spec.resourceClaims .* not supported/);
  });

  it("gpualloc dra schedule --json shows each pod's group and the groups; a refused gang exits 1 naming every pod", async () => {
    const text = stringify({ apiVersion: 'v1', kind: 'List', items: [...CLASSES, ...cluster(4), template('default'), groupOf('foo', 'default', 4), ...fiveFoo.slice(0, 4)] });
    const r = await cli(['dra', 'schedule', '--dump', '-', '--json'], {}, text);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { pods: Array<{ pod: string; node: string | null; group?: string }>; groups: unknown[] };
    expect(out.pods.map((p) => p.group)).toEqual(Array(4).fill('default/foo'));
    expect(out.groups).toEqual([{ group: 'default/foo', policy: 'gang', minCount: 4, pods: ['default/foo-0', 'default/foo-1', 'default/foo-2', 'default/foo-3'], bound: 0, placed: 4 }]);
    const five = stringify({ apiVersion: 'v1', kind: 'List', items: [...CLASSES, ...cluster(4), template('default'), groupOf('foo', 'default', 5), ...fiveFoo] });
    const refused = await cli(['dra', 'schedule', '--dump', '-'], {}, five);
    expect(refused.code).toBe(1);
    expect(refused.stderr.match(/^gpualloc: pod default\/foo-\d: PodGroup default\/foo \(gang, minCount 5\): the gang is larger than the cluster/gm)).toHaveLength(5);
  });
});
