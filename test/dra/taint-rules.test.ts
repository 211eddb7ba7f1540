// DeviceTaintRules select devices as upstream's ResourceSlice tracker does (resourceslice/tracker
// applyPatches): driver, pool and device name, then every selector of spec.deviceSelector's
// DeviceClass, then the rule's own CEL selectors. A class the dump lacks selects nothing, a CEL
// runtime error leaves that device out, a selector that does not compile selects nothing; each is
// one warning. The rules below follow the Kubernetes documentation's DeviceTaintRule examples
// (concepts/scheduling-eviction/dynamic-resource-allocation, "Device taints and tolerations").
import { describe, expect, it } from 'vitest';
import { type ClusterDump, createDraCluster, readClusterDump, readDocuments } from '../../src/dra/index.js';
import { claimObject, classObject, DRIVER, exactRequest, nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';

const devices = [
  { name: 'gpu-0', attributes: { model: { string: 'h100' }, healthy: { bool: true } } },
  { name: 'gpu-1', attributes: { model: { string: 'h100' }, healthy: { bool: false } } },
  { name: 'gpu-2', attributes: { model: { string: 'a100' } } },
];
const TAINT = { key: 'dra.example.com/unhealthy', value: 'Broken', effect: 'NoSchedule' };

function rule(name: string, deviceSelector: Obj, apiVersion = 'resource.k8s.io/v1alpha3'): Obj {
  return { apiVersion, kind: 'DeviceTaintRule', metadata: { name }, spec: { deviceSelector, taint: TAINT } };
}

async function dumpWith(...rules: Obj[]): Promise<ClusterDump> {
  const objects = [
    classObject('gpu'),
    classObject('h100', [`device.driver == "${DRIVER}"`, `device.attributes["${DRIVER}"].model == "h100"`]),
    nodeObject('node-1'),
    sliceObject('s1', { devices }, { node: 'node-1', pool: 'pool-1' }),
    sliceObject('s2', { devices: devices.map((d) => ({ ...d, name: `${d.name}-b` })) }, { node: 'node-1', pool: 'pool-2' }),
    ...rules,
  ];
  return readClusterDump(await readDocuments(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }), 'dump.json'), 'dump.json');
}

/** The names of the devices that carry the rule's taint, over every slice. */
function tainted(dump: ClusterDump): string[] {
  return (dump.slices as Array<{ spec: { devices: Array<{ name: string; taints?: Array<{ key: string }> }> } }>).flatMap((s) =>
    s.spec.devices.filter((d) => d.taints?.some((t) => t.key === TAINT.key)).map((d) => d.name),
  );
}

describe('DeviceTaintRule deviceSelector', () => {
  it('by driver (the documentation example: a broken driver installation taints every device)', async () => {
    expect(tainted(await dumpWith(rule('example', { driver: DRIVER })))).toEqual(['gpu-0', 'gpu-1', 'gpu-2', 'gpu-0-b', 'gpu-1-b', 'gpu-2-b']);
    expect(tainted(await dumpWith(rule('other', { driver: 'other.example.com' })))).toEqual([]);
  });

  it('by pool and device name', async () => {
    expect(tainted(await dumpWith(rule('r', { pool: 'pool-2' })))).toEqual(['gpu-0-b', 'gpu-1-b', 'gpu-2-b']);
    expect(tainted(await dumpWith(rule('r', { driver: DRIVER, pool: 'pool-1', device: 'gpu-1' })))).toEqual(['gpu-1']);
  });

  it("by DeviceClass: the class's selectors must hold", async () => {
    expect(tainted(await dumpWith(rule('r', { deviceClassName: 'h100' })))).toEqual(['gpu-0', 'gpu-1', 'gpu-0-b', 'gpu-1-b']);
    expect(tainted(await dumpWith(rule('r', { deviceClassName: 'h100', pool: 'pool-1' })))).toEqual(['gpu-0', 'gpu-1']);
  });

  it('by CEL selectors, all of which must hold; a runtime error leaves that device out', async () => {
    const unhealthy = { cel: { expression: `!device.attributes["${DRIVER}"].healthy` } };
    const dump = await dumpWith(rule('r', { pool: 'pool-1', selectors: [unhealthy] }));
    // gpu-2 has no `healthy`: "no such key", so it is not selected (and the rule says so once).
    expect(tainted(dump)).toEqual(['gpu-1']);
    expect(dump.warnings.filter((w) => w.startsWith('DeviceTaintRule/r:'))).toEqual([
      'DeviceTaintRule/r: DeviceTaintRule r: selector #0 on device gpu-2: CEL runtime error: no such key: healthy; the device is not selected',
    ]);
    const both = await dumpWith(rule('r', { deviceClassName: 'h100', selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].healthy == true` } }] }));
    expect(tainted(both)).toEqual(['gpu-0', 'gpu-0-b']);
  });

  it('a class the dump lacks or a selector that does not compile selects nothing, with a warning', async () => {
    const missing = await dumpWith(rule('r', { deviceClassName: 'nope' }));
    expect(tainted(missing)).toEqual([]);
    expect(missing.warnings).toContain('DeviceTaintRule/r: spec.deviceSelector.deviceClassName: DeviceClass nope is not in the dump; the rule selects no device');
    const broken = await dumpWith(rule('r', { selectors: [{ cel: { expression: 'device.nope' } }] }));
    expect(tainted(broken)).toEqual([]);
    expect(broken.warnings.join('\n')).toMatch(/^DeviceTaintRule\/r: DeviceTaintRule r: selector #0: CEL compile error: .*undefined field 'nope'/m);
  });

  it('v1beta2 rules (driver, pool, device) apply the same way', async () => {
    expect(tainted(await dumpWith(rule('r', { driver: DRIVER, device: 'gpu-2' }, 'resource.k8s.io/v1beta2')))).toEqual(['gpu-2']);
  });

  it('the scheduler honours the taints: a claim gets only the untainted devices the class offers', async () => {
    const dump = await dumpWith(rule('r', { deviceClassName: 'h100' }));
    const cluster = createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes });
    const placed = cluster.schedule([claimObject('c', { devices: { requests: [exactRequest('r', 'gpu', 2)] } })]);
    expect(placed.results.flatMap((a) => a.devices.results.map((r) => r.device)).sort()).toEqual(['gpu-2', 'gpu-2-b']);
    const more = cluster.schedule([claimObject('d', { devices: { requests: [exactRequest('r', 'gpu', 1)] } })]);
    expect(more.results).toEqual([]);
  });
});
