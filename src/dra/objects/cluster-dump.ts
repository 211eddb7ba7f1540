// A cluster as `kubectl get deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates,
// pods,nodes -A -o yaml` (or -o json) writes it: every object by kind, DRA objects of any served
// version converted to v1, fields this package does not know handled as known-fields.ts says,
// DeviceTaintRules applied to the devices they select, PodGroups (scheduling.k8s.io/v1alpha2) read
// for gangs, and every other kind counted and skipped.
import { AllocationError, type FilePosition, type PathSegment } from '../../shared/errors.js';
import { describeValue, keysOf, own, readInput, rejectUnknownKeys, requireBoolean, requireObject } from '../../shared/validate.js';
import { type DraDocuments, objectsOf } from './documents.js';
import { KUBERNETES_VERSION, pruneSpec } from './known-fields.js';
import { type ClaimTemplate, type NodeInfo, type PodInfo, readClaimTemplate, readNodeInfo, readPod, readTaintRule, type TaintRule } from './pods.js';
import { POD_GROUP_API_VERSION, type PodGroupInfo, readPodGroup } from './read-pod-group.js';
import { readResourceClaims } from './readers.js';
import { invalidMessage, validateClaimSpec, validateClassSpec, validateSliceSpec } from './validation.js';
import { SERVED_VERSIONS, toServedVersion } from './versions.js';

/** Where an object of the dump stands: its document and path, and the line and column when known. */
export interface DumpPlace {
  doc: number;
  path: PathSegment[];
}

/** Everything a dump holds that the scheduler uses. DRA objects are raw v1 objects for the strict readers. */
export interface ClusterDump {
  classes: unknown[];
  slices: unknown[];
  claims: unknown[];
  nodes: unknown[];
  /** The same nodes as the scheduler's filters read them. */
  nodeInfos: NodeInfo[];
  pods: PodInfo[];
  templates: ClaimTemplate[];
  taintRules: TaintRule[];
  /** PodGroups (scheduling.k8s.io/v1alpha2): the groups pods name in spec.schedulingGroup. */
  podGroups: PodGroupInfo[];
  /** Objects of kinds the scheduler does not use, counted by kind. */
  skipped: Record<string, number>;
  /** What was dropped or refused, one line each. */
  warnings: string[];
  /**
   * Claims and templates the API server would refuse (`namespace/name` → its message): the pods
   * using them are reported INVALID; the others are scheduled.
   */
  invalid: Map<string, string>;
  /** Where each DRA object stands, by `Kind/name` or `Kind/namespace/name` (what error messages call it). */
  places: Map<string, DumpPlace>;
  /**
   * The file and the line and column of an object (by the name messages call it) and a field path
   * in it (`spec.devices[3].name`), for an error found later (createDraCluster reads the slices).
   */
  locate(object: string, field?: string): { origin: string; position?: FilePosition } | undefined;
}

/** A field path as messages write it (`spec.devices[3]["a/b"]`) in segments. */
export function pathSegments(field: string): PathSegment[] {
  return [...field.matchAll(/[^.[\]"]+|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? (JSON.parse(`"${m[2]}"`) as string) : m[0]));
}

/** Options of readClusterDump. */
export interface ClusterDumpOptions {
  /** Every unknown field is an error (default: ignored in metadata and status, warned about in spec). */
  strict?: boolean;
  /** Put the DeviceTaintRules' taints on the slices' devices (default true; false for a caller that merges dumps first). */
  applyTaintRules?: boolean;
}

const DUMP_OPTION_KEYS = keysOf<ClusterDumpOptions>()(['strict', 'applyTaintRules']);

/** readClusterDump's options, checked: an object of known keys (did-you-mean) with boolean values. */
function dumpOptions(options: ClusterDumpOptions): ClusterDumpOptions {
  const o = requireObject('options', readInput('options', options));
  rejectUnknownKeys('options', o, DUMP_OPTION_KEYS);
  if (o.strict !== undefined) requireBoolean('options.strict', o.strict);
  if (o.applyTaintRules !== undefined) requireBoolean('options.applyTaintRules', o.applyTaintRules);
  return o as ClusterDumpOptions;
}

const DRA_KINDS = new Set(['DeviceClass', 'ResourceSlice', 'ResourceClaim', 'ResourceClaimTemplate', 'DeviceTaintRule']);

function labelOf(kind: string, object: Record<string, unknown>): string | undefined {
  const meta = own(object, 'metadata');
  if (meta === null || typeof meta !== 'object') return undefined;
  const n = own(meta as Record<string, unknown>, 'name');
  const ns = own(meta as Record<string, unknown>, 'namespace');
  if (typeof n !== 'string') return undefined;
  return typeof ns === 'string' && ns !== '' ? `${kind}/${ns}/${n}` : `${kind}/${n}`;
}

/** `namespace/name` of an object (namespace `default` when it has none). */
function namespacedName(object: Record<string, unknown>): string {
  const meta = own(object, 'metadata') as Record<string, unknown> | undefined;
  const ns = typeof meta?.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
  return `${ns}/${typeof meta?.name === 'string' ? meta.name : ''}`;
}

function pathText(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** A dump with no objects (to merge several into), whose objects have no known place. */
export function emptyDump(): ClusterDump {
  return {
    classes: [],
    slices: [],
    claims: [],
    nodes: [],
    nodeInfos: [],
    pods: [],
    templates: [],
    taintRules: [],
    podGroups: [],
    skipped: {},
    warnings: [],
    invalid: new Map(),
    places: new Map(),
    locate: () => undefined,
  };
}

/**
 * Reads the objects of `documents` (readDocuments of the text `origin` names). Errors are
 * AllocationError at ORIGIN:LINE:COL naming the object and the field; nothing is half-read.
 */
export function readClusterDump(documents: DraDocuments, origin: string, given: ClusterDumpOptions = {}): ClusterDump {
  const options = dumpOptions(given);
  const out: ClusterDump = {
    ...emptyDump(),
    locate(object, field) {
      const place = out.places.get(object);
      if (place === undefined) return undefined;
      const at = position(place, field === undefined ? [] : pathSegments(field));
      return { origin, ...(at !== undefined ? { position: at } : {}) };
    },
  };
  const position = (place: DumpPlace, more: readonly PathSegment[] = []): FilePosition | undefined =>
    documents.positionOf(place.doc, [...place.path, ...more]) ?? documents.positionOf(place.doc, place.path);
  const fail = (place: DumpPlace, detail: string, more: readonly PathSegment[] = [], cause?: unknown): never => {
    const at = position(place, more);
    throw AllocationError.of('INVALID_ARGUMENT', { origin, ...(at !== undefined ? { position: at } : {}), detail, ...(cause !== undefined ? { cause } : {}) });
  };
  // A claim the strict reader refuses makes its pods INVALID (said with where it stands), not the run.
  const claimProblem = (label: string, key: string, claim: unknown, prefix: PathSegment[] = []): void => {
    if (out.invalid.has(key)) return;
    try {
      readResourceClaims(claim, label);
    } catch (error) {
      if (!(error instanceof AllocationError)) throw error;
      const place = out.places.get(label);
      const at = place === undefined ? undefined : position(place, [...prefix, ...(typeof error.field === 'string' ? pathSegments(error.field) : [])]);
      out.invalid.set(key, `${origin}${at !== undefined ? `:${at.line}:${at.column}` : ''}: ${error.message}`);
    }
  };
  objectsOf(documents.values).forEach(({ object: raw, doc, path, listKind }) => {
    const place: DumpPlace = { doc, path };
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail(place, `expected a Kubernetes object, got ${describeValue(raw)}`);
    let object = raw as Record<string, unknown>;
    let kind = own(object, 'kind');
    if (kind === undefined && listKind !== undefined) {
      // Items of a typed List may omit their kind (the List carries it): the object read says it.
      kind = listKind;
      object = { kind, ...object };
    }
    if (typeof kind !== 'string' || kind === '') return fail(place, `expected a Kubernetes object with a kind, got ${describeValue(raw)}`, ['kind']);
    const label = labelOf(kind, object) ?? `${kind} at ${pathText(path) || 'top'}`;
    if (DRA_KINDS.has(kind)) {
      const versions = SERVED_VERSIONS[kind]!; // DRA_KINDS are its keys
      if (own(object, 'apiVersion') === undefined && listKind !== undefined) object = { ...object, apiVersion: `resource.k8s.io/${versions[0]}` };
      const converted = toServedVersion(kind, object);
      if (converted === undefined) {
        const served = versions.map((v) => `resource.k8s.io/${v}`).join(', ');
        return fail(place, `${label}: apiVersion: expected one that Kubernetes ${KUBERNETES_VERSION} serves (${served}), got ${describeValue(own(object, 'apiVersion'))}`, ['apiVersion']);
      }
      object = converted;
      if (kind !== 'DeviceTaintRule') {
        const { spec, unknown } = pruneSpec(kind, own(object, 'spec'));
        for (const u of unknown) {
          const field = pathText(u.path);
          if (options.strict === true) fail(place, `${label}: ${field}: unknown field (--strict; the readers follow Kubernetes ${KUBERNETES_VERSION})`, u.path);
          out.warnings.push(
            u.effect === 'dropped'
              ? `${label}: ${field}: unknown field ignored (the readers follow Kubernetes ${KUBERNETES_VERSION}; its API server would not store it)`
              : `${label}: ${field}: unknown field that may change what is allocated (the readers follow Kubernetes ${KUBERNETES_VERSION}): the claim is refused as upstream's allocator refuses what it does not support`,
          );
        }
        if (unknown.length > 0) object = { ...object, spec };
      }
      out.places.set(label, place);
      const spec = own(object, 'spec');
      const meta = own(object, 'metadata') as Record<string, unknown> | undefined;
      const name = typeof meta?.name === 'string' ? meta.name : '';
      if (kind === 'ResourceSlice' || kind === 'DeviceClass') {
        const problems = kind === 'ResourceSlice' ? validateSliceSpec(spec) : validateClassSpec(spec);
        if (problems.length > 0) {
          const first = /^spec[\w.[\]"-]*/.exec(problems[0]!)?.[0] ?? 'spec';
          const segments = [...first.matchAll(/[^.[\]"]+|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[0]));
          return fail(place, invalidMessage(kind, name, problems), segments);
        }
      } else if (kind === 'ResourceClaim' || kind === 'ResourceClaimTemplate') {
        const problems = kind === 'ResourceClaim' ? validateClaimSpec(spec) : validateClaimSpec(own((spec ?? {}) as Record<string, unknown>, 'spec'), 'spec.spec');
        const ns = typeof meta?.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
        if (problems.length > 0) out.invalid.set(`${kind}/${ns}/${name}`, invalidMessage(kind, name, problems));
      }
    }
    try {
      switch (kind) {
        case 'DeviceClass':
          out.classes.push(object);
          return;
        case 'ResourceSlice':
          out.slices.push(object);
          return;
        case 'ResourceClaim':
          out.claims.push(object);
          claimProblem(label, `ResourceClaim/${namespacedName(object)}`, object);
          return;
        case 'ResourceClaimTemplate': {
          const template = readClaimTemplate(object);
          out.templates.push(template);
          claimProblem(
            label,
            `ResourceClaimTemplate/${template.label}`,
            { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: template.name, namespace: template.namespace }, spec: template.claimSpec },
            ['spec'],
          );
          return;
        }
        case 'DeviceTaintRule': {
          out.taintRules.push(readTaintRule(object));
          return;
        }
        case 'Node':
          if (own(object, 'apiVersion') !== 'v1' && own(object, 'apiVersion') !== undefined)
            return fail(place, `${label}: apiVersion: expected "v1", got ${describeValue(own(object, 'apiVersion'))}`, ['apiVersion']);
          out.nodeInfos.push(readNodeInfo(object));
          out.nodes.push(object);
          out.places.set(label, place);
          return;
        case 'Pod': {
          if (out.places.has(label)) return fail(place, `${label}: listed twice in the input`, ['metadata', 'name']);
          out.pods.push(readPod(object, out.pods.length));
          out.places.set(label, place);
          const spec = own(object, 'spec') as Record<string, unknown> | undefined;
          if (spec !== undefined && spec !== null && own(spec, 'workloadRef') !== undefined)
            out.warnings.push(
              `${label}: spec.workloadRef: Kubernetes 1.35's reference to a Workload, replaced in ${KUBERNETES_VERSION} by spec.schedulingGroup.podGroupName; the pod is scheduled on its own`,
            );
          return;
        }
        case 'PodGroup': {
          if (own(object, 'apiVersion') !== POD_GROUP_API_VERSION)
            return fail(place, `${label}: apiVersion: expected one that Kubernetes ${KUBERNETES_VERSION} serves (${POD_GROUP_API_VERSION}), got ${describeValue(own(object, 'apiVersion'))}`, [
              'apiVersion',
            ]);
          if (out.places.has(label)) return fail(place, `${label}: listed twice in the input`, ['metadata', 'name']);
          const group = readPodGroup(object);
          out.podGroups.push(group);
          out.places.set(label, place);
          for (const f of group.ignored) out.warnings.push(`${label}: ${f}: not read (only the scheduling policy and the topology constraint decide where a gang goes here)`);
          return;
        }
        default:
          out.skipped[kind] = (out.skipped[kind] ?? 0) + 1;
      }
    } catch (error) {
      if (!(error instanceof AllocationError)) throw error;
      // The readers name the object and the field path; add where it stands.
      const field = typeof error.field === 'string' ? error.field : undefined;
      return fail(place, error.message, field === undefined ? [] : pathSegments(field), error);
    }
  });
  if (options.applyTaintRules !== false) applyTaintRules(out);
  return out;
}

/**
 * Whether a rule's DeviceClass and CEL selectors select one device (driver, pool and device name
 * already match). This room has no CEL: the model sub-room supplies it (its applyTaintRules).
 */
export type TaintRuleSelects = (rule: TaintRule, driver: string, device: Record<string, unknown>) => boolean;

/**
 * Puts each rule's taint on the devices it selects (as the scheduler sees them: in the slices), as
 * upstream's ResourceSlice tracker does: driver, pool and device name, then the class's selectors
 * and the rule's own (`selects`; without it a rule that has them selects nothing).
 */
export function applyTaintRules(dump: ClusterDump, selects?: TaintRuleSelects): void {
  if (dump.taintRules.length === 0) return;
  dump.slices = dump.slices.map((raw) => {
    const slice = raw as { spec?: { driver?: string; pool?: { name?: string }; devices?: Array<Record<string, unknown>> } };
    const spec = slice.spec;
    if (spec === undefined || !Array.isArray(spec.devices)) return raw;
    const rules = dump.taintRules.filter((r) => (r.driver === undefined || r.driver === spec.driver) && (r.pool === undefined || r.pool === spec.pool?.name));
    if (rules.length === 0) return raw;
    const devices = spec.devices.map((device) => {
      const hits = rules.filter(
        (r) => (r.device === undefined || r.device === device.name) && ((r.deviceClassName === undefined && r.selectors.length === 0) || selects?.(r, String(spec.driver), device) === true),
      );
      if (hits.length === 0) return device;
      const taints = Array.isArray(device.taints) ? [...(device.taints as unknown[])] : [];
      for (const r of hits) taints.push({ ...r.taint });
      return { ...device, taints };
    });
    return { ...(raw as object), spec: { ...spec, devices } };
  });
}
