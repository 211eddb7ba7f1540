// What the scheduler reads of Pods and Nodes (core v1), ResourceClaimTemplates and DeviceTaintRules.
// Pods and Nodes carry far more than scheduling needs: only the fields kube-scheduler's default
// filters and scores read are taken, each checked for its type; the rest is left alone (a core
// object, not a DRA one: its unknown fields are not this reader's business).
import { fail as failAt } from '../../shared/validate.js';
import { type At, child, field, map, name, str, stringMap } from './read-core.js';

/** Fails naming the object, the field path and the value. */
function fail(at: At, expected: string, value: unknown): never {
  return failAt('INVALID_ARGUMENT', at, expected, value);
}

import { Quantity } from './quantity.js';
import { readNodeSelector } from './read-slice.js';
import type { NodeSelector } from './types.js';

/** A toleration of a pod (core v1) or a taint of a node. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

/** A node taint (core v1). */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
}

/** One entry of `spec.resourceClaims`. */
export interface PodClaimRef {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

/** Resource amounts: cpu in millicores, every other resource in its unit (bytes, pods, devices). */
export type Amounts = Map<string, number>;

/** A Pod as the scheduler reads it. */
export interface PodInfo {
  name: string;
  namespace: string;
  /** `namespace/name`. */
  label: string;
  uid?: string;
  /** Position in the input (the last tie-break of the queue). */
  order: number;
  nodeName?: string;
  phase?: string;
  schedulerName: string;
  priority: number;
  /** RFC 3339 creation time; '' when absent (sorts first). */
  created: string;
  claims: PodClaimRef[];
  /** status.resourceClaimStatuses: pod claim name → generated claim name (null: none needed). */
  claimStatuses: Map<string, string | null>;
  /** The effective requests (containers, init containers and overhead, as upstream sums them). */
  requests: Amounts;
  nodeSelector: Record<string, string>;
  affinity?: NodeSelector;
  /** spec.schedulingGroup.podGroupName: the PodGroup (same namespace) the pod belongs to. */
  podGroup?: string;
  tolerations: Toleration[];
}

/** A Node as the scheduler's default filters read it. */
export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  unschedulable: boolean;
  taints: NodeTaint[];
  /** status.allocatable (or capacity when it is unset); a resource not listed is 0 (upstream: the node has none). */
  allocatable: Amounts;
}

/** A resource amount in the unit NodeResourcesFit compares: milli for cpu, the value otherwise. */
export function amountOf(at: At, resource: string, value: unknown): number {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) fail(at, 'a quantity such as "4Gi"', value);
  let q: Quantity;
  try {
    q = Quantity.parse(String(value));
  } catch {
    return fail(at, 'a quantity such as "4Gi"', value);
  }
  // Rounded up, as Quantity.Value and MilliValue do.
  return Number(resource === 'cpu' ? q.milli() : q.value());
}

function readAmounts(at: At, value: unknown): Amounts {
  const out: Amounts = new Map();
  if (value === undefined || value === null) return out;
  const obj = map(at, value);
  for (const key of Object.keys(obj)) out.set(key, amountOf(child(at, key), key, obj[key]));
  return out;
}

function addTo(total: Amounts, more: Amounts): void {
  for (const [k, v] of more) total.set(k, (total.get(k) ?? 0) + v);
}

function maxInto(total: Amounts, more: Amounts): void {
  for (const [k, v] of more) total.set(k, Math.max(total.get(k) ?? 0, v));
}

function list(at: At, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(at, 'a list', value);
  return value;
}

function containerRequests(at: At, container: unknown): Amounts {
  const c = map(at, container);
  const resources = field(c, 'resources');
  if (resources === undefined || resources === null) return new Map();
  const r = map(child(at, 'resources'), resources);
  const requests = readAmounts(child(child(at, 'resources'), 'requests'), field(r, 'requests'));
  // A limit without a request is the request (API server defaulting).
  const limits = readAmounts(child(child(at, 'resources'), 'limits'), field(r, 'limits'));
  for (const [k, v] of limits) if (!requests.has(k)) requests.set(k, v);
  return requests;
}

/**
 * A pod's effective requests, as upstream's resource helpers compute them: the containers'
 * sum (with restartable init containers, the sidecars, added), at least each regular init
 * container plus the sidecars started before it, plus the pod overhead.
 */
function podRequests(at: At, spec: Record<string, unknown>): Amounts {
  const total: Amounts = new Map();
  list(child(at, 'containers'), field(spec, 'containers')).forEach((c, i) => addTo(total, containerRequests(child(child(at, 'containers'), i), c)));
  const sidecars: Amounts = new Map();
  const initMax: Amounts = new Map();
  list(child(at, 'initContainers'), field(spec, 'initContainers')).forEach((c, i) => {
    const here = child(child(at, 'initContainers'), i);
    const amounts = containerRequests(here, c);
    if (field(map(here, c), 'restartPolicy') === 'Always') {
      addTo(sidecars, amounts);
      addTo(total, amounts);
    } else {
      const withSidecars = new Map(sidecars);
      addTo(withSidecars, amounts);
      maxInto(initMax, withSidecars);
    }
  });
  maxInto(total, initMax);
  addTo(total, readAmounts(child(at, 'overhead'), field(spec, 'overhead')));
  return total;
}

function readToleration(at: At, value: unknown): Toleration {
  const t = map(at, value);
  const out: Toleration = {};
  const key = str(child(at, 'key'), field(t, 'key'));
  if (key !== undefined && key !== '') out.key = key;
  const op = str(child(at, 'operator'), field(t, 'operator'));
  if (op !== undefined && op !== '') {
    if (op !== 'Exists' && op !== 'Equal') fail(child(at, 'operator'), '"Exists" or "Equal"', op);
    out.operator = op;
  }
  const v = str(child(at, 'value'), field(t, 'value'));
  if (v !== undefined && v !== '') out.value = v;
  const effect = str(child(at, 'effect'), field(t, 'effect'));
  if (effect !== undefined && effect !== '') out.effect = effect;
  return out;
}

function readRequiredAffinity(at: At, value: unknown): NodeSelector | undefined {
  if (value === undefined || value === null) return undefined;
  const affinity = map(at, value);
  const node = field(affinity, 'nodeAffinity');
  if (node === undefined || node === null) return undefined;
  const nodeAt = child(at, 'nodeAffinity');
  const required = field(map(nodeAt, node), 'requiredDuringSchedulingIgnoredDuringExecution');
  if (required === undefined || required === null) return undefined;
  return readNodeSelector(child(nodeAt, 'requiredDuringSchedulingIgnoredDuringExecution'), required);
}

/** Reads one Pod (`metadata`, `spec`, `status` of a v1 Pod). `order` is its position in the input. */
export function readPod(object: Record<string, unknown>, order: number): PodInfo {
  const at0: At = { origin: 'Pod', path: '' };
  const meta = map(child(at0, 'metadata'), field(object, 'metadata'));
  const podName = name(child(child(at0, 'metadata'), 'name'), field(meta, 'name'));
  const namespace = str(child(child(at0, 'metadata'), 'namespace'), field(meta, 'namespace')) || 'default';
  const label = `${namespace}/${podName}`;
  const at: At = { origin: `Pod/${label}`, path: '' };
  const specAt = child(at, 'spec');
  const spec = map(specAt, field(object, 'spec') ?? {});
  const status = field(object, 'status');
  const statusObj = status === undefined || status === null ? {} : map(child(at, 'status'), status);
  const pod: PodInfo = {
    name: podName,
    namespace,
    label,
    order,
    schedulerName: str(child(specAt, 'schedulerName'), field(spec, 'schedulerName')) || 'default-scheduler',
    priority: 0,
    created: str(child(child(at, 'metadata'), 'creationTimestamp'), field(meta, 'creationTimestamp')) ?? '',
    claims: [],
    claimStatuses: new Map(),
    requests: podRequests(specAt, spec),
    nodeSelector: stringMap(child(specAt, 'nodeSelector'), field(spec, 'nodeSelector')),
    tolerations: list(child(specAt, 'tolerations'), field(spec, 'tolerations')).map((t, i) => readToleration(child(child(specAt, 'tolerations'), i), t)),
  };
  const uid = str(child(child(at, 'metadata'), 'uid'), field(meta, 'uid'));
  if (uid !== undefined && uid !== '') pod.uid = uid;
  const nodeName = str(child(specAt, 'nodeName'), field(spec, 'nodeName'));
  if (nodeName !== undefined && nodeName !== '') pod.nodeName = nodeName;
  const phase = str(child(child(at, 'status'), 'phase'), field(statusObj, 'phase'));
  if (phase !== undefined && phase !== '') pod.phase = phase;
  const priority = field(spec, 'priority');
  if (priority !== undefined && priority !== null) {
    if (typeof priority !== 'number' || !Number.isSafeInteger(priority)) fail(child(specAt, 'priority'), 'an integer', priority);
    pod.priority = priority;
  }
  const group = field(spec, 'schedulingGroup');
  if (group !== undefined && group !== null) {
    const groupAt = child(specAt, 'schedulingGroup');
    const podGroup = str(child(groupAt, 'podGroupName'), field(map(groupAt, group), 'podGroupName'));
    if (podGroup !== undefined && podGroup !== '') pod.podGroup = podGroup;
  }
  const affinity = readRequiredAffinity(child(specAt, 'affinity'), field(spec, 'affinity'));
  if (affinity !== undefined) pod.affinity = affinity;
  const claimsAt = child(specAt, 'resourceClaims');
  pod.claims = list(claimsAt, field(spec, 'resourceClaims')).map((raw, i) => {
    const here = child(claimsAt, i);
    const c = map(here, raw);
    const ref: PodClaimRef = { name: name(child(here, 'name'), field(c, 'name')) };
    const claimName = str(child(here, 'resourceClaimName'), field(c, 'resourceClaimName'));
    const templateName = str(child(here, 'resourceClaimTemplateName'), field(c, 'resourceClaimTemplateName'));
    if (claimName !== undefined && claimName !== '') ref.resourceClaimName = claimName;
    if (templateName !== undefined && templateName !== '') ref.resourceClaimTemplateName = templateName;
    if ((ref.resourceClaimName === undefined) === (ref.resourceClaimTemplateName === undefined)) fail(here, 'exactly one of resourceClaimName and resourceClaimTemplateName', c);
    return ref;
  });
  const statusesAt = child(child(at, 'status'), 'resourceClaimStatuses');
  list(statusesAt, field(statusObj, 'resourceClaimStatuses')).forEach((raw, i) => {
    const here = child(statusesAt, i);
    const s = map(here, raw);
    const claimName = str(child(here, 'resourceClaimName'), field(s, 'resourceClaimName'));
    pod.claimStatuses.set(name(child(here, 'name'), field(s, 'name')), claimName === undefined || claimName === '' ? null : claimName);
  });
  return pod;
}

/** Reads one Node for the scheduler's filters (labels, spec.unschedulable, spec.taints, status.allocatable). */
export function readNodeInfo(object: Record<string, unknown>): NodeInfo {
  const at0: At = { origin: 'Node', path: '' };
  const meta = map(child(at0, 'metadata'), field(object, 'metadata'));
  const nodeName = name(child(child(at0, 'metadata'), 'name'), field(meta, 'name'));
  const at: At = { origin: `Node/${nodeName}`, path: '' };
  const spec = map(child(at, 'spec'), field(object, 'spec') ?? {});
  const status = map(child(at, 'status'), field(object, 'status') ?? {});
  const taintsAt = child(child(at, 'spec'), 'taints');
  return {
    name: nodeName,
    labels: stringMap(child(child(at, 'metadata'), 'labels'), field(meta, 'labels')),
    unschedulable: field(spec, 'unschedulable') === true,
    taints: list(taintsAt, field(spec, 'taints')).map((raw, i) => {
      const here = child(taintsAt, i);
      const t = map(here, raw);
      const taint: NodeTaint = { key: name(child(here, 'key'), field(t, 'key')), effect: str(child(here, 'effect'), field(t, 'effect'), true) };
      const v = str(child(here, 'value'), field(t, 'value'));
      if (v !== undefined && v !== '') taint.value = v;
      return taint;
    }),
    // The API server defaults allocatable to capacity (SetDefaults_NodeStatus).
    allocatable:
      field(status, 'allocatable') !== undefined && field(status, 'allocatable') !== null
        ? readAmounts(child(child(at, 'status'), 'allocatable'), field(status, 'allocatable'))
        : readAmounts(child(child(at, 'status'), 'capacity'), field(status, 'capacity')),
  };
}

/** A ResourceClaimTemplate: its name and the ResourceClaim object a pod's claim is made from. */
export interface ClaimTemplate {
  name: string;
  namespace: string;
  /** `namespace/name`. */
  label: string;
  /** spec.spec: the claim's spec (v1). */
  claimSpec: unknown;
}

/** Reads a ResourceClaimTemplate (already v1). */
export function readClaimTemplate(object: Record<string, unknown>): ClaimTemplate {
  const at0: At = { origin: 'ResourceClaimTemplate', path: '' };
  const meta = map(child(at0, 'metadata'), field(object, 'metadata'));
  const templateName = name(child(child(at0, 'metadata'), 'name'), field(meta, 'name'));
  const namespace = str(child(child(at0, 'metadata'), 'namespace'), field(meta, 'namespace')) || 'default';
  const at: At = { origin: `ResourceClaimTemplate/${namespace}/${templateName}`, path: '' };
  const spec = map(child(at, 'spec'), field(object, 'spec') ?? fail(child(at, 'spec'), 'an object (required)', undefined));
  return { name: templateName, namespace, label: `${namespace}/${templateName}`, claimSpec: field(spec, 'spec') ?? {} };
}

/** A DeviceTaintRule: the devices it selects and the taint it puts on them. */
export interface TaintRule {
  name: string;
  driver?: string;
  pool?: string;
  device?: string;
  /** The DeviceClass whose selectors a device must satisfy too. */
  deviceClassName?: string;
  /** CEL expressions a device must satisfy (spec.deviceSelector.selectors[].cel.expression). */
  selectors: string[];
  taint: { key: string; value?: string; effect: string; timeAdded?: string };
}

/** Reads a DeviceTaintRule (v1alpha3 or v1beta2: spec.deviceSelector and spec.taint). */
export function readTaintRule(object: Record<string, unknown>): TaintRule {
  const at0: At = { origin: 'DeviceTaintRule', path: '' };
  const meta = map(child(at0, 'metadata'), field(object, 'metadata'));
  const ruleName = name(child(child(at0, 'metadata'), 'name'), field(meta, 'name'));
  const at: At = { origin: `DeviceTaintRule/${ruleName}`, path: '' };
  const specAt = child(at, 'spec');
  const spec = map(specAt, field(object, 'spec') ?? fail(specAt, 'an object (required)', undefined));
  const selAt = child(specAt, 'deviceSelector');
  const selector = map(selAt, field(spec, 'deviceSelector') ?? {});
  const taintAt = child(specAt, 'taint');
  const taint = map(taintAt, field(spec, 'taint') ?? fail(taintAt, 'an object (required)', undefined));
  const rule: TaintRule = {
    name: ruleName,
    selectors: list(child(selAt, 'selectors'), field(selector, 'selectors')).map((value, i) => {
      const at = child(child(selAt, 'selectors'), i);
      const cel = map(child(at, 'cel'), field(map(at, value), 'cel') ?? fail(child(at, 'cel'), 'an object (required)', undefined));
      return str(child(child(at, 'cel'), 'expression'), field(cel, 'expression'), true) as string;
    }),
    taint: { key: name(child(taintAt, 'key'), field(taint, 'key')), effect: str(child(taintAt, 'effect'), field(taint, 'effect'), true) },
  };
  for (const key of ['driver', 'pool', 'device', 'deviceClassName'] as const) {
    const v = str(child(selAt, key), field(selector, key));
    if (v !== undefined && v !== '') rule[key] = v;
  }
  const value = str(child(taintAt, 'value'), field(taint, 'value'));
  if (value !== undefined && value !== '') rule.taint.value = value;
  const added = str(child(taintAt, 'timeAdded'), field(taint, 'timeAdded'));
  if (added !== undefined) rule.taint.timeAdded = added;
  return rule;
}
