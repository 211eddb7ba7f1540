// A list in an object may carry own properties a JSON text cannot give it (a caller's array with a
// `constructor` key): the readers read it item by item, as any other list, and never call through it.
import { describe, expect, it } from 'vitest';
import { readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationError } from '../../src/index.js';

const claim = (requests: unknown[]) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { devices: { requests } },
});

describe('DRA readers on arrays with own properties', () => {
  it('a requests list whose own constructor is a string reads as the plain list', () => {
    const requests: unknown[] = [{ name: 'r0', exactly: { deviceClassName: 'gpu', count: 2 } }];
    Object.defineProperty(requests, 'constructor', { value: 'x', enumerable: true });
    const [read] = readResourceClaims([claim(requests)]);
    expect(read!.requests.map((r) => r.name)).toEqual(['r0']);
  });

  it('a constructor whose species throws is never consulted', () => {
    const requests: unknown[] = [
      { name: 'r0', exactly: { deviceClassName: 'gpu' } },
      { name: 'r1', exactly: { deviceClassName: 'gpu' } },
    ];
    Object.defineProperty(requests, 'constructor', {
      value: {
        get [Symbol.species]() {
          throw new Error('species read');
        },
      },
    });
    expect(readResourceClaims([claim(requests)])[0]!.requests.map((r) => r.name)).toEqual(['r0', 'r1']);
  });

  it('an object whose proxy traps throw is refused with an AllocationError naming the item, not the trap', () => {
    const trap = () => {
      throw new TypeError('trap');
    };
    const proxy = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
    let caught: unknown;
    try {
      readResourceSlices([proxy], 'slices');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AllocationError);
    expect((caught as AllocationError).code).toBe('INVALID_ARGUMENT');
    expect((caught as AllocationError).message).toContain('slices[0]');
    expect((caught as AllocationError).message).toContain('TypeError: trap');
  });
});
