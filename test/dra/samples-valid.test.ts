// The bundled samples (data/samples/dra) are objects a cluster would accept: every slice, class and
// claim passes the API server's validation, no field is unknown, and the split files hold the mixed one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClusterDump, readDocuments, validateClaimSpec, validateClassSpec, validateSliceSpec } from '../../src/dra/index.js';
import { ROOT } from '../support/cli.js';

const read = async (name: string) => readClusterDump(await readDocuments(readFileSync(join(ROOT, 'data/samples/dra', name), 'utf8'), name), name, { strict: true });

describe('data/samples/dra', () => {
  it("passes the API server's validation, strictly read", async () => {
    const dump = await read('cluster.json');
    expect(dump.slices).toHaveLength(4);
    for (const s of dump.slices) expect(validateSliceSpec((s as { spec: unknown }).spec)).toEqual([]);
    for (const c of dump.classes) expect(validateClassSpec((c as { spec: unknown }).spec)).toEqual([]);
    for (const c of dump.claims) expect(validateClaimSpec((c as { spec: unknown }).spec)).toEqual([]);
    expect(dump.invalid.size).toBe(0);
    expect(dump.warnings).toEqual([]);
  });

  it('names devices as the NVIDIA driver does (DNS labels, no dots) and publishes no attribute the driver does not', async () => {
    const dump = await read('cluster.json');
    const known = new Set([
      'type',
      'uuid',
      'productName',
      'brand',
      'architecture',
      'cudaComputeCapability',
      'driverVersion',
      'cudaDriverVersion',
      'resource.kubernetes.io/pciBusID',
      'resource.kubernetes.io/pcieRoot',
      'parentUUID',
      'profile',
    ]);
    for (const s of dump.slices) {
      for (const d of (s as { spec: { devices?: Array<{ name: string; attributes: Record<string, unknown> }> } }).spec.devices ?? []) {
        expect(d.name).toMatch(/^gpu-\d+(-mig-[a-z0-9]+-\d+-\d+)?$/);
        for (const a of Object.keys(d.attributes)) expect(known.has(a), `${d.name}: ${a}`).toBe(true);
      }
    }
  });

  it('the one-kind files hold the objects of the mixed file', async () => {
    const all = await read('cluster.json');
    const parts = await Promise.all(['classes.json', 'slices.json', 'claims.json', 'nodes.json', 'pods.json'].map(read));
    expect(parts.flatMap((d) => d.classes)).toEqual(all.classes);
    expect(parts.flatMap((d) => d.slices)).toEqual(all.slices);
    expect(parts.flatMap((d) => d.claims)).toEqual(all.claims);
    expect(parts.flatMap((d) => d.nodes)).toEqual(all.nodes);
    expect(parts.flatMap((d) => d.pods).map((p) => p.label)).toEqual(all.pods.map((p) => p.label));
  });

  it('a name the API server refuses is refused with its words and where it stands', async () => {
    const text = readFileSync(join(ROOT, 'data/samples/dra/slices.json'), 'utf8').replace('"gpu-0-mig-1g10gb-19-0"', '"gpu-0-mig-1g.10gb-0"');
    await expect(async () => readClusterDump(await readDocuments(text, 'slices.json'), 'slices.json')).rejects.toThrow(
      /^slices\.json:\d+:\d+: ResourceSlice\.resource\.k8s\.io "h100-mig-1-gpu\.nvidia\.com-\w+" is invalid: spec\.devices\[\d+\]\.name: Invalid value: "gpu-0-mig-1g\.10gb-0": a lowercase RFC 1123 label must consist of/,
    );
  });
});
