// A pod's claims as the cluster handle checks them once, before any node is tried: upstream's
// checks that do not depend on the node (addClaims on a model without pools), the index's shape of
// their counted requests, and the models every node's allocator may then take as they are.
import type { SelectorCache } from '../cel/index.js';
import { type AllocatedSnapshot, AllocationModel, addClaims, type ClaimModel, type RequestModel, type ResolvedFeatures, Selectors } from '../model/index.js';
import type { AllocationResult, DeviceClass, Node, ResourceClaim } from '../objects/index.js';
import { countKey, isIdentityAttribute, selectorKey, selectorsReadIdentity } from './node-classes.js';
import type { CountedAlternative } from './node-index.js';

/** A pod's claims as checked once for every node tried: their models, and each request's selector key (the node classes' masks are found by it). */
export interface CheckedClaims {
  models: readonly ClaimModel[];
  selectorKeys: ReadonlyMap<RequestModel, string>;
}

/** The node and allocated state of the models that check claims (no pools: nothing of a node is read). */
const NO_NODE: Node = { name: '', labels: {} };
const NOTHING_ALLOCATED: AllocatedSnapshot = { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() };

/**
 * The claims' checks that do not depend on the node (addClaims, then every selector compiled), each
 * request's alternatives as the index counts them, and the claims as checked (the models every
 * node's allocator may take as they are, unless one asks for all devices).
 */
export function checkClaimModels(
  claims: readonly ResourceClaim[],
  features: ResolvedFeatures,
  classes: readonly DeviceClass[],
  cache: SelectorCache,
): { groups: CountedAlternative[][]; models: readonly ClaimModel[] } {
  const probe = new AllocationModel(NO_NODE, features, [], NOTHING_ALLOCATED, cache);
  addClaims(probe, claims, classes);
  const selectors = new Selectors(features, cache);
  const groups: CountedAlternative[][] = [];
  for (const claim of probe.claims) {
    for (const group of claim.groups) {
      for (const r of group.alternatives) {
        selectors.compileAll(
          `class ${r.deviceClass.name}`,
          r.deviceClass.selectors.map((s) => s.cel?.expression),
        );
        selectors.compileAll(
          `claim ${claim.label}`,
          r.body.selectors.map((s) => s.cel?.expression),
        );
      }
      groups.push(group.alternatives.map((r) => ({ request: r, need: r.count, all: r.allMode, admin: r.adminAccess })));
    }
  }
  return { groups, models: probe.claims };
}

/** The node index's key of the counted requests' shape, and each request's selector key on the way. */
export function shapeKeyOf(groups: readonly CountedAlternative[][], features: ResolvedFeatures): { key: string; selectorKeys: Map<RequestModel, string> } {
  const selectorKeys = new Map<RequestModel, string>();
  const key = JSON.stringify(
    groups.map((g) =>
      g.map((a) => {
        const selector = selectorKey(a.request);
        selectorKeys.set(a.request, selector);
        return [countKey(a.request, features, selector), a.need, a.all, a.admin];
      }),
    ),
  );
  return { key, selectorKeys };
}

/** Whether the claims may read an identity attribute (selectors of their requests and classes, or a constraint's attribute). */
export function readsIdentity(claims: readonly ResourceClaim[], groups: readonly CountedAlternative[][]): boolean {
  for (const claim of claims) for (const c of claim.constraints) if (isIdentityAttribute(c.matchAttribute ?? c.distinctAttribute ?? '')) return true;
  return groups.some((g) => g.some((a) => selectorsReadIdentity([...a.request.deviceClass.selectors, ...a.request.body.selectors].map((s) => s.cel?.expression))));
}

/** The sum over the claims' results of each one's position in its request's firstAvailable (0: every request got its first choice). */
export function rankOf(claims: readonly ResourceClaim[], results: readonly AllocationResult[]): number {
  let rank = 0;
  results.forEach((result, i) => {
    for (const r of result.devices.results) {
      const slash = r.request.indexOf('/');
      if (slash < 0) continue;
      // One result per claim, in order.
      const request = claims[i]!.requests.find((q) => q.name === r.request.slice(0, slash));
      const at = request?.firstAvailable.findIndex((sub) => sub.name === r.request.slice(slash + 1)) ?? -1;
      if (at > 0) rank += at;
    }
  });
  return rank;
}

/** A deep copy of JSON data (an AllocationResult), so that what the handle keeps and what callers get never alias. */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copyJson((value as Record<string, unknown>)[key]);
    // A key such as `__proto__` (a capacity name) is defined, not assigned, so that it stays an ordinary key.
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out as T;
}
