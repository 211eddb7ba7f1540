// Cluster dumps as kubectl writes them: split by kind (a mixed List, typed Lists whose items omit
// their kind, arrays), claims with status.allocation counted as held (admin access holding
// nothing, shares with their IDs, capacity summed per device), and a malformed allocation named.
import { describe, expect, it } from 'vitest';
import { allocationPatch, claimsOfDump, splitDraDump } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { claimObject, DRIVER, type Obj, V1 } from '../support/dra-objects.js';

const claim = (name: string, allocation?: unknown) => ({ ...claimObject(name, { devices: { requests: [] } }), ...(allocation !== undefined ? { status: { allocation } } : {}) });
const result = (device: string, extra: Obj = {}) => ({ request: 'r', driver: DRIVER, pool: 'p', device, ...extra });

describe('splitDraDump', () => {
  it('splits a mixed List, typed Lists (items without kind) and arrays, in order', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    const cls = { apiVersion: V1, kind: 'DeviceClass', metadata: { name: 'c' }, spec: {} };
    const mixed = { apiVersion: 'v1', kind: 'List', items: [node, cls, claim('a')] };
    const typed = { apiVersion: V1, kind: 'ResourceClaimList', items: [{ metadata: { name: 'b', namespace: 'ns' }, spec: { devices: { requests: [] } } }] };
    const d = splitDraDump([mixed, typed], 'f.json');
    expect(d.nodes).toEqual([node]);
    expect(d.classes).toEqual([cls]);
    expect(d.claims.map((c) => (c as { metadata: { name: string }; kind: string }).metadata.name)).toEqual(['a', 'b']);
    expect((d.claims[1] as { kind: string; apiVersion: string }).kind).toBe('ResourceClaim');
  });

  it('leaves out kinds the allocator does not read, and refuses a version no API server serves, naming where', () => {
    const d = splitDraDump({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }] }, 'f.json');
    expect([d.classes, d.slices, d.claims, d.nodes].map((l) => l.length)).toEqual([0, 0, 0, 0]);
    expect(() => splitDraDump({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'resource.k8s.io/v1alpha1', kind: 'DeviceClass', metadata: { name: 'c' }, spec: {} }] }, 'f.json')).toThrow(
      /f\.json: DeviceClass\/c: apiVersion: expected one that Kubernetes .* serves .*got "resource\.k8s\.io\/v1alpha1"/,
    );
  });
});

describe('claimsOfDump', () => {
  it('counts claims with status.allocation as held: whole devices, shares, capacity summed; admin access holds nothing', () => {
    const { claims, held } = claimsOfDump([
      claim('a', { devices: { results: [result('d0'), result('d1', { adminAccess: true })] }, allocationTimestamp: '2026-07-14T09:20:11Z' }),
      claim('b'),
      claim('c', { devices: { results: [result('s0', { shareID: 'aaa', consumedCapacity: { memory: '10Gi' } })] } }),
      claim('d', { devices: { results: [result('s0', { shareID: 'bbb', consumedCapacity: { memory: '512Mi' } })] } }),
    ]);
    expect(claims.map((c) => [c.label, c.allocation !== undefined])).toEqual([
      ['ns/a', true],
      ['ns/b', false],
      ['ns/c', true],
      ['ns/d', true],
    ]);
    expect(held).toEqual({
      allocatedDevices: ['gpu.example.com/p/d0'],
      allocatedSharedDeviceIDs: ['gpu.example.com/p/s0/aaa', 'gpu.example.com/p/s0/bbb'],
      allocatedCapacity: { 'gpu.example.com/p/s0': { memory: '10752Mi' } },
    });
    expect(allocationPatch(claims[0].allocation!)).toEqual({ status: { allocation: claims[0].allocation } });
  });

  it('names the claim, the path and the value of a malformed allocation', () => {
    const bad = (allocation: unknown) => () => claimsOfDump([claim('x', allocation)]);
    expect(bad({ devices: { results: [{ request: 'r', driver: 'd', pool: 'p' }] } })).toThrow(
      /^ResourceClaim\/ns\/x: status\.allocation\.devices\.results\[0\]\.device: expected a string \(required\)/,
    );
    expect(bad({ devices: { results: [result('d0', { consumedCapacity: { memory: '10XB' } })] } })).toThrow(/consumedCapacity\.memory: expected a quantity such as "4Gi", got "10XB"/);
    expect(bad({ devices: {}, bogus: 1 })).toThrow(AllocationError);
  });
});
