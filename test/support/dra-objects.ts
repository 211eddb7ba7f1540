// The Kubernetes DRA objects the DRA tests build from (resource.k8s.io/v1 as `kubectl get -o json`
// prints them), with the defaults most tests share: one driver, one node `node-1` and its pool.
// Each builder takes what varies and spreads the rest over the defaults.

/** The DRA API version. */
export const V1 = 'resource.k8s.io/v1';
/** The driver of the tests' devices. */
export const DRIVER = 'gpu.example.com';

/** A JSON object as the readers take it. */
export type Obj = Record<string, unknown>;
/** An object with a spec (DeviceClass, ResourceSlice, ResourceClaim), for tests that spread it. */
export type SpecObject = Obj & { spec: Obj };

/** A Node with labels. */
export function nodeObject(name = 'node-1', labels: Record<string, string> = { zone: 'a' }): Obj {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}

/** A DeviceClass whose selectors are the given CEL expressions (by default: every device of `DRIVER`). */
export function classObject(name: string, expressions: readonly string[] = [`device.driver == "${DRIVER}"`]): SpecObject {
  return { apiVersion: V1, kind: 'DeviceClass', metadata: { name }, spec: { selectors: expressions.map((expression) => ({ cel: { expression } })) } };
}

/**
 * A ResourceSlice of `DRIVER` on `node` (default node-1), in pool `pool` (default: named after the
 * node; generation 1, one slice); `spec` adds or overrides spec fields, `extra` top-level ones.
 */
export function sliceObject(name: string, spec: Obj = {}, where: { node?: string; pool?: string } = {}, extra: Obj = {}): SpecObject {
  const node = where.node ?? 'node-1';
  return {
    apiVersion: V1,
    kind: 'ResourceSlice',
    metadata: { name },
    spec: { driver: DRIVER, pool: { name: where.pool ?? node, generation: 1, resourceSliceCount: 1 }, nodeName: node, ...spec },
    ...extra,
  };
}

/** A ResourceClaim with its spec (`{ devices: { requests, constraints } }`) in namespace `ns`. */
export function claimObject(name: string, spec: Obj, namespace = 'ns'): SpecObject {
  return { apiVersion: V1, kind: 'ResourceClaim', metadata: { name, namespace }, spec };
}

/** A request for `count` devices of class `className` (ExactCount); `extra` adds fields (selectors, capacity, tolerations). */
export function exactRequest(name: string, className: string, count: number, extra: Obj = {}): Obj {
  return { name, exactly: { deviceClassName: className, allocationMode: 'ExactCount', count, ...extra } };
}

/** The AllocationError a call throws: the one helper every suite uses. */
export { errorOf } from './engines.js';
