// gpualloc dra allocate / schedule on the sample dumps (data/samples/dra): the same answers as the
// engine given the same objects, the status patches, claims already allocated counted as held,
// exit codes, and input errors that name the file, the object, the field path and the value.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { claimsOfDump, splitDraDump } from '../../src/dra/index.js';
import { cli, inTempDir, ROOT } from '../support/cli.js';

const DIR = 'data/samples/dra';
const DUMP = `${DIR}/cluster.json`;
const dump = () => splitDraDump(JSON.parse(readFileSync(join(ROOT, DUMP), 'utf8')), DUMP);
type Entry = { claim: string; node?: string; allocation?: { devices: { results: Array<{ device: string; pool: string }> } }; patch?: unknown; reason?: { message: string } };

describe('gpualloc dra allocate', () => {
  it('allocates the named pending claims together on the node, as engine.allocateClaims does (text and JSON)', async () => {
    const args = ['dra', 'allocate', '--dump', DUMP, '--node', 'dgx-a100-1', '--claim', 'ml/train-4', '--claim', 'infer-1g'];
    const text = await cli(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^CLAIM\s+NODE\s+REQUEST\s+DRIVER\s+POOL\s+DEVICE$/m);
    expect(text.stdout).toMatch(/^ml\/infer-1g\s+dgx-a100-1\s+mig\s+gpu\.nvidia\.com\s+dgx-a100-1\s+gpu-\d-mig-1g\.10gb-\d$/m);
    const json = await cli([...args, '--json']);
    const out = JSON.parse(json.stdout) as { node: string; mode: string; claims: Entry[] };
    const d = dump();
    const { claims, held } = claimsOfDump(d.claims);
    const engine = await createEngine();
    const direct = engine.allocateClaims({ classes: d.classes, slices: d.slices, claims: ['ml/train-4', 'ml/infer-1g'].map((l) => claims.find((c) => c.label === l)!.object), node: d.nodes[0], ...held });
    expect(out).toMatchObject({ node: 'dgx-a100-1', mode: 'scored' });
    expect(out.claims.map((c) => c.allocation)).toEqual(direct.results);
    // Every row of the text is a device of the JSON.
    for (const c of out.claims) for (const r of c.allocation!.devices.results) expect(text.stdout).toMatch(new RegExp(`^${c.claim}\\s+dgx-a100-1\\s.*\\s${r.device.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('first-fit breaks a MIG-capable GPU where scored keeps it whole', async () => {
    const run = async (mode: string) => JSON.parse((await cli(['dra', 'allocate', '--dump', DUMP, '--node', 'dgx-a100-1', '--claim', 'ml/train-4', '--claim', 'ml/infer-1g', '--mode', mode, '--json'])).stdout) as { claims: Entry[] };
    const devices = (o: { claims: Entry[] }) => o.claims[0].allocation!.devices.results.map((r) => r.device);
    expect(devices(await run('first-fit'))).toContain('gpu-0');
    expect(devices(await run('scored'))).toEqual(['gpu-4', 'gpu-5', 'gpu-6', 'gpu-7']);
  });

  it('--patch prints a kubectl status patch per claim; with --json a patch field', async () => {
    const base = ['dra', 'allocate', '--classes', `${DIR}/classes.json`, '--slices', `${DIR}/slices.json`, '--claims', `${DIR}/claims.json`, '--node', 'dgx-a100-1', '--claim', 'infer-1g', '--claim', 'infer-40g'];
    // Node objects live in --dump only: a name alone is a node without labels (the slices name it).
    const json = JSON.parse((await cli([...base, '--json', '--patch'])).stdout) as { claims: Entry[] };
    const patch = await cli([...base, '--patch']);
    expect(patch.code).toBe(0);
    const lines = patch.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    lines.forEach((line, i) => {
      const m = /^kubectl patch resourceclaim (\S+) -n ml --subresource=status --type=merge -p '(.*)'$/.exec(line);
      expect(m).not.toBeNull();
      expect(m![1]).toBe(['infer-1g', 'infer-40g'][i]);
      expect(JSON.parse(m![2])).toEqual({ status: { allocation: json.claims[i].allocation } });
      expect(json.claims[i].patch).toEqual({ status: { allocation: json.claims[i].allocation } });
    });
  });

  it('takes a file holding one Node for --node, and answers exit 1 with the reason when the claims do not fit', async () =>
    inTempDir('gpualloc-dra-', async (dir) => {
      const nodes = JSON.parse(readFileSync(join(ROOT, DIR, 'nodes.json'), 'utf8')) as { items: unknown[] };
      writeFileSync(join(dir, 'node.json'), JSON.stringify(nodes.items[1]));
      const r = await cli(['dra', 'allocate', '--dump', join(ROOT, DUMP), '--node', join(dir, 'node.json'), '--claim', 'infer-1g', '--json']);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout) as { node: string; results: unknown[]; reason: { code: string; message: string } };
      expect(out).toMatchObject({ node: 'hgx-h100-nvl-1', results: [], reason: { code: 'UNSCHEDULABLE' } });
      expect(r.stderr).toMatch(/ml\/infer-1g cannot be allocated on hgx-h100-nvl-1: .*class mig\.nvidia\.com/);
    }));
});

describe('gpualloc dra schedule', () => {
  it('schedules each pending claim on the best node, counting claims already allocated as held (as createDraCluster does)', async () => {
    const r = await cli(['dra', 'schedule', '--dump', DUMP, '--mode', 'first-fit', '--json']);
    const out = JSON.parse(r.stdout) as { mode: string; nodeScore: string; nodes: number; claims: Entry[] };
    expect(out).toMatchObject({ mode: 'first-fit', nodeScore: 'pack', nodes: 2 });
    const d = dump();
    const { claims, held } = claimsOfDump(d.claims);
    // research/notebook holds gpu-7 of the H100 node: nobody else gets it.
    expect(held.allocatedDevices).toEqual(['gpu.nvidia.com/hgx-h100-nvl-1/gpu-7']);
    const engine = await createEngine();
    const cluster = engine.createDraCluster({ classes: d.classes, slices: d.slices, nodes: d.nodes, ...held, mode: 'first-fit' });
    const expected = claims.filter((c) => c.allocation === undefined).map((c) => ({ claim: c.label, result: cluster.schedule(c.object) }));
    expect(out.claims.map((c) => c.claim)).toEqual(['ml/train-4', 'ml/pair', 'ml/infer-1g', 'ml/infer-40g']);
    out.claims.forEach((c, i) => {
      const e = expected[i].result;
      if (e.reason !== undefined) expect(c.reason).toEqual(e.reason);
      else expect({ node: c.node, allocation: c.allocation }).toEqual({ node: e.node, allocation: e.results[0] });
    });
    for (const c of out.claims) for (const x of c.allocation?.devices.results ?? []) expect(`${x.pool}/${x.device}`).not.toBe('hgx-h100-nvl-1/gpu-7');
    // First-fit gave train-4 the two MIG-capable GPUs whole: the MIG claim has nowhere to go (exit 1, reason on stderr).
    expect(r.code).toBe(1);
    expect(out.claims[2].reason?.message).toMatch(/no node can take claim ml\/infer-1g/);
    expect(r.stderr).toMatch(/^gpualloc: ml\/infer-1g: no node can take claim/m);
  });

  it('reads each kind from its own flag, the same file for several flags, and prints a table', async () => {
    const r = await cli(['dra', 'schedule', '--classes', DUMP, '--slices', DUMP, '--nodes', DUMP, '--claims', `${DIR}/claims.json`, '--claim', 'ml/pair', '--node-score', 'spread']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ml\/pair\s+hgx-h100-nvl-1\s+gpus\s+gpu\.nvidia\.com\s+hgx-h100-nvl-1\s+gpu-\d$/m);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });
});

describe('gpualloc dra: input errors (exit 2)', () => {
  it('names the file, the object, the field path and the value', async () =>
    inTempDir('gpualloc-dra-', async (dir) => {
      const bad = JSON.parse(readFileSync(join(ROOT, DUMP), 'utf8')) as { items: Array<{ kind: string; metadata: { name: string }; spec: { devices?: Array<Record<string, unknown>> } }> };
      const slice = bad.items.find((i) => i.kind === 'ResourceSlice' && i.spec.devices !== undefined)!;
      slice.spec.devices![3].capacity = { memory: { value: '80GiB' } };
      const file = join(dir, 'dump.json');
      writeFileSync(file, JSON.stringify(bad, null, 2));
      const r = await cli(['dra', 'schedule', '--dump', file, '--json']);
      expect(r.code).toBe(2);
      const message = (JSON.parse(r.stdout) as { error: { message: string } }).error.message;
      expect(message).toBe(`${file}: ResourceSlice/${slice.metadata.name}: spec.devices[3].capacity.memory.value: expected a quantity such as "4Gi", got "80GiB" (${message.split('(').slice(1).join('(')}`);
      writeFileSync(file, '{"apiVersion": "v1", "items": [\n  {"kind": "Node",, }\n]}');
      const syntax = await cli(['dra', 'schedule', '--dump', file]);
      expect(syntax.code).toBe(2);
      expect(syntax.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:\\d+: not valid JSON`));
      const unknown = { ...bad, items: [{ ...bad.items[0], spec: { ...(bad.items[0].spec as object), bogus: 1 } }] };
      writeFileSync(file, JSON.stringify(unknown));
      expect((await cli(['dra', 'schedule', '--dump', file])).stderr).toMatch(/DeviceClass\/gpu\.nvidia\.com: spec\.bogus: expected a known field \(one of selectors, config, extendedResourceName\), got "unknown field \\"bogus\\""/);
    }));

  it('refuses bad usage: no action, a missing flag or file, unknown values, a claim already allocated', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['dra'], /say allocate or schedule/],
      [['dra', 'plan', '--dump', DUMP], /unknown action "plan"/],
      [['dra', 'allocate', '--dump', DUMP], /--node FILE\|NAME is required/],
      [['dra', 'schedule', '--classes', DUMP], /--slices FILE \(or --dump FILE\) is required/],
      [['dra', 'schedule', '--dump', 'no-such-file.json'], /no-such-file\.json: cannot read/],
      [['dra', 'schedule', '--dump', DUMP, '--mode', 'best'], /--mode: expected scored or first-fit, got "best"/],
      [['dra', 'schedule', '--dump', DUMP, '--node-score', 'most'], /--node-score: expected pack or spread or first or fragmentation, got "most"/],
      [['dra', 'schedule', '--dump', DUMP, '--features', 'prioritizedList,warp'], /--features: unknown feature "warp"/],
      [['dra', 'schedule', '--dump', DUMP, '--claim', 'research/notebook'], /ResourceClaim research\/notebook is already allocated/],
      [['dra', 'allocate', '--dump', DUMP, '--node', 'gpu-node-9'], /--node: no Node "gpu-node-9" in .*cluster\.json \(nodes: dgx-a100-1, hgx-h100-nvl-1\)/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  });
});
