// Readers for the objects `kubectl get … -o json` prints: DeviceClass, ResourceSlice, ResourceClaim
// (resource.k8s.io/v1) and Node (v1), one object, a typed List (`DeviceClassList` …), a mixed
// `List`, or a plain array of objects. Strict: a wrong apiVersion or kind, an unknown field, a wrong
// type or a malformed quantity is an AllocationError naming the object, the field path and the value.

import { fail } from '../../shared/validate.js';
import { readClaimSpec, readClassSpec } from './read-claim.js';
import type { At } from './read-core.js';
import { child, field, guarded, map, name, record, str, stringMap } from './read-core.js';
import { readSliceSpec, SliceShare } from './read-slice.js';
import type { DeviceClass, Node, ResourceClaim, ResourceSlice } from './types.js';

/** The API group version of the DRA objects read here. */
export const RESOURCE_API_VERSION = 'resource.k8s.io/v1';

/** The kinds this module reads. */
export type DraKind = 'DeviceClass' | 'ResourceSlice' | 'ResourceClaim' | 'Node';

const TOP = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;
const LIST_TOP = ['apiVersion', 'kind', 'metadata', 'items'] as const;
// ObjectMeta as the API server returns it; only name, namespace, uid and labels are used.
const METADATA = [
  'name',
  'namespace',
  'uid',
  'labels',
  'annotations',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generateName',
  'ownerReferences',
  'finalizers',
  'managedFields',
  'selfLink',
] as const;

const API_VERSION: Record<DraKind, string> = { DeviceClass: RESOURCE_API_VERSION, ResourceSlice: RESOURCE_API_VERSION, ResourceClaim: RESOURCE_API_VERSION, Node: 'v1' };

/** Everything read from a mixed dump (`kubectl get deviceclasses,resourceslices,resourceclaims,nodes -o json`). */
export interface DraObjects {
  classes: DeviceClass[];
  slices: ResourceSlice[];
  claims: ResourceClaim[];
  nodes: Node[];
}

type Item = { kind: DraKind; object: DeviceClass | ResourceSlice | ResourceClaim | Node };

/**
 * The items of `input`: one object, an array of objects, or a List (`kind: List` or `<Kind>List`).
 * `where` names the input in messages (a file name or a request field). `only` restricts the kinds.
 */
// What slices read in one call share: made only where slices may be read (a claim or a node read makes none).
function readItems(where: string, input: unknown, only?: DraKind, share = only === undefined || only === 'ResourceSlice' ? new SliceShare() : undefined): Item[] {
  return guarded(where, () => readItemsOf(where, input, only, share));
}

function readItemsOf(where: string, input: unknown, only: DraKind | undefined, share: SliceShare | undefined): Item[] {
  if (Array.isArray(input)) {
    const out: Item[] = [];
    for (let i = 0; i < input.length; i++) for (const item of readItems(`${where}[${i}]`, input[i], only, share)) out.push(item);
    return out;
  }
  const top = map({ origin: where, path: '' }, input);
  const kind = field(top, 'kind');
  if (typeof kind === 'string' && (kind === 'List' || kind.endsWith('List'))) {
    const at: At = { origin: where, path: '' };
    record(at, top, LIST_TOP);
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
    if (itemKind !== undefined && !(itemKind in API_VERSION)) fail('INVALID_ARGUMENT', child(at, 'kind'), `a List of ${Object.keys(API_VERSION).join(', ')}`, kind);
    if (itemKind !== undefined && only !== undefined && itemKind !== only) fail('INVALID_ARGUMENT', child(at, 'kind'), `${only} or ${only}List`, kind);
    const items = field(top, 'items');
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) fail('INVALID_ARGUMENT', child(at, 'items'), 'a list', items);
    return items.map((item, i) => {
      let value: unknown = item;
      if (itemKind !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value) && field(value as Record<string, unknown>, 'kind') === undefined) {
        value = { apiVersion: API_VERSION[itemKind as DraKind], kind: itemKind, ...(value as Record<string, unknown>) };
      }
      const read = readOne(`${where} items[${i}]`, value, only, share);
      // Items of a typed List may omit apiVersion/kind (the List carries them).
      if (itemKind !== undefined && read.kind !== itemKind) fail('INVALID_ARGUMENT', { origin: `${where} items[${i}]`, path: 'kind' }, itemKind, read.kind);
      return read;
    });
  }
  return [readOne(where, input, only, share)];
}

function readOne(where: string, input: unknown, only: DraKind | undefined, share: SliceShare | undefined): Item {
  return guarded(where, () => readOneOf(where, input, only, share));
}

function readOneOf(where: string, input: unknown, only: DraKind | undefined, share: SliceShare | undefined): Item {
  const at0: At = { origin: where, path: '' };
  const top = map(at0, input);
  const kinds = only === undefined ? (Object.keys(API_VERSION) as DraKind[]) : [only];
  const kind = field(top, 'kind');
  if (typeof kind !== 'string' || !(kinds as string[]).includes(kind)) fail('INVALID_ARGUMENT', child(at0, 'kind'), kinds.map((k) => JSON.stringify(k)).join(' or '), kind);
  const k = kind as DraKind;
  // The object's name, once known, is how every later message names it.
  const metaRaw = field(top, 'metadata');
  const metaAt = child(at0, 'metadata');
  const meta = record(metaAt, metaRaw ?? fail('INVALID_ARGUMENT', metaAt, 'an object (required)', metaRaw), METADATA);
  const objName = name(child(metaAt, 'name'), field(meta, 'name'));
  const namespace = str(child(metaAt, 'namespace'), field(meta, 'namespace'));
  const label = `${k}/${namespace !== undefined && namespace !== '' ? `${namespace}/` : ''}${objName}`;
  const at: At = { origin: label, path: '' };
  record(at, top, TOP);
  const apiVersion = field(top, 'apiVersion');
  if (apiVersion !== API_VERSION[k]) fail('INVALID_ARGUMENT', child(at, 'apiVersion'), JSON.stringify(API_VERSION[k]), apiVersion);
  const labels = stringMap(child(child(at, 'metadata'), 'labels'), field(meta, 'labels'));
  const spec = field(top, 'spec');
  const specAt = child(at, 'spec');
  switch (k) {
    case 'Node':
      // spec and status of a Node (taints, capacity, conditions …) are not used by the allocator.
      if (spec !== undefined && spec !== null) map(specAt, spec);
      return { kind: k, object: { name: objName, labels } };
    case 'DeviceClass':
      return { kind: k, object: readClassSpec(specAt, objName, spec) };
    case 'ResourceSlice':
      return { kind: k, object: readSliceSpec(specAt, objName, spec ?? fail('INVALID_ARGUMENT', specAt, 'an object (required)', spec), share ?? new SliceShare()) };
    default: {
      const claim: Pick<ResourceClaim, 'name' | 'namespace' | 'uid'> = { name: objName };
      if (namespace !== undefined && namespace !== '') claim.namespace = namespace;
      const uid = str(child(child(at, 'metadata'), 'uid'), field(meta, 'uid'));
      if (uid !== undefined && uid !== '') claim.uid = uid;
      return { kind: k, object: readClaimSpec(specAt, claim, spec) };
    }
  }
}

/** Reads DeviceClass objects (one, an array or a List). */
export function readDeviceClasses(input: unknown, where = 'classes'): DeviceClass[] {
  return readItems(where, input, 'DeviceClass').map((i) => i.object as DeviceClass);
}

/** Reads ResourceSlice objects (one, an array or a List). */
export function readResourceSlices(input: unknown, where = 'slices'): ResourceSlice[] {
  return readItems(where, input, 'ResourceSlice').map((i) => i.object as ResourceSlice);
}

/** Reads ResourceClaim objects (one, an array or a List). */
export function readResourceClaims(input: unknown, where = 'claims'): ResourceClaim[] {
  return readItems(where, input, 'ResourceClaim').map((i) => i.object as ResourceClaim);
}

/** Reads Node objects (one, an array or a List). */
export function readNodes(input: unknown, where = 'nodes'): Node[] {
  return readItems(where, input, 'Node').map((i) => i.object as Node);
}

/** Reads a mixed dump of all four kinds (a `List` of any of them, or an array), split by kind in input order. */
export function readDraObjects(input: unknown, where = 'objects'): DraObjects {
  const out: DraObjects = { classes: [], slices: [], claims: [], nodes: [] };
  for (const item of readItems(where, input)) {
    if (item.kind === 'DeviceClass') out.classes.push(item.object as DeviceClass);
    else if (item.kind === 'ResourceSlice') out.slices.push(item.object as ResourceSlice);
    else if (item.kind === 'ResourceClaim') out.claims.push(item.object as ResourceClaim);
    else out.nodes.push(item.object as Node);
  }
  return out;
}
