// Devices read in one call share what they have in common (equal attribute maps, plain capacity
// maps, quantities of one text, empty lists), frozen; devices that differ in anything, however the
// difference is spelt, keep their own values, and every device is still read and checked in full.
import { describe, expect, it } from 'vitest';
import { readResourceSlices } from '../../src/dra/index.js';
import { AllocationError } from '../../src/index.js';
import { type Obj, sliceObject } from '../support/dra-objects.js';

const read = (devices: Obj[]) => readResourceSlices([sliceObject('s', { devices })])[0]!.devices;

describe('devices read together share equal values', () => {
  it('gives equal devices one frozen attribute map, capacity map and empty lists', () => {
    const gpu = (name: string): Obj => ({ name, attributes: { model: { string: 'A100' }, numa: { int: 0 } }, capacity: { memory: { value: '1Gi' } } });
    const [a, b] = readResourceSlices([sliceObject('s-1', { devices: [gpu('gpu-0')] }), sliceObject('s-2', { devices: [gpu('gpu-1')] }, { node: 'node-2' })]).map((s) => s.devices[0]!);
    expect(a!.name).toBe('gpu-0');
    expect(b!.name).toBe('gpu-1');
    expect(b!.attributes).toBe(a!.attributes);
    expect(b!.capacity).toBe(a!.capacity);
    expect(b!.taints).toBe(a!.taints);
    expect(Object.isFrozen(a!.attributes) && Object.isFrozen(a!.capacity) && Object.isFrozen(a!.capacity.memory) && Object.isFrozen(a!.taints)).toBe(true);
    expect(() => {
      (a!.attributes as Record<string, unknown>).model = { string: 'H100' };
    }).toThrow(TypeError);
    expect(b!.attributes.model).toEqual({ string: 'A100' });
  });

  it('keeps apart values a careless key would confuse: types, names run together, separators in text', () => {
    const devices = read([
      { name: 'd0', attributes: { a: { string: '1' } } },
      { name: 'd1', attributes: { a: { int: 1 } } },
      { name: 'd2', attributes: { a: { version: '1' } } },
      { name: 'd3', attributes: { ab: { string: 'c' } } },
      { name: 'd4', attributes: { a: { string: 'bc' } } },
      { name: 'd5', attributes: { a: { int: 12 }, b: { int: 3 } } },
      { name: 'd6', attributes: { a: { int: 1 }, b: { int: 23 } } },
      { name: 'd7', attributes: { a: { string: '1:x' } } },
      { name: 'd8', attributes: { a: { bool: true } } },
      { name: 'd9', attributes: { a: {} } },
      { name: 'd10', attributes: { a: { strings: ['1'] } } },
    ]);
    const maps = devices.map((d) => d.attributes);
    expect(new Set(maps).size).toBe(maps.length);
    expect(maps.map((m) => JSON.stringify(m, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)))).toEqual([
      '{"a":{"string":"1"}}',
      '{"a":{"int":"1n"}}',
      '{"a":{"version":"1"}}',
      '{"ab":{"string":"c"}}',
      '{"a":{"string":"bc"}}',
      '{"a":{"int":"12n"},"b":{"int":"3n"}}',
      '{"a":{"int":"1n"},"b":{"int":"23n"}}',
      '{"a":{"string":"1:x"}}',
      '{"a":{"bool":true}}',
      '{"a":{}}',
      '{"a":{"strings":["1"]}}',
    ]);
  });

  it('keeps each capacity as read (1 and 1000m are equal, but only 1 is an integer to CEL) and a request policy unshared', () => {
    const policy = { default: '1Gi', validRange: { min: '1Gi' } };
    const devices = read([
      { name: 'd0', capacity: { memory: { value: '1' } } },
      { name: 'd1', capacity: { memory: { value: '1000m' } } },
      { name: 'd2', capacity: { memory: { value: '1Gi', requestPolicy: policy } } },
      { name: 'd3', capacity: { memory: { value: '1Gi', requestPolicy: policy } } },
      { name: 'd4', capacity: { memory: { value: '1' } } },
    ]);
    expect(devices.map((d) => d.capacity.memory!.value.asInt64())).toEqual([1n, undefined, 1073741824n, 1073741824n, 1n]);
    expect(devices[4]!.capacity).toBe(devices[0]!.capacity);
    expect(devices[1]!.capacity).not.toBe(devices[0]!.capacity);
    expect(devices[3]!.capacity).not.toBe(devices[2]!.capacity);
    expect(devices[3]!.capacity.memory!.requestPolicy?.default?.toString()).toBe('1Gi');
  });

  it('still checks a device equal to one read before but for a bad value, naming its path', () => {
    const good = { name: 'd0', attributes: { model: { string: 'A100' } }, capacity: { memory: { value: '1Gi' } } };
    const bad = { name: 'd1', attributes: { model: { string: 'A100' } }, capacity: { memory: { value: '1Gx' } } };
    let error: unknown;
    try {
      read([good, bad]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).message).toContain('spec.devices[1].capacity.memory.value');
  });

  it('reads a getter once: a value that changes on a second read is shared as first read', () => {
    let reads = 0;
    const tricky = { name: 'd1' } as Obj;
    const capacity = {} as Obj;
    Object.defineProperty(capacity, 'memory', { enumerable: true, get: () => ({ value: reads++ === 0 ? '2Gi' : '1Gi' }) });
    tricky.capacity = capacity;
    const devices = read([{ name: 'd0', capacity: { memory: { value: '1Gi' } } }, tricky, { name: 'd2', capacity: { memory: { value: '2Gi' } } }]);
    expect(reads).toBe(1);
    expect(devices.map((d) => d.capacity.memory!.value.toString())).toEqual(['1Gi', '2Gi', '2Gi']);
  });
});
