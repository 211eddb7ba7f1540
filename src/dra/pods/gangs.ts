// A gang PodGroup's pending pods, placed together when the queue reaches the first of them, as
// Kubernetes 1.36's gang scheduling places a PodGroup (KEP-4671; the PodGroup API of KEP-5832):
// kube-scheduler holds the pods until at least minCount exist (bound ones count), then places at
// least minCount of them in one cycle or none. Each pod's claims go on one node that passes the
// pod's filters (node affinity, taints, cordons, CPU and memory fit, counting the gang's own pods
// placed so far), every pod on nodes sharing one value of the group's topology key (KEP-5732), and
// the search is the cluster's scheduleGroup. A gang that cannot be placed reports each pod with the
// reason; nothing of it is kept.
import { AllocationError } from '../../shared/errors.js';
import type { AllocationResult, NodeInfo, PodGroupInfo, PodInfo } from '../objects/index.js';
import type { GangFilter } from '../workloads/index.js';
import { filterFit, type NodeUsage } from './filters.js';
import { type ClaimPlacer, type GroupDraft, type GroupOutcome, type PodDraft, type PodReason, type Prepared, settleGroup } from './outcomes.js';

/** What scheduleGang needs of the pod scheduler. */
export interface GangContext {
  /** The group's `namespace/name`. */
  label: string;
  /** The PodGroup; undefined when the input has none of that name. */
  group: PodGroupInfo | undefined;
  /** The group's pending pods in queue order, each with its outcome (node null, no claims yet). */
  members: Array<{ pod: PodInfo; outcome: PodDraft }>;
  /** Pods of the group already bound to nodes. */
  bound: number;
  nodes: readonly NodeInfo[];
  /** What each node has given to bound pods (and to pods placed before in this run). */
  usage: readonly NodeUsage[];
  placer: ClaimPlacer;
  /** Finds or makes the pod's claims and its fixed filters; undefined when its outcome says why not. */
  prepare(pod: PodInfo, outcome: PodDraft): Prepared | undefined;
  /** Keeps a placed pod (its node, its usage, its claims' allocations). */
  keep(p: Prepared, node: number, results: AllocationResult[]): void;
}

function refuse(outcomes: Iterable<PodDraft>, message: string, code: PodReason['code'] = 'UNSCHEDULABLE'): void {
  for (const o of outcomes) if (o.reason === undefined) o.reason = { code, message };
}

/**
 * kube-scheduler's filters for the gang's pods, seeing the gang's own pods placed during the search.
 * The placer calls it with pod numbers i < ready.length and node numbers k < nodes.length: the
 * arrays read with them (ready, podKeys, fixedKeys, usage, a pod's per-node facts) have those lengths.
 */
function gangFilter(ready: readonly Prepared[], nodes: readonly NodeInfo[], usage: readonly NodeUsage[]): GangFilter {
  // Usage with the gang's pods placed so far, per node that has any.
  const extra = new Map<number, NodeUsage>();
  const usageOf = (k: number): NodeUsage => extra.get(k) ?? usage[k]!;
  const fixedOk = (p: Prepared, k: number): boolean => p.fixedReason[k] === undefined && p.claimsHere[k]!;
  // Pods alike for the filters: the same selectors, tolerations, requests and usable nodes.
  const podKeys = ready.map((p) =>
    JSON.stringify([p.pod.nodeSelector, p.pod.affinity ?? null, p.pod.tolerations, [...p.pod.requests].sort(), [...p.skip].sort(), nodes.map((_n, k) => (fixedOk(p, k) ? 1 : 0)).join('')]),
  );
  const kinds = [...new Set(podKeys)].map((key) => ready[podKeys.indexOf(key)]!); // each key is some pod's
  const resources = [...new Set(ready.flatMap((p) => [...p.pod.requests.keys()].filter((r) => !p.skip.has(r))))].sort();
  const fixedKeys = nodes.map((_n, k) => kinds.map((p) => (fixedOk(p, k) ? 1 : 0)).join(''));
  const add = (k: number, pod: PodInfo, skip: ReadonlySet<string>, sign: number): void => {
    let u = extra.get(k);
    if (u === undefined) {
      const base = usage[k]!;
      extra.set(k, (u = { requested: new Map(base.requested), pods: base.pods }));
    }
    u.pods += sign;
    for (const [r, v] of pod.requests) if (!skip.has(r)) u.requested.set(r, (u.requested.get(r) ?? 0) + sign * v);
  };
  return {
    allows: (i, k) => {
      const p = ready[i]!;
      return fixedOk(p, k) && filterFit(p.pod, nodes[k]!, usageOf(k), p.skip).length === 0;
    },
    nodeKey: (k) => {
      const u = usageOf(k);
      const node = nodes[k]!;
      const free = resources.map((r) => (node.allocatable.get(r) ?? 0) - (u.requested.get(r) ?? 0));
      return `${fixedKeys[k]}|${free.join(',')}|${(node.allocatable.get('pods') ?? Infinity) - u.pods}`;
    },
    podKey: (i) => podKeys[i]!,
    placed: (i, k) => add(k, ready[i]!.pod, ready[i]!.skip, 1),
    unplaced: (i, k) => add(k, ready[i]!.pod, ready[i]!.skip, -1),
  };
}

/** Places the gang's pending pods all or nothing; returns the group's outcome (each pod's is in its PodOutcome). */
export function scheduleGang(ctx: GangContext): GroupOutcome {
  const { label, group, members, bound } = ctx;
  const outcomes = members.map((m) => m.outcome);
  const out: GroupDraft = { group: label, policy: group?.policy ?? 'missing', pods: members.map((m) => m.pod.label), bound, placed: 0 };
  const fail = (message: string, code: PodReason['code'] = 'UNSCHEDULABLE'): GroupOutcome => {
    refuse(outcomes, message, code);
    out.reason = { code, message };
    return settleGroup(out);
  };
  // Upstream keeps the pods pending until their PodGroup exists.
  if (group === undefined) return fail(`podgroup.scheduling.k8s.io "${label.slice(label.indexOf('/') + 1)}" not found`);
  const minCount = group.minCount ?? 1;
  out.minCount = minCount;
  if (group.topologyKey !== undefined) out.topologyKey = group.topologyKey;
  const what = `PodGroup ${label} (gang, minCount ${minCount}${group.topologyKey !== undefined ? `, topology ${group.topologyKey}` : ''})`;
  if (group.resourceClaims > 0) return fail(`${what}: spec.resourceClaims (claims the group's pods share) are not supported here; the gang is not placed`);
  if (members.length + bound < minCount) return fail(`${what}: ${members.length + bound} pod(s) exist${bound > 0 ? ` (${bound} bound)` : ''}; kube-scheduler holds the gang until minCount do`);

  const ready: Prepared[] = [];
  for (const m of members) {
    const p = ctx.prepare(m.pod, m.outcome);
    if (p !== undefined) ready.push(p);
  }
  const need = Math.max(1, minCount - bound);
  if (ready.length < need) {
    const first = outcomes.find((o) => o.reason !== undefined);
    return fail(`${what}: ${members.length - ready.length} pod(s) cannot be scheduled (${first?.pod}: ${first?.reason?.message}); ${ready.length} left, ${need} needed`);
  }
  // A claim not yet allocated that two pods of the gang use would be allocated twice.
  const user = new Map<string, string>();
  for (const p of ready)
    for (const c of p.toAllocate) {
      const other = user.get(c.label);
      if (other !== undefined) return fail(`${what}: ResourceClaim ${c.label} is used by pods ${other} and ${p.pod.label}, not yet allocated: a claim shared inside a gang is not supported here`);
      user.set(c.label, p.pod.label);
    }

  const request = {
    pods: ready.map((p) => p.toAllocate.map((c) => c.object)),
    minCount: Math.min(need, ready.length),
    ...(group.topologyKey !== undefined ? { topology: { required: group.topologyKey } } : {}),
  };
  let result: ReturnType<ClaimPlacer['scheduleGroup']>;
  try {
    result = ctx.placer.scheduleGroup(request, gangFilter(ready, ctx.nodes, ctx.usage));
  } catch (error) {
    if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
    return fail(`${what}: ${error.message}`, 'INVALID');
  }
  if (result.budgetExhausted === true) out.budgetExhausted = true;
  if (result.reason !== undefined) return fail(`${what}: ${result.reason.message}`);
  const index = new Map(ctx.nodes.map((n, k) => [n.name, k]));
  let better = 0;
  let asGood = 0;
  for (const pl of result.placements) {
    // The placer numbers the pods as `request.pods` lists them (the ready pods) and names nodes it was given.
    const p = ready[pl.pod]!;
    ctx.keep(p, index.get(pl.node)!, pl.results);
    if (pl.explain === undefined) continue;
    p.outcome.explain = pl.explain;
    if (pl.explain.comparison < 0) better++;
    else asGood++;
  }
  out.placed = result.placements.length;
  if (better + asGood > 0) out.explain = { better, asGood };
  refuse(
    ready.filter((p) => p.outcome.node === null).map((p) => p.outcome),
    `${what}: ${out.placed} pod(s) placed, at least ${request.minCount} needed; no room for this one beside them`,
  );
  return settleGroup(out);
}
