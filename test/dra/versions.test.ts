// Older served versions read as the API server converts them to v1 (pkg/apis/resource/v1beta1/conversion.go).
import { describe, expect, it } from 'vitest';
import { readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { toServedVersion } from '../../src/dra/testing.js';

describe('toServedVersion', () => {
  it('v1beta1 request fields go into exactly; firstAvailable stays', () => {
    const claim = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c', namespace: 'ns' },
      spec: {
        devices: {
          requests: [
            { name: 'gpu', deviceClassName: 'gpu.nvidia.com', count: 2, selectors: [{ cel: { expression: 'true' } }], adminAccess: false },
            {
              name: 'alt',
              firstAvailable: [
                { name: 'big', deviceClassName: 'a' },
                { name: 'small', deviceClassName: 'b', count: 2 },
              ],
            },
          ],
        },
      },
    };
    const v1 = toServedVersion('ResourceClaim', claim) as typeof claim;
    expect(v1.apiVersion).toBe('resource.k8s.io/v1');
    expect(v1.spec.devices.requests[0]).toEqual({ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count: 2, selectors: [{ cel: { expression: 'true' } }], adminAccess: false } });
    expect(v1.spec.devices.requests[1]).toEqual(claim.spec.devices.requests[1]);
    // The input is not changed.
    expect(claim.apiVersion).toBe('resource.k8s.io/v1beta1');
    const [read] = readResourceClaims(v1);
    expect(read.requests[0].exactly?.count).toBe(2);
    expect(read.requests[1].firstAvailable.map((s) => s.name)).toEqual(['big', 'small']);
  });

  it('a v1beta1 request with both its own fields and firstAvailable keeps both, for validation to refuse', () => {
    const v1 = toServedVersion('ResourceClaim', {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'r', deviceClassName: 'x', firstAvailable: [{ name: 's', deviceClassName: 'y' }] }] } },
    });
    expect(() => readResourceClaims(v1)).toThrow(/exactly one of exactly and firstAvailable/);
  });

  it('zero values of the main request fields count as unset (hasAnyMainRequestFieldsSet)', () => {
    const v1 = toServedVersion('ResourceClaim', {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'r', deviceClassName: '', count: 0, firstAvailable: [{ name: 's', deviceClassName: 'y' }] }] } },
    }) as { spec: { devices: { requests: Array<Record<string, unknown>> } } };
    expect(v1.spec.devices.requests[0]).toEqual({ name: 'r', firstAvailable: [{ name: 's', deviceClassName: 'y' }] });
  });

  it('v1beta1 devices lose `basic`; an empty nodeName and a false allNodes are unset', () => {
    const slice = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: {
        driver: 'd.example.com',
        nodeName: '',
        allNodes: false,
        nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }] },
        pool: { name: 'p', resourceSliceCount: 1 },
        devices: [{ name: 'gpu-0', basic: { attributes: { model: { string: 'x' } }, capacity: { memory: { value: '1Gi' } } } }],
      },
    };
    const v1 = toServedVersion('ResourceSlice', slice) as { spec: Record<string, unknown> };
    expect(Object.keys(v1.spec)).not.toContain('nodeName');
    expect(Object.keys(v1.spec)).not.toContain('allNodes');
    expect((v1.spec.devices as unknown[])[0]).toEqual({ name: 'gpu-0', attributes: { model: { string: 'x' } }, capacity: { memory: { value: '1Gi' } } });
    const [read] = readResourceSlices(v1);
    expect(read.devices[0].capacity.memory.value.toString()).toBe('1Gi');
  });

  it('v1beta2 objects keep their fields; ResourceClaimTemplates convert their inner spec; unserved versions are undefined', () => {
    const v1 = toServedVersion('DeviceClass', { apiVersion: 'resource.k8s.io/v1beta2', kind: 'DeviceClass', metadata: { name: 'c' }, spec: { selectors: [] } });
    expect(v1).toEqual({ apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'c' }, spec: { selectors: [] } });
    const template = toServedVersion('ResourceClaimTemplate', {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't' },
      spec: { spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'gpu.nvidia.com' }] } } },
    }) as { spec: { spec: unknown } };
    expect(template.spec.spec).toEqual({ devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } }] } });
    expect(toServedVersion('ResourceSlice', { apiVersion: 'resource.k8s.io/v1alpha3', kind: 'ResourceSlice' })).toBeUndefined();
    expect(toServedVersion('DeviceTaintRule', { apiVersion: 'resource.k8s.io/v1alpha3', kind: 'DeviceTaintRule' })?.apiVersion).toBe('resource.k8s.io/v1beta2');
  });
});
