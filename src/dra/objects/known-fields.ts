// The fields of the v1 DRA objects this package knows, and what happens to a field it does not
// know (a newer Kubernetes wrote it). The API server of the version the readers follow would not
// store such a field, so the object is used without it, with a warning; where the field could
// change what may be allocated (a new kind of request, selector or constraint, a new option of a
// request) the claim is made one that upstream's allocator refuses ("unsupported … type"), since
// allocating it without the field could hand out what the field forbids. Strict reading makes
// every unknown field an error instead.
import type { PathSegment } from '../../shared/errors.js';

/** The Kubernetes minor release whose API the readers follow. */
export const KUBERNETES_VERSION = '1.36';

/** A field's shape: a leaf (`true`, never looked into), an object of known fields, a list or a map of one shape. */
type Shape = true | { fields: Record<string, Shape>; guard?: Guard } | { list: Shape } | { values: Shape };

/** What an unknown field inside an object of this shape does to the claim. */
type Guard = 'request' | 'body' | 'selector' | 'constraint';

const obj = (fields: Record<string, Shape>, guard?: Guard): Shape => (guard === undefined ? { fields } : { fields, guard });
const listOf = (shape: Shape): Shape => ({ list: shape });
const mapOf = (shape: Shape): Shape => ({ values: shape });

const NODE_SELECTOR = true;
const COUNTERS = mapOf(obj({ value: true }));
const TAINT = obj({ key: true, value: true, effect: true, timeAdded: true });
const SELECTORS = listOf(obj({ cel: obj({ expression: true }) }, 'selector'));
const TOLERATIONS = listOf(obj({ key: true, operator: true, value: true, effect: true, tolerationSeconds: true }));
const BODY_FIELDS = { deviceClassName: true, selectors: SELECTORS, allocationMode: true, count: true, tolerations: TOLERATIONS, capacity: obj({ requests: true }) } as const;
const OPAQUE = obj({ driver: true, parameters: true });
const CLAIM_SPEC = obj({
  devices: obj({
    requests: listOf(
      obj(
        {
          name: true,
          exactly: obj({ ...BODY_FIELDS, adminAccess: true }, 'body'),
          firstAvailable: listOf(obj({ name: true, ...BODY_FIELDS }, 'body')),
        },
        'request',
      ),
    ),
    constraints: listOf(obj({ requests: true, matchAttribute: true, distinctAttribute: true }, 'constraint')),
    config: listOf(obj({ requests: true, opaque: OPAQUE })),
  }),
});

/** The spec of each kind. */
export const SPEC_SHAPES: Readonly<Record<string, Shape>> = {
  DeviceClass: obj({ selectors: SELECTORS, config: listOf(obj({ opaque: OPAQUE })), extendedResourceName: true }),
  ResourceClaim: CLAIM_SPEC,
  ResourceClaimTemplate: obj({ metadata: true, spec: CLAIM_SPEC }),
  ResourceSlice: obj({
    driver: true,
    pool: obj({ name: true, generation: true, resourceSliceCount: true }),
    nodeName: true,
    nodeSelector: NODE_SELECTOR,
    allNodes: true,
    perDeviceNodeSelection: true,
    sharedCounters: listOf(obj({ name: true, counters: COUNTERS })),
    devices: listOf(
      obj({
        name: true,
        attributes: true,
        capacity: mapOf(obj({ value: true, requestPolicy: obj({ default: true, validValues: true, validRange: obj({ min: true, max: true, step: true }) }) })),
        consumesCounters: listOf(obj({ counterSet: true, counters: COUNTERS })),
        nodeName: true,
        nodeSelector: NODE_SELECTOR,
        allNodes: true,
        taints: listOf(TAINT),
        bindsToNode: true,
        bindingConditions: true,
        bindingFailureConditions: true,
        allowMultipleAllocations: true,
        nodeAllocatableResourceMappings: true,
      }),
    ),
  }),
};

/** One unknown field found in a spec. */
export interface UnknownField {
  /** Path from the object's root (`spec.devices[0].foo`). */
  path: PathSegment[];
  /** What was done: dropped (a warning), or the claim refused with upstream's error. */
  effect: 'dropped' | 'refused';
}

function copyWithout(value: Record<string, unknown>, drop: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!drop.has(key)) Object.defineProperty(out, key, { value: value[key], enumerable: true, writable: true, configurable: true });
  return out;
}

/** The object an unknown field inside `guard` turns into: one upstream refuses with its "unsupported" error. */
function refusedShape(guard: Guard, value: Record<string, unknown>): Record<string, unknown> {
  switch (guard) {
    case 'request':
      return typeof value.name === 'string' ? { name: value.name } : {};
    case 'body':
      return { ...(typeof value.name === 'string' ? { name: value.name } : {}), deviceClassName: '' };
    case 'selector':
      return {};
    default:
      return Array.isArray(value.requests) ? { requests: value.requests } : {};
  }
}

/**
 * The spec without the fields the shape does not know (a new value where something changed,
 * the input as it was otherwise) and the unknown fields found. `base` is the spec's path.
 */
export function pruneSpec(kind: string, spec: unknown, base: PathSegment[] = ['spec']): { spec: unknown; unknown: UnknownField[] } {
  const unknown: UnknownField[] = [];
  const shape = SPEC_SHAPES[kind];
  if (shape === undefined) return { spec, unknown };
  // Returns the value to keep and whether an unknown field below must refuse the nearest guard.
  const walk = (value: unknown, s: Shape, path: PathSegment[], guard: Guard | undefined): { value: unknown; refuse: boolean } => {
    if (s === true || value === null || typeof value !== 'object') return { value, refuse: false };
    if ('list' in s) {
      if (!Array.isArray(value)) return { value, refuse: false };
      let changed = false;
      let refuse = false;
      const out = value.map((item, i) => {
        const r = walk(item, s.list, [...path, i], guard);
        if (r.value !== item) changed = true;
        refuse ||= r.refuse;
        return r.value;
      });
      return { value: changed ? out : value, refuse };
    }
    if (Array.isArray(value)) return { value, refuse: false };
    const record = value as Record<string, unknown>;
    if ('values' in s) {
      let out: Record<string, unknown> | undefined;
      let refuse = false;
      for (const key of Object.keys(record)) {
        const r = walk(record[key], s.values, [...path, key], guard);
        refuse ||= r.refuse;
        if (r.value !== record[key]) Object.defineProperty((out ??= { ...record }), key, { value: r.value, enumerable: true, writable: true, configurable: true });
      }
      return { value: out ?? value, refuse };
    }
    const here = s.guard ?? guard;
    const drop = new Set<string>();
    let refuse = false;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(record)) {
      const known = Object.hasOwn(s.fields, key) ? s.fields[key] : undefined;
      if (known === undefined) {
        drop.add(key);
        unknown.push({ path: [...path, key], effect: here === undefined ? 'dropped' : 'refused' });
        if (here !== undefined) refuse = true;
        continue;
      }
      const r = walk(record[key], known, [...path, key], here);
      // A guarded object below refused itself and reports nothing; other refusals rise to the nearest guard.
      refuse ||= r.refuse;
      if (r.value !== record[key]) Object.defineProperty((out ??= { ...record }), key, { value: r.value, enumerable: true, writable: true, configurable: true });
    }
    let result: Record<string, unknown> = drop.size > 0 ? copyWithout(out ?? record, drop) : (out ?? record);
    if (refuse && s.guard !== undefined) {
      result = refusedShape(s.guard, result);
      return { value: result, refuse: false };
    }
    return { value: result, refuse };
  };
  return { spec: walk(spec, shape, base, undefined).value, unknown };
}
