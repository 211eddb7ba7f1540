// The upstream allocator test table (data/dra/upstream-allocator-cases.json) and the comparison its
// README prescribes: results per claim in order; device results as a multiset or in exact order;
// share IDs as "set or not"; quantities by value; node selectors ignoring order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DraAllocateRequest } from '../../src/dra/index.js';
import { Quantity } from '../../src/dra/testing.js';

export interface UpstreamCase {
  name: string;
  sourceLine: number;
  features: Record<string, boolean>;
  classes: unknown[];
  slices: unknown[];
  claims: unknown[];
  node: unknown;
  allocatedDevices?: string[];
  allocatedSharedDeviceIDs?: string[];
  allocatedCapacity?: Record<string, Record<string, string>>;
  expect: { results?: unknown[]; unschedulable?: true; errorContains?: string };
  deviceResultsAnyOrder?: boolean;
  expectAllocateOneInvocations?: number | { default: number; stable: number };
}

const FILE = join(import.meta.dirname, '..', '..', 'data', 'dra', 'upstream-allocator-cases.json');

/** Every case: the 219 of TestAllocator, then the 4 lexicographical ones. */
export function upstreamCases(): UpstreamCase[] {
  const table = JSON.parse(readFileSync(FILE, 'utf8')) as { cases: UpstreamCase[]; lexicographical: UpstreamCase[] };
  return [...table.cases, ...table.lexicographical];
}

/** The allocateClaims request of a case (its features exactly: unlisted ones are off). */
export function requestOf(c: UpstreamCase, mode: DraAllocateRequest['mode'] = 'first-fit'): DraAllocateRequest {
  const request: DraAllocateRequest = { classes: c.classes, slices: c.slices, claims: c.claims, node: c.node, features: c.features, mode };
  if (c.allocatedDevices !== undefined) request.allocatedDevices = c.allocatedDevices;
  if (c.allocatedSharedDeviceIDs !== undefined) request.allocatedSharedDeviceIDs = c.allocatedSharedDeviceIDs;
  if (c.allocatedCapacity !== undefined) request.allocatedCapacity = c.allocatedCapacity;
  return request;
}

/** The feature names a case counts under ('none' for a case with no feature). */
export function featureNames(c: UpstreamCase): string[] {
  const names = Object.keys(c.features).filter((k) => c.features[k]);
  return names.length === 0 ? ['none'] : names;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A device result with share IDs reduced to "set" and quantities to their exact value. */
function normalizeDeviceResult(r: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = { ...r };
  if (out.shareID !== undefined) out.shareID = 'set';
  if (out.consumedCapacity !== undefined) {
    const cap: Record<string, Json> = {};
    for (const [k, v] of Object.entries(out.consumedCapacity as Record<string, string>)) cap[k] = Quantity.parse(v).nanoValue().toString();
    out.consumedCapacity = cap;
  }
  return out;
}

/** Canonical JSON with sorted keys. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, (v as Record<string, unknown>)[k]]),
      );
    }
    return v;
  });
}

/** A node selector with terms, requirements and values sorted. */
function normalizeSelector(selector: unknown): string {
  if (selector === undefined) return 'none';
  const s = selector as { nodeSelectorTerms: Array<{ matchExpressions?: Array<{ values?: string[] }>; matchFields?: Array<{ values?: string[] }> }> };
  const terms = s.nodeSelectorTerms.map((t) => {
    const norm = (list: Array<{ values?: string[] }> | undefined) => (list ?? []).map((r) => canonical({ ...r, values: [...(r.values ?? [])].sort() })).sort();
    return canonical({ e: norm(t.matchExpressions), f: norm(t.matchFields) });
  });
  return canonical(terms.sort());
}

/** Why `actual` does not match `expected` for one claim, or undefined when it does. */
export function compareResult(actual: unknown, expected: unknown, anyOrder: boolean): string | undefined {
  const a = actual as { devices: { results: Array<Record<string, Json>>; config?: unknown }; nodeSelector?: unknown; allocationTimestamp?: unknown };
  const e = expected as typeof a;
  const aResults = a.devices.results.map(normalizeDeviceResult).map(canonical);
  const eResults = (e.devices?.results ?? []).map(normalizeDeviceResult).map(canonical);
  if (anyOrder) {
    if (canonical([...aResults].sort()) !== canonical([...eResults].sort()))
      return `device results differ:\n  got      ${aResults.join('\n           ')}\n  expected ${eResults.join('\n           ')}`;
    if (a.devices.config !== undefined) return `devices.config present: ${canonical(a.devices.config)}`;
    if (a.allocationTimestamp !== undefined) return 'allocationTimestamp present';
    if (normalizeSelector(a.nodeSelector) !== normalizeSelector(e.nodeSelector)) return `nodeSelector differs: got ${canonical(a.nodeSelector)}, expected ${canonical(e.nodeSelector)}`;
    return undefined;
  }
  const strip = (r: typeof a) => ({ ...r, devices: { ...r.devices, results: r.devices.results.map(normalizeDeviceResult) } });
  const got = canonical(strip(a));
  const want = canonical(strip({ ...e, devices: { results: e.devices?.results ?? [], ...(e.devices?.config !== undefined ? { config: e.devices.config } : {}) } }));
  return got === want ? undefined : `result differs:\n  got      ${got}\n  expected ${want}`;
}
