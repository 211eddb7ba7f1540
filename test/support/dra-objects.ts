// The Kubernetes DRA objects the DRA tests build from (resource.k8s.io/v1 as `kubectl get -o json`
// prints them), with the defaults most tests share: one driver, one node `node-1` and its pool.
// Each builder takes what varies and spreads the rest over the defaults.
import { expect } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';

/** The DRA API version. */
export const V1 = 'resource.k8s.io/v1';
/** The driver of the tests' devices. */
export const DRIVER = 'gpu.example.com';

/** A JSON object as the readers take it. */
export type Obj = Record<string, unknown>;

/** A Node with labels. */
export function nodeObject(name = 'node-1', labels: Record<string, string> = { zone: 'a' }): Obj {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}

/** A DeviceClass whose selectors are the given CEL expressions (by default: every device of `DRIVER`). */
export function classObject(name: string, expressions: readonly string[] = [`device.driver == "${DRIVER}"`]): Obj {
  return { apiVersion: V1, kind: 'DeviceClass', metadata: { name }, spec: { selectors: expressions.map((expression) => ({ cel: { expression } })) } };
}

/** A ResourceSlice of `node`'s pool (named after the node) from `DRIVER`; `spec` adds or overrides fields; `extra` top-level ones. */
export function sliceObject(name: string, spec: Obj = {}, node = 'node-1', extra: Obj = {}): Obj {
  return { apiVersion: V1, kind: 'ResourceSlice', metadata: { name }, spec: { driver: DRIVER, pool: { name: node, generation: 1, resourceSliceCount: 1 }, nodeName: node, ...spec }, ...extra };
}

/** A ResourceClaim with its spec (`{ devices: { requests, constraints } }`) in namespace `ns`. */
export function claimObject(name: string, spec: Obj, namespace = 'ns'): Obj {
  return { apiVersion: V1, kind: 'ResourceClaim', metadata: { name, namespace }, spec };
}

/** A request for `count` devices of class `className` (ExactCount); `extra` adds fields (selectors, capacity, tolerations). */
export function exactRequest(name: string, className: string, count: number, extra: Obj = {}): Obj {
  return { name, exactly: { deviceClassName: className, allocationMode: 'ExactCount', count, ...extra } };
}

/** The AllocationError `fn` throws (the test fails when it throws anything else or nothing). */
export function errorOf(fn: () => unknown): AllocationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AllocationError);
    return error as AllocationError;
  }
  throw new Error('expected an AllocationError');
}
