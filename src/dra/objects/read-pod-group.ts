// PodGroups (scheduling.k8s.io/v1alpha2), as Kubernetes 1.36 serves them: the runtime group a pod
// names in `spec.schedulingGroup.podGroupName`, with its scheduling policy (`basic`, or `gang` with
// `minCount`) and its topology constraint (`spec.schedulingConstraints.topology[0].key`, a node
// label every pod's node shares). Followed: kubernetes staging/src/k8s.io/api/scheduling/v1alpha2
// (types.go: PodGroupSpec, PodGroupSchedulingPolicy, GangSchedulingPolicy, PodGroupSchedulingConstraints,
// TopologyConstraint), pkg/registry/scheduling/podgroup (strategy_test.go: exactly one policy, a
// minCount greater than zero), KEP-4671 (gang scheduling), KEP-5832 (PodGroup apart from Workload,
// Pod spec.schedulingGroup) and KEP-5732 (topology-aware workload scheduling, one constraint per
// group). A Workload only holds the templates PodGroups are made from: the scheduler reads PodGroups.
import { fail as failAt } from '../../shared/validate.js';
import { type At, child, field, int, map, name, str } from './read-core.js';

/** The API version of PodGroups that Kubernetes 1.36 serves. */
export const POD_GROUP_API_VERSION = 'scheduling.k8s.io/v1alpha2';

/** Fields of a 1.36 PodGroupSpec (the ones not read here are named in `ignored`). */
const SPEC_FIELDS = ['podGroupTemplateRef', 'schedulingPolicy', 'schedulingConstraints', 'resourceClaims', 'disruptionMode', 'priority', 'priorityClassName'] as const;

/** A PodGroup as the scheduler reads it. */
export interface PodGroupInfo {
  name: string;
  namespace: string;
  /** `namespace/name`. */
  label: string;
  /** `gang`: all or nothing, at least minCount pods; `basic`: each pod on its own. */
  policy: 'gang' | 'basic';
  /** spec.schedulingPolicy.gang.minCount. */
  minCount?: number;
  /** spec.schedulingConstraints.topology[0].key: every pod on nodes with one value of this label. */
  topologyKey?: string;
  /** How many spec.resourceClaims (claims the group's pods share, KEP-5729): not supported here. */
  resourceClaims: number;
  /** Spec fields read but not acted on (priority, disruptionMode …), and unknown spec fields. */
  ignored: string[];
}

function fail(at: At, expected: string, value: unknown): never {
  return failAt('INVALID_ARGUMENT', at, expected, value);
}

/** Reads one PodGroup (apiVersion already checked). Errors name the object and the field. */
export function readPodGroup(object: Record<string, unknown>): PodGroupInfo {
  const at0: At = { origin: 'PodGroup', path: '' };
  const meta = map(child(at0, 'metadata'), field(object, 'metadata'));
  const groupName = name(child(child(at0, 'metadata'), 'name'), field(meta, 'name'));
  const namespace = str(child(child(at0, 'metadata'), 'namespace'), field(meta, 'namespace')) || 'default';
  const label = `${namespace}/${groupName}`;
  const at: At = { origin: `PodGroup/${label}`, path: '' };
  const specAt = child(at, 'spec');
  const spec = map(specAt, field(object, 'spec') ?? fail(specAt, 'an object (required)', undefined));
  const policyAt = child(specAt, 'schedulingPolicy');
  const policy = map(policyAt, field(spec, 'schedulingPolicy') ?? fail(policyAt, 'an object (required): exactly one of `basic`, `gang`', undefined));
  const basic = field(policy, 'basic');
  const gang = field(policy, 'gang');
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (has(basic) === has(gang)) fail(policyAt, 'exactly one of `basic`, `gang`', policy);
  const out: PodGroupInfo = { name: groupName, namespace, label, policy: has(gang) ? 'gang' : 'basic', resourceClaims: 0, ignored: [] };
  if (has(basic)) map(child(policyAt, 'basic'), basic);
  if (has(gang)) {
    const gangAt = child(policyAt, 'gang');
    const minAt = child(gangAt, 'minCount');
    const minCount = int(minAt, field(map(gangAt, gang), 'minCount'), true) as number;
    if (minCount < 1) fail(minAt, 'an integer greater than zero', minCount);
    out.minCount = minCount;
  }
  const constraints = field(spec, 'schedulingConstraints');
  if (has(constraints)) {
    const cAt = child(specAt, 'schedulingConstraints');
    const topology = field(map(cAt, constraints), 'topology');
    if (has(topology)) {
      const tAt = child(cAt, 'topology');
      if (!Array.isArray(topology)) fail(tAt, 'a list', topology);
      if (topology.length > 1) fail(tAt, 'at most 1 item (Kubernetes 1.36 takes one topology constraint)', `${topology.length} items`);
      if (topology.length === 1) {
        const key = str(child(child(tAt, 0), 'key'), field(map(child(tAt, 0), topology[0]), 'key'), true);
        if (key === '') fail(child(child(tAt, 0), 'key'), 'a node label key (a non-empty string)', key);
        out.topologyKey = key;
      }
    }
  }
  const claims = field(spec, 'resourceClaims');
  if (has(claims)) {
    if (!Array.isArray(claims)) fail(child(specAt, 'resourceClaims'), 'a list', claims);
    out.resourceClaims = claims.length;
  }
  for (const key of Object.keys(spec)) {
    if (key === 'schedulingPolicy' || key === 'schedulingConstraints' || key === 'resourceClaims' || key === 'podGroupTemplateRef') continue;
    out.ignored.push((SPEC_FIELDS as readonly string[]).includes(key) ? `spec.${key}` : `spec.${key} (unknown)`);
  }
  return out;
}
