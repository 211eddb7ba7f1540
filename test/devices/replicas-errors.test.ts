// Malformed allocateReplicas requests: each throws AllocationError with a stable code naming the field and value.
import { describe, expect, it } from 'vitest';
import { AllocationError, type ERROR_CODES } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

const devices = ['gpu0::0', 'gpu0::1', 'gpu1::0', 'gpu1::1'];

const cases: Array<[string, unknown, keyof typeof ERROR_CODES, RegExp]> = [
  ['request is not an object', null, 'INVALID_ARGUMENT', /request: expected an object, got null/],
  ['devices is not an array', { devices: 'gpu0', available: [], size: 0 }, 'INVALID_ARGUMENT', /devices: expected an array, got "gpu0"/],
  ['available is missing', { devices, size: 0 }, 'INVALID_ARGUMENT', /available: expected an array, got undefined/],
  ['a device ID is not a string', { devices: ['a', 7], available: [], size: 0 }, 'INVALID_ARGUMENT', /devices\[1\]: expected a string, got 7/],
  ['required is not an array', { devices, available: devices, required: 'gpu0::0', size: 1 }, 'INVALID_ARGUMENT', /required: expected an array/],
  ['available names an unknown ID', { devices, available: ['gpu0::0', 'gpu9::0'], size: 1 }, 'UNKNOWN_DEVICE_ID', /available\[1\]: expected an ID listed in devices, got "gpu9::0"/],
  ['required names an unknown ID', { devices, available: devices, required: ['nope'], size: 1 }, 'UNKNOWN_DEVICE_ID', /required\[0\]: expected an ID listed in devices, got "nope"/],
  ['devices has a duplicate', { devices: ['a', 'b', 'a'], available: [], size: 0 }, 'DUPLICATE_DEVICE', /devices\[2\]: expected an ID not already at devices\[0\], got "a"/],
  ['available has a duplicate', { devices, available: ['gpu1::0', 'gpu1::0'], size: 1 }, 'DUPLICATE_DEVICE', /available\[1\].*"gpu1::0"/],
  ['required has a duplicate', { devices, available: devices, required: ['gpu0::1', 'gpu0::1'], size: 3 }, 'DUPLICATE_DEVICE', /required\[1\].*"gpu0::1"/],
  ['required is not available', { devices, available: ['gpu0::0'], required: ['gpu1::1'], size: 2 }, 'REQUIRED_NOT_AVAILABLE', /required\[0\]: expected an ID listed in available, got "gpu1::1"/],
  ['required is longer than size', { devices, available: devices, required: ['gpu0::0', 'gpu1::0'], size: 1 }, 'TOO_MANY_REQUIRED', /required: expected at most size = 1 IDs/],
  ['size is negative', { devices, available: devices, size: -1 }, 'INVALID_ARGUMENT', /size: .*got -1/],
  ['size is fractional', { devices, available: devices, size: 1.5 }, 'INVALID_ARGUMENT', /size: expected a non-negative integer, got 1.5/],
  ['size is NaN', { devices, available: devices, size: Number.NaN }, 'INVALID_ARGUMENT', /size: expected a non-negative integer, got NaN/],
  ['size is a string', { devices, available: devices, size: '2' }, 'INVALID_ARGUMENT', /size: expected a non-negative integer, got "2"/],
  ['size is missing', { devices, available: devices }, 'INVALID_ARGUMENT', /size: expected a non-negative integer, got undefined/],
  ['unknown policy', { devices, available: devices, size: 1, policy: 'binpack' }, 'UNKNOWN_POLICY', /policy: expected one of 'distributed', 'pack', 'spread', got "binpack"/],
  ['policy of the wrong case', { devices, available: devices, size: 1, policy: 'Packed' }, 'UNKNOWN_POLICY', /policy: .*got "Packed"/],
  [
    "the device plugin's spelling 'packed' (accepted only in its config file)",
    { devices, available: devices, size: 1, policy: 'packed' },
    'UNKNOWN_POLICY',
    /^policy: expected one of 'distributed', 'pack', 'spread', got "packed" \(did you mean pack\? 'packed' is the device plugin's spelling, accepted in its config file\)$/,
  ],
  ['devices over the ID limit', { devices: new Array(1_000_001).fill('x'), available: [], size: 0 }, 'LIMIT_EXCEEDED', /devices: expected at most 1000000 items/],
  ['parents is not an object', { devices, available: devices, size: 1, parents: ['x'] }, 'INVALID_ARGUMENT', /parents: expected an object/],
  ['a parent key is not a string', { devices, available: devices, size: 1, parents: { 'gpu0::0': 3 } }, 'INVALID_ARGUMENT', /parents\["gpu0::0"\]: expected a string, got 3/],
];

describe('allocateReplicas rejects malformed input', () => {
  for (const [name, request, code, message] of cases) {
    it(`${name} → ${code}`, () => {
      for (const e of [wasm, ts]) {
        let thrown: unknown;
        try {
          e.allocateReplicas(request as never);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(AllocationError);
        expect((thrown as AllocationError).code).toBe(code);
        expect((thrown as AllocationError).message).toMatch(message);
      }
    });
  }

  it('an error leaves the engine usable and the inputs untouched', () => {
    const request = { devices: devices.slice(), available: ['gpu0::0', 'gpu0::0'], size: 1 };
    expect(() => wasm.allocateReplicas(request)).toThrow(AllocationError);
    expect(request.available).toEqual(['gpu0::0', 'gpu0::0']);
    expect(wasm.allocateReplicas({ devices, available: devices, size: 1 })).toEqual({ devices: ['gpu0::0'] });
  });

  it('malformed input is reported before infeasibility', () => {
    expect(() => ts.allocateReplicas({ devices, available: ['zzz'], size: 99 })).toThrow(/available\[0\]/);
  });
});
