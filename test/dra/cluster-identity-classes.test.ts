// Node classes ignore identity attributes (a GPU's uuid, its PCI bus ID): nodes whose devices differ
// only there are one class, so selectors are evaluated once for all of them. A claim that reads an
// identity attribute is answered on each node's own devices, and two such nodes in the same state
// are both tried for it.
import { describe, expect, it } from 'vitest';
import { createDraCluster, type DraMode } from '../../src/dra/index.js';
import { claimObject, classObject, DRIVER, exactRequest, nodeObject, sliceObject } from '../support/dra-objects.js';

const uuid = (node: number, gpu: number): string => `GPU-${node}${gpu}aa-${(node * 31 + gpu * 7) % 97}`;
const gpus = (node: number) =>
  [0, 1].map((g) => ({
    name: `gpu-${g}`,
    attributes: { model: { string: 'A100' }, uuid: { string: uuid(node, g) }, 'resource.kubernetes.io/pciBusID': { string: `0000:${node}${g}:00.0` } },
  }));
const init = (mode: DraMode, nodes = 3) => ({
  classes: [classObject('gpu')],
  slices: Array.from({ length: nodes }, (_, k) => sliceObject(`node-${k}-gpus`, { devices: gpus(k) }, { node: `node-${k}` })),
  nodes: Array.from({ length: nodes }, (_, k) => nodeObject(`node-${k}`, {})),
  mode,
});
const claim = (name: string, selector?: string, constraints?: unknown[]) =>
  claimObject(
    name,
    {
      devices: {
        requests: [exactRequest('gpu', 'gpu', constraints === undefined ? 1 : 2, selector === undefined ? {} : { selectors: [{ cel: { expression: selector } }] })],
        ...(constraints !== undefined ? { constraints } : {}),
      },
    },
    'ml',
  );
const devices = (r: { node?: string; results: Array<{ devices: { results: Array<{ device: string }> } }> }) =>
  `${r.node}:${r.results.flatMap((a) => a.devices.results.map((d) => d.device)).join(',')}`;

describe.each(['scored', 'first-fit'] as const)('node classes without identity attributes (%s)', (mode) => {
  it('groups nodes that differ only in uuid and pciBusID into one class', () => {
    expect(createDraCluster(init(mode)).stats().nodeClasses).toBe(1);
    // A device attribute that is no identity still tells nodes apart.
    const other = init(mode);
    (other.slices[2].spec as { devices: Array<{ attributes: Record<string, unknown> }> }).devices[0].attributes.model = { string: 'H100' };
    expect(createDraCluster(other).stats().nodeClasses).toBe(2);
  });

  it("answers a selector on uuid from each node's own devices, trying every node in the same state", () => {
    const cluster = createDraCluster(init(mode));
    // Every node is empty (one state); node-0 (the class's first member) has no such device.
    expect(devices(cluster.schedule(claim('by-uuid', `device.attributes['${DRIVER}'].uuid == '${uuid(2, 1)}'`)))).toBe('node-2:gpu-1');
    expect(devices(cluster.schedule(claim('by-uuid-0', `device.attributes['${DRIVER}'].uuid == '${uuid(1, 0)}'`)))).toBe('node-1:gpu-0');
    expect(devices(cluster.schedule(claim('by-bus', `device.attributes['resource.kubernetes.io'].pciBusID == '0000:20:00.0'`)))).toBe('node-2:gpu-0');
    // The same uuid again: its device is taken, and no other node has it.
    expect(cluster.schedule(claim('again', `device.attributes['${DRIVER}'].uuid == '${uuid(2, 1)}'`)).reason?.code).toBe('UNSCHEDULABLE');
    // Selectors that read no identity attribute are still answered from the class.
    expect(devices(cluster.schedule(claim('any')))).toBe('node-1:gpu-1');
  });

  it('reads a computed attribute name as reading every attribute', () => {
    const cluster = createDraCluster(init(mode));
    const key = 'uu' + 'id';
    expect(devices(cluster.schedule(claim('computed', `device.attributes['${DRIVER}'].exists(k, k == '${key}') && device.attributes['${DRIVER}'].uuid.startsWith('GPU-21')`)))).toBe('node-2:gpu-1');
  });
});
