// The object readers: every object of the upstream table reads; each kind of bad input is an
// AllocationError naming the object, the field path and the value.
import { describe, expect, it } from 'vitest';
import { readDeviceClasses, readDraObjects, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { errorOf, type Obj, sliceObject, V1 } from '../support/dra-objects.js';
import { upstreamCases } from '../support/dra-upstream-table.js';

const slice = (spec: Obj, extra: Obj = {}) => sliceObject('slice-1', spec, { pool: 'pool-1' }, extra);
const devices = (memory: unknown) => ({
  devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }, { name: 'gpu-2', capacity: { memory: { value: memory } } }],
});

describe('DRA object readers', () => {
  it('read every object of the upstream table', () => {
    let objects = 0;
    for (const c of upstreamCases()) {
      objects += readDeviceClasses(c.classes).length + readResourceSlices(c.slices).length + readResourceClaims(c.claims).length + readNodes(c.node).length;
    }
    expect(objects).toBe(1033);
  });

  it('reads quantities exactly and keeps attribute types', () => {
    const [s] = readResourceSlices(
      slice({ devices: [{ name: 'gpu-0', attributes: { numa: { int: 1 }, model: { string: 'A100' }, 'gpu.example.com/v': { version: '1.2.3' } }, capacity: { memory: { value: '80Gi' } } }] }),
    );
    expect(s.devices[0].capacity.memory.value.value()).toBe(80n * 1024n ** 3n);
    expect(s.devices[0].attributes).toEqual({ numa: { int: 1n }, model: { string: 'A100' }, 'gpu.example.com/v': { version: '1.2.3' } });
  });

  it('names the object, the field path and the value of a malformed quantity', () => {
    const e = errorOf(() => readResourceSlices(slice(devices('12XiB'))));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toContain('ResourceSlice/slice-1');
    expect(e.message).toContain('spec.devices[2].capacity.memory.value');
    expect(e.message).toContain('"12XiB"');
    expect(e.field).toBe('spec.devices[2].capacity.memory.value');
  });

  it('rejects an unknown field, naming it', () => {
    const e = errorOf(() => readResourceSlices(slice({ devices: [{ name: 'gpu-0', capacty: {} }] })));
    expect(e.message).toContain('ResourceSlice/slice-1: spec.devices[0].capacty');
    expect(e.message).toContain('unknown field');
    const top = errorOf(() => readResourceSlices(slice({}, { extra: 1 })));
    expect(top.message).toContain('ResourceSlice/slice-1: extra');
  });

  it('rejects a wrong apiVersion and a wrong kind', () => {
    const v = errorOf(() => readResourceSlices(slice({}, { apiVersion: 'resource.k8s.io/v1beta1' })));
    expect(v.message).toContain('ResourceSlice/slice-1: apiVersion: expected "resource.k8s.io/v1", got "resource.k8s.io/v1beta1"');
    const k = errorOf(() => readResourceSlices({ ...slice({}), kind: 'DeviceClass' }));
    expect(k.message).toContain('kind: expected "ResourceSlice", got "DeviceClass"');
  });

  it('rejects wrong types with the path', () => {
    const e = errorOf(() => readResourceSlices(slice({ pool: { name: 'p', generation: '1', resourceSliceCount: 1 } })));
    expect(e.message).toContain('ResourceSlice/slice-1: spec.pool.generation: expected an integer, got "1"');
    const claim = {
      apiVersion: V1,
      kind: 'ResourceClaim',
      metadata: { name: 'c', namespace: 'ns' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', count: 'two' } }] } },
    };
    const c = errorOf(() => readResourceClaims(claim));
    expect(c.message).toContain('ResourceClaim/ns/c: spec.devices.requests[0].exactly.count: expected an integer, got "two"');
  });

  it('rejects a request with both exactly and firstAvailable, and an attribute with two values', () => {
    const claim = {
      apiVersion: V1,
      kind: 'ResourceClaim',
      metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'a' }, firstAvailable: [{ name: 's', deviceClassName: 'a' }] }] } },
    };
    expect(errorOf(() => readResourceClaims(claim)).message).toContain('ResourceClaim/c: spec.devices.requests[0]: expected exactly one of exactly and firstAvailable');
    const two = errorOf(() => readResourceSlices(slice({ devices: [{ name: 'd', attributes: { x: { int: 1, string: 'a' } } }] })));
    expect(two.message).toContain('spec.devices[0].attributes.x');
  });

  it('reads Lists as kubectl prints them: typed, mixed, and items without kind', () => {
    const cls = { apiVersion: V1, kind: 'DeviceClass', metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: 'true' } }] } };
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { zone: 'a' } }, spec: { podCIDR: '10.0.0.0/24' }, status: { capacity: { cpu: '8' } } };
    expect(readDeviceClasses({ apiVersion: V1, kind: 'DeviceClassList', metadata: {}, items: [{ metadata: { name: 'x' }, spec: {} }] })[0].name).toBe('x');
    const all = readDraObjects({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: [cls, slice({}), node] });
    expect([all.classes.length, all.slices.length, all.claims.length, all.nodes.length]).toEqual([1, 1, 0, 1]);
    expect(all.nodes[0]).toEqual({ name: 'node-1', labels: { zone: 'a' } });
    const wrong = errorOf(() => readResourceSlices({ apiVersion: 'v1', kind: 'List', items: [cls] }));
    expect(wrong.message).toContain('slices items[0]: kind: expected "ResourceSlice", got "DeviceClass"');
  });

  it('names an object without a name by where it is', () => {
    const e = errorOf(() => readResourceSlices([slice({}), { apiVersion: V1, kind: 'ResourceSlice', metadata: {}, spec: {} }]));
    expect(e.message).toContain('slices[1]: metadata.name');
  });
});
