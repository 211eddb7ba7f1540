// Fields of a newer Kubernetes: dropped with a warning, or the claim refused where they could change what is allocated.
import { describe, expect, it } from 'vitest';
import { pruneSpec } from '../../src/dra/testing.js';

describe('pruneSpec', () => {
  it('drops an unknown device field and reports its path', () => {
    const { spec, unknown } = pruneSpec('ResourceSlice', { driver: 'd', pool: { name: 'p' }, devices: [{ name: 'a', futureField: 1 }] });
    expect(spec).toEqual({ driver: 'd', pool: { name: 'p' }, devices: [{ name: 'a' }] });
    expect(unknown).toEqual([{ path: ['spec', 'devices', 0, 'futureField'], effect: 'dropped' }]);
  });

  it('turns a selector of an unknown type into one the allocator refuses', () => {
    const { spec, unknown } = pruneSpec('ResourceClaim', {
      devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c', selectors: [{ cel: { expression: 'true' } }, { regoPolicy: 'x' }] } }] },
    });
    expect(spec).toEqual({ devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c', selectors: [{ cel: { expression: 'true' } }, {}] } }] } });
    expect(unknown[0].effect).toBe('refused');
  });

  it('an unknown field of cel refuses the selector, not the whole claim shape', () => {
    const { spec } = pruneSpec('ResourceClaim', { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c', selectors: [{ cel: { expression: 'true', flavor: 'x' } }] } }] } });
    expect(spec).toEqual({ devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c', selectors: [{}] } }] } });
  });

  it('a new request option refuses the request body; a new request type refuses the request; a new constraint type the constraint', () => {
    const { spec } = pruneSpec('ResourceClaim', {
      devices: {
        requests: [
          { name: 'a', exactly: { deviceClassName: 'c', distinct: true } },
          { name: 'b', someday: { deviceClassName: 'c' } },
          { name: 'c', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k', operator: 'Exists', newMatch: 'x' }] } },
        ],
        constraints: [{ requests: ['a'], matchAttribute: 'x/y', sameRack: true }],
      },
    });
    expect(spec).toEqual({
      devices: {
        requests: [{ name: 'a', exactly: { deviceClassName: '' } }, { name: 'b' }, { name: 'c', exactly: { deviceClassName: '' } }],
        constraints: [{ requests: ['a'] }],
      },
    });
  });

  it('leaves an object without unknown fields as it is (the same object)', () => {
    const input = { devices: { requests: [{ name: 'a', exactly: { deviceClassName: 'c' } }] } };
    expect(pruneSpec('ResourceClaim', input).spec).toBe(input);
  });
});
