// gpualloc dra schedule / allocate on the sample cluster (data/samples/dra): the same answers as the
// engine given the same objects, pods in queue order with their claims together on one node, what
// kube-scheduler would write (--patch), YAML on standard input, claims already allocated counted as
// held, exit codes, and input errors that say the file, the line and column, the object and the field.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { claimsOfDump, readClusterDump, readDocuments, schedulePods } from '../../src/dra/index.js';
import { openEngine } from '../../src/engine.js';
import { cli, inTempDir, ROOT } from '../support/cli.js';

const DIR = 'data/samples/dra';
const DUMP = `${DIR}/cluster.json`;
const text = (): string => readFileSync(join(ROOT, DUMP), 'utf8');
type Allocation = { devices: { results: Array<{ request: string; device: string; pool: string }> } };
type PodEntry = {
  pod: string;
  node: string | null;
  claims: Array<{ claim: string; allocation: Allocation | null; patch?: unknown; create?: unknown; generated?: unknown }>;
  reason?: { code: string; message: string };
  binding?: unknown;
};
type Out = { pods: PodEntry[]; claims: Array<{ claim: string; node?: string; allocation?: Allocation; reason?: { code: string; message: string } }> };

describe('gpualloc dra schedule', () => {
  it("schedules the pending pods in queue order, as the engine does, each pod's claims on one node", async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP, '--json']);
    const out = JSON.parse(r.stdout) as Out;
    // Priority first (infer-large), then creation time; the bound notebook-0 is not pending.
    expect(out.pods.map((p) => p.pod)).toEqual(['ml/infer-large', 'ml/trainer', 'ml/pair-worker', 'ml/infer-small', 'ml/infer-20g', 'ml/legacy-2gpu']);
    const dump = readClusterDump(await readDocuments(text(), DUMP), DUMP);
    const { claims, held } = claimsOfDump(dump.claims);
    expect(held.allocatedDevices).toEqual(['gpu.nvidia.com/dgx-h100-1/gpu-7']);
    const engine = await openEngine();
    const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held });
    const direct = schedulePods({
      pods: dump.pods,
      nodes: dump.nodeInfos,
      claims,
      templates: dump.templates,
      extendedResources: new Map([['nvidia.com/gpu', 'gpu.nvidia.com']]),
      placer: cluster,
      order: 'scheduler',
    });
    expect(out.pods).toEqual(JSON.parse(JSON.stringify(direct.pods)));
    for (const p of out.pods) {
      for (const c of p.claims) for (const x of c.allocation?.devices.results ?? []) expect([x.pool, `${x.pool}/${x.device}`]).toEqual([p.node, expect.not.stringMatching(/^dgx-h100-1\/gpu-7$/)]);
    }
    // The prioritized list gets its first choice (a 3g.40gb partition); the template's claim is made for the pod.
    expect(out.pods[0].claims[0].allocation?.devices.results[0]).toMatchObject({ request: 'gpu/mig-3g', device: expect.stringMatching(/^gpu-\d-mig-3g40gb-9-[04]$/) });
    expect(out.pods[4].claims[0]).toMatchObject({ claim: 'ml/infer-20g-mig', generated: { template: 'ml/one-mig-20gb', podClaimName: 'mig' } });
    // nvidia.com/gpu: 2 through the class's extendedResourceName; one GPU is left whole: not placed (exit 1).
    expect(out.pods[5]).toMatchObject({
      pod: 'ml/legacy-2gpu',
      node: null,
      claims: [{ claim: 'ml/legacy-2gpu-extended-resources', allocation: null }],
      reason: { code: 'UNSCHEDULABLE', message: '0/2 nodes are available: 2 cannot allocate all claims.' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('gpualloc: pod ml/legacy-2gpu: 0/2 nodes are available: 2 cannot allocate all claims.\n');
  });

  it('prints a table of pods, claims and devices', async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP]);
    expect(r.stdout).toMatch(/^POD\s+NODE\s+CLAIM\s+REQUEST\s+DRIVER\s+POOL\s+DEVICE$/m);
    expect(r.stdout).toMatch(/^ml\/trainer\s+dgx-h100-1\s+ml\/train-4\s+gpus\s+gpu\.nvidia\.com\s+dgx-h100-1\s+gpu-\d$/m);
    expect(r.stdout).toMatch(/^ml\/legacy-2gpu\s+-\s+unschedulable$/m);
  });

  it('--patch: what kube-scheduler would write, as a kubectl script and as JSON', async () => {
    const json = JSON.parse((await cli(['dra', 'schedule', '--dump', DUMP, '--json', '--patch'])).stdout) as Out;
    const script = (await cli(['dra', 'schedule', '--dump', DUMP, '--patch'])).stdout;
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    const trainer = json.pods.find((p) => p.pod === 'ml/trainer')!;
    const uid = (JSON.parse(text()) as { items: Array<{ kind: string; metadata: { name: string; uid: string } }> }).items.find((i) => i.kind === 'Pod' && i.metadata.name === 'trainer')!.metadata.uid;
    const status = { status: { allocation: trainer.claims[0].allocation, reservedFor: [{ resource: 'pods', name: 'trainer', uid }] } };
    expect(trainer.claims[0].patch).toEqual(status);
    expect(trainer.binding).toEqual({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'trainer', namespace: 'ml', uid }, target: { apiVersion: 'v1', kind: 'Node', name: trainer.node } });
    expect(script).toContain(`kubectl patch resourceclaim train-4 -n ml --subresource=status --type=merge -p '${JSON.stringify(status)}'\n`);
    expect(script).toContain(`kubectl create -f - <<'EOF'\n${JSON.stringify(trainer.binding)}\nEOF\n`);
    // The claim made from a template is created (owned by its pod) before its status is patched.
    const made = json.pods.find((p) => p.pod === 'ml/infer-20g')!.claims[0].create as { metadata: { name: string; ownerReferences: Array<{ name: string }> } };
    expect(made.metadata.name).toBe('infer-20g-mig');
    expect(made.metadata.ownerReferences[0].name).toBe('infer-20g');
    expect(script.indexOf('"name":"infer-20g-mig"')).toBeLessThan(script.indexOf('kubectl patch resourceclaim infer-20g-mig'));
    expect(script).toContain('# ml/legacy-2gpu: not scheduled: 0/2 nodes are available');
  });

  it('reads YAML from standard input (kubectl get … -o yaml) as the same objects in JSON', async () => {
    const yaml = stringify(JSON.parse(text()));
    const fromYaml = await cli(['dra', 'schedule', '--dump', '-', '--json'], {}, yaml);
    const fromJson = await cli(['dra', 'schedule', '--dump', DUMP, '--json']);
    expect(fromYaml.stdout).toBe(fromJson.stdout);
    expect(fromYaml.code).toBe(1);
  });

  it('reads each kind from its own flag; --claim schedules only the named claims, each on its own', async () => {
    const r = await cli([
      'dra',
      'schedule',
      '--classes',
      `${DIR}/classes.json`,
      '--slices',
      `${DIR}/slices.json`,
      '--nodes',
      `${DIR}/nodes.json`,
      '--claims',
      `${DIR}/claims.json`,
      '--claim',
      'ml/pair',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.pods).toEqual([]);
    expect(out.claims).toHaveLength(1);
    expect(out.claims[0]).toMatchObject({ claim: 'ml/pair', node: 'dgx-h100-1' });
  });

  it('skips kinds the scheduler does not use with one count; a field of a newer Kubernetes is a warning, --strict an error', async () =>
    inTempDir('gpualloc-dra-', async (dir) => {
      const dump = JSON.parse(text()) as { items: Array<Record<string, unknown>> };
      dump.items.push(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml' } },
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ml' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'research' } },
      );
      const cls = dump.items.find((i) => i.kind === 'DeviceClass') as { spec: Record<string, unknown> };
      cls.spec.futureOption = true;
      const file = join(dir, 'dump.json');
      writeFileSync(file, JSON.stringify(dump, null, 2));
      const r = await cli(['dra', 'schedule', '--dump', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('gpualloc: skipped 3 objects of kinds the scheduler does not use (Namespace 2, Deployment 1)\n');
      expect(r.stderr).toContain(
        `gpualloc: warning: ${file}: DeviceClass/gpu.nvidia.com: spec.futureOption: unknown field ignored (the readers follow Kubernetes 1.36; its API server would not store it)\n`,
      );
      const strict = await cli(['dra', 'schedule', '--dump', file, '--strict']);
      expect(strict.code).toBe(2);
      expect(strict.stderr).toMatch(/dump\.json:\d+:\d+: DeviceClass\/gpu\.nvidia\.com: spec\.futureOption: unknown field \(--strict; the readers follow Kubernetes 1\.36\)/);
    }));
});

describe('gpualloc dra allocate', () => {
  it('allocates the named pending claims together on the node, as engine.allocateClaims does', async () => {
    const args = ['dra', 'allocate', '--dump', DUMP, '--node', 'h100-mig-1', '--claim', 'ml/infer-1g', '--claim', 'infer-40g'];
    const json = JSON.parse((await cli([...args, '--json'])).stdout) as { node: string; claims: Array<{ claim: string; allocation: Allocation }> };
    const dump = readClusterDump(await readDocuments(text(), DUMP), DUMP);
    const { claims, held } = claimsOfDump(dump.claims);
    const engine = await openEngine();
    const direct = engine.allocateClaims({
      classes: dump.classes,
      slices: dump.slices,
      claims: ['ml/infer-1g', 'ml/infer-40g'].map((l) => claims.find((c) => c.label === l)!.object),
      node: dump.nodes[1],
      ...held,
    });
    expect(json.claims.map((c) => c.allocation)).toEqual(direct.results);
    const patch = await cli([...args, '--patch']);
    const lines = patch.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(/ -p '(.*)'$/.exec(lines[0])![1])).toEqual({ status: { allocation: direct.results[0] } });
  });

  it('answers exit 1 with the reason when the claims do not fit', async () => {
    const r = await cli(['dra', 'allocate', '--dump', DUMP, '--node', 'dgx-h100-1', '--claim', 'infer-1g', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ node: 'dgx-h100-1', results: [], reason: { code: 'UNSCHEDULABLE' } });
    expect(r.stderr).toMatch(/ml\/infer-1g cannot be allocated on dgx-h100-1: .*class mig\.nvidia\.com/);
  });
});

describe('gpualloc dra: input errors (exit 2)', () => {
  it('says the file, the line and column, the object, the field path and the value', async () =>
    inTempDir('gpualloc-dra-', async (dir) => {
      const file = join(dir, 'dump.json');
      writeFileSync(file, text().replace('"value": "81559Mi"', '"value": "80GiB"'));
      const r = await cli(['dra', 'schedule', '--dump', file, '--json']);
      expect(r.code).toBe(2);
      const message = (JSON.parse(r.stdout) as { error: { message: string } }).error.message;
      expect(message).toMatch(
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: ResourceSlice/dgx-h100-1-gpu\\.nvidia\\.com-\\w+: spec\\.devices\\[0\\]\\.capacity\\.memory\\.value: expected a quantity such as "4Gi", got "80GiB"`,
        ),
      );
      const line = Number(/:(\d+):\d+: /.exec(message)![1]);
      expect(readFileSync(file, 'utf8').split('\n')[line - 1]).toContain('"80GiB"');
      writeFileSync(file, '{"apiVersion": "v1", "items": [\n  {"kind": "Node",, }\n]}');
      const syntax = await cli(['dra', 'schedule', '--dump', file]);
      expect(syntax.code).toBe(2);
      expect(syntax.stderr).toMatch(/not valid JSON/);
      writeFileSync(file, 'kind: Node\nmetadata:\n  name: [x\n');
      const yaml = await cli(['dra', 'schedule', '--dump', file]);
      expect(yaml.code).toBe(2);
      expect(yaml.stderr).toMatch(/dump\.json:\d+:\d+: not valid YAML/);
    }));

  it('refuses bad usage: no action, a missing flag or file, unknown values, a claim already allocated', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['dra'], /say schedule or allocate/],
      [['dra', 'plan', '--dump', DUMP], /unknown action "plan"/],
      [['dra', 'allocate', '--dump', DUMP], /--node NAME is required/],
      [['dra', 'schedule', '--classes', DUMP], /--slices FILE \(or --dump FILE\) is required/],
      [['dra', 'schedule', '--dump', 'no-such-file.json'], /no-such-file\.json: cannot read/],
      [['dra', 'schedule', '--dump', DUMP, '--mode', 'best'], /--mode: expected scored or first-fit, got "best"/],
      [['dra', 'schedule', '--dump', DUMP, '--node-score', 'most'], /--node-score: expected pack or spread or first or fragmentation, got "most"/],
      [['dra', 'schedule', '--dump', DUMP, '--features', 'prioritizedList,warp'], /--features: unknown feature "warp"/],
      [['dra', 'schedule', '--dump', DUMP, '--claim', 'research/notebook-0-gpu-x7k2p'], /ResourceClaim research\/notebook-0-gpu-x7k2p is already allocated/],
      [['dra', 'allocate', '--dump', DUMP, '--node', 'gpu-node-9'], /--node: no Node "gpu-node-9" in .*cluster\.json \(nodes: dgx-h100-1, h100-mig-1\)/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  });
});
