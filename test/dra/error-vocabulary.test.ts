// The DRA room speaks every room's error vocabulary: a reader failure is shared/validate's
// (origin = the object, field and path, expected, received); the value libraries' errors
// (QuantityError, CelCompileError, CelRuntimeError) leave the room only as AllocationErrors with
// the library error as the cause; names from the input are bounded in messages; the reason for
// claims that cannot be allocated is a code of REASON_CODES.
import { describe, expect, it } from 'vitest';
import { allocateClaims, createDraCluster, type DraAllocateRequest, readResourceSlices } from '../../src/dra/index.js';
import { CelCompileError, CelRuntimeError, QuantityError } from '../../src/dra/testing.js';
import { REASON_CODES } from '../../src/shared/errors.js';
import { claimObject, classObject, errorOf, exactRequest, nodeObject, sliceObject } from '../support/dra-objects.js';

const gpus = (n: number) => sliceObject('node-1-gpus', { devices: Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, attributes: { model: { string: 'a' } } })) });
const request = (expressions: string[], count = 1, devices = 1): DraAllocateRequest => ({
  classes: [classObject('gpu', expressions)],
  slices: [gpus(devices)],
  claims: [claimObject('c', { devices: { requests: [exactRequest('r', 'gpu', count)] } })],
  node: nodeObject(),
});

describe('DRA errors in the shared vocabulary', () => {
  it('says a malformed field with its object as the origin, the path, what was expected and what was there', () => {
    const e = errorOf(() => readResourceSlices(sliceObject('slice-1', { pool: { name: 'p', generation: '1', resourceSliceCount: 1 } })));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toBe('ResourceSlice/slice-1: spec.pool.generation: expected an integer, got "1"');
    expect(e.origin).toBe('ResourceSlice/slice-1');
    expect(e.field).toBe('spec.pool.generation');
    expect(e.path).toEqual(['spec', 'pool', 'generation']);
    expect(e.expected).toBe('an integer');
    expect(e.received).toBe('"1"');
  });

  it('says an input that is not an object by its name alone, with no empty field', () => {
    const e = errorOf(() => readResourceSlices(5));
    expect(e.message).toBe('slices: expected an object, got 5');
    expect(e.origin).toBe('slices');
    expect(e.field).toBeUndefined();
  });

  it('turns a QuantityError into an AllocationError at the field, upstream words as a note and the error as the cause', () => {
    const e = errorOf(() => readResourceSlices(sliceObject('slice-1', { devices: [{ name: 'gpu-0', capacity: { memory: { value: '12XiB' } } }] })));
    expect(e.cause).toBeInstanceOf(QuantityError);
    const why = (e.cause as QuantityError).message;
    expect(e.message).toBe(`ResourceSlice/slice-1: spec.devices[0].capacity.memory.value: expected a quantity such as "4Gi", got "12XiB" (${why})`);
    expect(e.notes).toEqual([why]);
    expect([e.origin, e.field, e.expected, e.received]).toEqual(['ResourceSlice/slice-1', 'spec.devices[0].capacity.memory.value', 'a quantity such as "4Gi"', '"12XiB"']);
  });

  it('bounds a huge name from the input in the message', () => {
    const e = errorOf(() => readResourceSlices(sliceObject('x'.repeat(100_000), { pool: { name: 'p', generation: '1', resourceSliceCount: 1 } })));
    expect(e.message.length).toBeLessThan(2200);
    expect(e.message).toContain('… (100014 chars): spec.pool.generation: expected an integer');
  });

  it('turns CEL compile and runtime errors into DRA_REJECTED AllocationErrors, the CEL error as the cause', () => {
    const compile = errorOf(() => allocateClaims(request(['device.noSuchField == 1'])));
    expect(compile.code).toBe('DRA_REJECTED');
    expect(compile.cause).toBeInstanceOf(CelCompileError);
    expect(compile.message).toBe(`class gpu: selector #0: CEL compile error: ${(compile.cause as CelCompileError).message}`);
    const runtime = errorOf(() => allocateClaims(request(['device.attributes["gpu.example.com"].missing == "x"'])));
    expect(runtime.code).toBe('DRA_REJECTED');
    expect(runtime.cause).toBeInstanceOf(CelRuntimeError);
    expect(runtime.message).toBe(`class gpu: selector #0 on device gpu.example.com/node-1/gpu-0: CEL runtime error: ${(runtime.cause as CelRuntimeError).message}`);
  });

  it('says a selector that does not compile the same way from a cluster, before any node is tried', () => {
    const r = request(['device.noSuchField == 1']);
    const cluster = createDraCluster({ classes: r.classes, slices: r.slices, nodes: [r.node] });
    const e = errorOf(() => cluster.schedule(r.claims));
    expect(e.code).toBe('DRA_REJECTED');
    expect(e.cause).toBeInstanceOf(CelCompileError);
    expect(e.message).toBe(`class gpu: selector #0: CEL compile error: ${(e.cause as CelCompileError).message}`);
  });

  it('returns claims that cannot be allocated with a reason code of REASON_CODES, from one node and from a cluster', () => {
    const r = request(['device.driver == "gpu.example.com"'], 2);
    const none = allocateClaims(r);
    expect(none.reason?.code).toBe('UNSCHEDULABLE');
    expect(Object.keys(REASON_CODES)).toContain(none.reason?.code);
    const scheduled = createDraCluster({ classes: r.classes, slices: r.slices, nodes: [r.node] }).schedule(r.claims);
    expect(scheduled.reason?.code).toBe('UNSCHEDULABLE');
  });
});
