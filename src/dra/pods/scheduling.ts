// Pods of a dump, scheduled one at a time as kube-scheduler schedules them: the pending pods in
// scheduling-queue order (priority, then creation time), each pod's claims found (by name, or the
// claim its template made for it, or one made from the template as the resourceclaim controller
// would), the default filters, then the claims allocated together on one node. Pods of a gang
// PodGroup are placed together, all or nothing, when the queue reaches the first of them (gangs.ts).
// Bound pods and allocated claims hold what they hold. One pod's problem never stops the others.
import { AllocationError } from '../../shared/errors.js';
import { fail, keysOf, rejectUnknownKeys, requireObject } from '../../shared/validate.js';
import type { DraExplanation } from '../allocator/index.js';
import type { AllocationResult, ClaimTemplate, NodeInfo, PodGroupInfo, PodInfo } from '../objects/index.js';
import { filterFit, filterNodeAffinity, filterTaints, filterUnschedulable, fitErrorMessage, leastAllocatedScore, type NodeUsage } from './filters.js';
import { scheduleGang } from './gangs.js';
import { type ClaimPlacer, type GroupOutcome, type PodDraft, type PodOutcome, type PodReason, type Prepared, settlePod } from './outcomes.js';

/** Annotation the resourceclaim controller puts on a claim it made from a template. */
export const POD_CLAIM_NAME_ANNOTATION = 'resource.kubernetes.io/pod-claim-name';

/** A claim of the dump with its allocation, as claimsOfDump reads it. */
export interface KnownClaim {
  label: string;
  object: unknown;
  allocation?: AllocationResult;
}

/** How nodes are ordered for a pod: kube-scheduler's default score, or the placer's own order. */
export type PodNodeOrder = 'scheduler' | 'placer';

/** Input of schedulePods. */
export interface PodScheduling {
  pods: PodInfo[];
  nodes: NodeInfo[];
  claims: KnownClaim[];
  templates: ClaimTemplate[];
  /** PodGroups (scheduling.k8s.io/v1alpha2): pods naming a gang group are placed together. */
  podGroups?: PodGroupInfo[];
  /** DeviceClass name per extended resource name (`nvidia.com/gpu` → a class with extendedResourceName). */
  extendedResources: ReadonlyMap<string, string>;
  placer: ClaimPlacer;
  order: PodNodeOrder;
  /** Claims and templates the API server would refuse, by `ResourceClaim/namespace/name` or `ResourceClaimTemplate/namespace/name`. */
  invalid?: ReadonlyMap<string, string>;
  /** Keep each node's reason in the outcome. */
  detail?: boolean;
  /** Called after each pod with how many are done and how many there are. */
  progress?: (done: number, total: number) => void;
}

interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ kind?: string; name?: string; uid?: string }>;
}

function metaOf(object: unknown): ObjectMeta {
  const meta = (object as { metadata?: unknown }).metadata;
  return meta !== null && typeof meta === 'object' ? (meta as ObjectMeta) : {};
}

/** The pod (namespace/name) that owns a claim, if a Pod owns it. */
export function podOwnerOf(claim: unknown): string | undefined {
  const meta = metaOf(claim);
  const owner = (Array.isArray(meta.ownerReferences) ? meta.ownerReferences : []).find((o) => o !== null && typeof o === 'object' && o.kind === 'Pod' && typeof o.name === 'string');
  return owner === undefined ? undefined : `${meta.namespace ?? 'default'}/${owner.name}`;
}

function labelOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Pending pods in scheduling-queue order: higher priority first, then older, then input order. */
export function queueOrder(pods: readonly PodInfo[]): PodInfo[] {
  return [...pods].sort((a, b) => b.priority - a.priority || (a.created < b.created ? -1 : a.created > b.created ? 1 : 0) || a.order - b.order);
}

/** Whether a pod is waiting to be scheduled by the default scheduler. */
export function isPending(pod: PodInfo): boolean {
  return pod.nodeName === undefined && pod.phase !== 'Succeeded' && pod.phase !== 'Failed' && pod.schedulerName === 'default-scheduler';
}

function addUsage(usage: NodeUsage, pod: PodInfo, skip: ReadonlySet<string>): void {
  usage.pods++;
  for (const [k, v] of pod.requests) if (!skip.has(k)) usage.requested.set(k, (usage.requested.get(k) ?? 0) + v);
}

/** The outcome of schedulePods. */
export interface PodSchedule {
  /** One outcome per pending pod, in queue order. */
  pods: PodOutcome[];
  /** The ResourceClaim objects made here (from templates, for extended resources), by `namespace/name`. */
  generated: Map<string, unknown>;
  /** One outcome per PodGroup that a pending pod names, in the order the queue reached them. */
  groups: GroupOutcome[];
}

const SCHEDULING_KEYS = keysOf<PodScheduling>()(['pods', 'nodes', 'claims', 'templates', 'podGroups', 'extendedResources', 'placer', 'order', 'invalid', 'detail', 'progress']);

/** Schedules every pending pod of the input, one at a time in queue order. */
export function schedulePods(input: PodScheduling): PodSchedule {
  rejectUnknownKeys('', requireObject('input', input), SCHEDULING_KEYS);
  if (input.order !== 'scheduler' && input.order !== 'placer') fail('INVALID_ARGUMENT', 'order', "'scheduler' or 'placer'", input.order);
  const nodeIndex = new Map(input.nodes.map((n, k) => [n.name, k]));
  const usage: NodeUsage[] = input.nodes.map(() => ({ requested: new Map(), pods: 0 }));
  const none = new Set<string>();
  for (const pod of input.pods) {
    if (pod.nodeName === undefined || pod.phase === 'Succeeded' || pod.phase === 'Failed') continue;
    const k = nodeIndex.get(pod.nodeName);
    if (k !== undefined) addUsage(usage[k]!, pod, none); // usage has one entry per node
  }
  const claims = new Map(input.claims.map((c) => [c.label.includes('/') ? c.label : labelOf('default', c.label), c]));
  const templates = new Map(input.templates.map((t) => [t.label, t]));
  /** Claims allocated in this run (shared claims keep their node). */
  const placedNode = new Map<string, number>();
  const outcomes: PodDraft[] = [];
  const made = new Map<string, unknown>();

  const queue = queueOrder(input.pods.filter(isPending));
  const groups = new Map((input.podGroups ?? []).map((g) => [g.label, g]));
  const groupOutcomes: GroupOutcome[] = [];
  const done = new Set<PodInfo>();

  /** The pod's claims (found, or made from their template) and its node filters; undefined when the outcome says why not. */
  const prepare = (pod: PodInfo, outcome: PodDraft): Prepared | undefined => {
    // The pod's claims: found, or made from their template.
    const toAllocate: Array<{ label: string; object: unknown }> = [];
    const fixed: Array<{ label: string; allocation: AllocationResult; node?: number }> = [];
    let problem: PodReason | undefined;
    for (const ref of pod.claims) {
      let label: string | undefined;
      let generated: unknown;
      if (ref.resourceClaimName !== undefined) label = labelOf(pod.namespace, ref.resourceClaimName);
      else {
        const status = pod.claimStatuses.get(ref.name);
        if (status === null) continue; // The controller decided no claim is needed.
        if (status !== undefined) label = labelOf(pod.namespace, status);
        else {
          const owned = input.claims.find((c) => podOwnerOf(c.object) === pod.label && metaOf(c.object).annotations?.[POD_CLAIM_NAME_ANNOTATION] === ref.name);
          if (owned !== undefined) label = labelOf(pod.namespace, metaOf(owned.object).name ?? '');
          else {
            const template = templates.get(labelOf(pod.namespace, ref.resourceClaimTemplateName ?? ''));
            if (template === undefined) {
              problem = { code: 'UNSCHEDULABLE', message: `resourceclaimtemplate.resource.k8s.io "${ref.resourceClaimTemplateName}" not found` };
              break;
            }
            const refused = input.invalid?.get(`ResourceClaimTemplate/${template.label}`);
            if (refused !== undefined) {
              problem = { code: 'INVALID', message: refused };
              break;
            }
            label = labelOf(pod.namespace, `${pod.name}-${ref.name}`);
            generated = {
              apiVersion: 'resource.k8s.io/v1',
              kind: 'ResourceClaim',
              metadata: { name: `${pod.name}-${ref.name}`, namespace: pod.namespace, annotations: { [POD_CLAIM_NAME_ANNOTATION]: ref.name } },
              spec: template.claimSpec,
            };
          }
        }
      }
      if (generated !== undefined) {
        made.set(label, generated);
        toAllocate.push({ label, object: generated });
        outcome.claims.push({ claim: label, allocation: null, generated: { template: labelOf(pod.namespace, ref.resourceClaimTemplateName ?? ''), podClaimName: ref.name } });
        continue;
      }
      const known = claims.get(label);
      if (known === undefined) {
        problem = { code: 'UNSCHEDULABLE', message: `resourceclaim.resource.k8s.io "${label.slice(label.indexOf('/') + 1)}" not found` };
        break;
      }
      const refused = input.invalid?.get(`ResourceClaim/${label}`);
      if (refused !== undefined) {
        problem = { code: 'INVALID', message: refused };
        break;
      }
      outcome.claims.push({ claim: label, allocation: known.allocation ?? null });
      if (known.allocation !== undefined) fixed.push({ label, allocation: known.allocation, ...(placedNode.has(label) ? { node: placedNode.get(label)! } : {}) });
      else if (!toAllocate.some((c) => c.label === label)) toAllocate.push({ label, object: known.object });
    }
    if (problem !== undefined) {
      outcome.reason = problem;
      return undefined;
    }
    // DRA extended resources: requests of a resource a DeviceClass maps become one more claim.
    const extended = [...pod.requests].filter(([resource, amount]) => amount > 0 && input.extendedResources.has(resource));
    const skip = new Set(extended.map(([resource]) => resource));
    if (extended.length > 0) {
      const label = labelOf(pod.namespace, `${pod.name}-extended-resources`);
      made.set(label, {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name: `${pod.name}-extended-resources`, namespace: pod.namespace },
        spec: { devices: { requests: extended.map(([resource, count], i) => ({ name: `container-0-request-${i}`, exactly: { deviceClassName: input.extendedResources.get(resource), count } })) } },
      });
      toAllocate.push({ label, object: made.get(label) });
      outcome.claims.push({ claim: label, allocation: null, generated: { podClaimName: 'extended-resources' } });
    }
    // The filters that do not change as pods are placed: cordons, node affinity, taints; and where the allocated claims are.
    const fixedReason = input.nodes.map((node) => filterUnschedulable(pod, node) ?? filterNodeAffinity(pod, node) ?? filterTaints(pod, node));
    const claimsHere = input.nodes.map((node, k) => !fixed.some((f) => (f.node !== undefined ? f.node !== k : !allocationFits(f.allocation, node))));
    return { pod, outcome, toAllocate, skip, fixedReason, claimsHere };
  };

  /** Keeps a placed pod: its node, its usage there, its claims' allocations (one result per claim allocated, in order). */
  const keep = (p: Prepared, chosen: number, results: AllocationResult[]): void => {
    p.outcome.node = input.nodes[chosen]!.name;
    addUsage(usage[chosen]!, p.pod, p.skip);
    p.toAllocate.forEach((c, i) => {
      const result = results[i]!;
      const entry = p.outcome.claims.find((o) => o.claim === c.label);
      if (entry !== undefined) entry.allocation = result;
      placedNode.set(c.label, chosen);
      const known = claims.get(c.label);
      if (known !== undefined) known.allocation = result;
    });
  };

  for (const pod of queue) {
    if (done.has(pod)) continue;
    input.progress?.(outcomes.length, queue.length);
    const group = pod.podGroup === undefined ? undefined : groups.get(labelOf(pod.namespace, pod.podGroup));
    if (pod.podGroup !== undefined && (group === undefined || group.policy === 'gang')) {
      // The queue reached a gang's first pod: every pending pod of the group goes now, together.
      const label = labelOf(pod.namespace, pod.podGroup);
      const members = queue.filter((p) => p.namespace === pod.namespace && p.podGroup === pod.podGroup);
      for (const m of members) done.add(m);
      const memberOutcomes = members.map((m): PodDraft => ({ pod: m.label, node: null, claims: [], group: label }));
      outcomes.push(...memberOutcomes);
      const bound = input.pods.filter(
        (p) => !isPending(p) && p.nodeName !== undefined && p.phase !== 'Succeeded' && p.phase !== 'Failed' && p.namespace === pod.namespace && p.podGroup === pod.podGroup,
      ).length;
      groupOutcomes.push(
        scheduleGang({
          label,
          group,
          members: members.map((m, i) => ({ pod: m, outcome: memberOutcomes[i]! })),
          bound,
          nodes: input.nodes,
          usage,
          placer: input.placer,
          prepare,
          keep,
        }),
      );
      continue;
    }
    const outcome: PodDraft = { pod: pod.label, node: null, claims: [] };
    outcomes.push(outcome);
    if (group !== undefined) outcome.group = group.label;
    const p = prepare(pod, outcome);
    if (p === undefined) continue;
    const { toAllocate, skip } = p;

    // Filters.
    const reasons = new Map<string, number>();
    const why: Record<string, string> = {};
    const allowed = new Uint8Array(input.nodes.length);
    // k is a node number: fixedReason, claimsHere, usage and allowed have one entry per node.
    input.nodes.forEach((node, k) => {
      let reason = p.fixedReason[k];
      let all = reason === undefined ? [] : [reason];
      if (reason === undefined) {
        all = filterFit(pod, node, usage[k]!, skip);
        reason = all[0];
      }
      if (reason === undefined && !p.claimsHere[k]) reason = all[0] = 'resourceclaim not available on the node';
      if (reason === undefined) allowed[k] = 1;
      else {
        for (const r of all) reasons.set(r, (reasons.get(r) ?? 0) + 1);
        if (input.detail === true) why[node.name] = all.join(', ');
      }
    });
    let order: number[] | undefined;
    if (input.order === 'scheduler') {
      const scored: Array<[number, number]> = [];
      allowed.forEach((ok, k) => ok === 1 && scored.push([k, leastAllocatedScore(pod, input.nodes[k]!, usage[k]!)]));
      order = scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([k]) => k);
    }
    let chosen = -1;
    let results: AllocationResult[] = [];
    let explain: DraExplanation | undefined;
    if (toAllocate.length === 0) chosen = order !== undefined ? (order[0] ?? -1) : allowed.indexOf(1);
    else {
      try {
        const placed = input.placer.place(
          toAllocate.map((c) => c.object),
          (k) => allowed[k] === 1,
          order,
        );
        if (placed.results !== undefined) {
          chosen = placed.node;
          results = placed.results;
          explain = placed.explain;
        } else {
          const count = allowed.reduce((n, ok) => n + ok, 0);
          if (count > 0) reasons.set('cannot allocate all claims', count);
          if (input.detail === true) allowed.forEach((ok, k) => ok === 1 && (why[input.nodes[k]!.name] = `cannot allocate all claims: ${placed.message}`));
        }
      } catch (error) {
        if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
        outcome.reason = { code: 'INVALID', message: error.message };
        continue;
      }
    }
    if (chosen < 0) {
      outcome.reason = { code: 'UNSCHEDULABLE', message: fitErrorMessage(input.nodes.length, reasons) };
      if (input.detail === true) outcome.nodes = why;
      continue;
    }
    keep(p, chosen, results);
    if (explain !== undefined) outcome.explain = explain;
  }
  return { pods: outcomes.map(settlePod), generated: made, groups: groupOutcomes };
}

/** Whether an allocated claim's node selector lets it be used on `node` (no selector: any node). */
function allocationFits(allocation: AllocationResult, node: NodeInfo): boolean {
  const selector = allocation.nodeSelector;
  if (selector === undefined) return true;
  return selector.nodeSelectorTerms.some(
    (term) =>
      (term.matchFields ?? []).every((r) => (r.operator === 'In' ? (r.values ?? []).includes(node.name) : !(r.values ?? []).includes(node.name))) &&
      (term.matchExpressions ?? []).every((r) => (r.operator === 'In' ? (r.values ?? []).some((v) => v === node.labels[r.key]) : r.operator === 'Exists' ? r.key in node.labels : true)),
  );
}
