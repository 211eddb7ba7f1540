// kube-scheduler's default filters that do not look at devices, one small function each (the
// scheduler framework's Filter plugins), each returning its plugin's reason in upstream's words
// (what `kubectl describe pod` shows after "0/N nodes are available:"), and NodeResourcesFit's
// default score (LeastAllocated over cpu and memory, weight 1 each).
import { selectorMatches, toleratesTaint } from '../model/index.js';
import type { Amounts, NodeInfo, NodeTaint, PodInfo } from '../objects/index.js';

/** What a node has given to the pods bound to it so far. */
export interface NodeUsage {
  requested: Amounts;
  pods: number;
}

/** NodeUnschedulable: a cordoned node takes only pods tolerating `node.kubernetes.io/unschedulable:NoSchedule`. */
export function filterUnschedulable(pod: PodInfo, node: NodeInfo): string | undefined {
  if (!node.unschedulable) return undefined;
  const taint: NodeTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
  return pod.tolerations.some((t) => toleratesTaint(t, taint)) ? undefined : 'node(s) were unschedulable';
}

/** NodeAffinity: spec.nodeSelector (every label equal) and the required node affinity. */
export function filterNodeAffinity(pod: PodInfo, node: NodeInfo): string | undefined {
  for (const key of Object.keys(pod.nodeSelector)) {
    if (node.labels[key] !== pod.nodeSelector[key]) return "node(s) didn't match Pod's node affinity/selector";
  }
  if (pod.affinity !== undefined && !selectorMatches(node, pod.affinity, `pod ${pod.label}`)) return "node(s) didn't match Pod's node affinity/selector";
  return undefined;
}

/** TaintToleration: the first NoSchedule or NoExecute taint the pod does not tolerate. */
export function filterTaints(pod: PodInfo, node: NodeInfo): string | undefined {
  for (const taint of node.taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!pod.tolerations.some((t) => toleratesTaint(t, taint))) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  }
  return undefined;
}

/**
 * NodeResourcesFit: every resource the pod requests fits what is allocatable minus what bound
 * pods request, and one more pod fits. `skip` names resources handled elsewhere (DRA extended
 * resources on this node). Upstream lists every insufficient resource; so does this.
 */
export function filterFit(pod: PodInfo, node: NodeInfo, usage: NodeUsage, skip?: ReadonlySet<string>): string[] {
  const reasons: string[] = [];
  const maxPods = node.allocatable.get('pods');
  if (maxPods !== undefined && usage.pods + 1 > maxPods) reasons.push('Too many pods');
  for (const [resource, amount] of pod.requests) {
    if (amount === 0 || skip?.has(resource) === true) continue;
    const free = (node.allocatable.get(resource) ?? 0) - (usage.requested.get(resource) ?? 0);
    if (amount > free) reasons.push(`Insufficient ${resource}`);
  }
  return reasons;
}

/**
 * NodeResourcesFit's default score, LeastAllocated: per resource (cpu and memory, weight 1 each)
 * (allocatable − requested) × 100 / allocatable after placing the pod, averaged. 0 … 100.
 */
export function leastAllocatedScore(pod: PodInfo, node: NodeInfo, usage: NodeUsage): number {
  let sum = 0;
  for (const resource of ['cpu', 'memory']) {
    const capacity = node.allocatable.get(resource) ?? 0;
    if (capacity === 0) continue;
    const requested = (usage.requested.get(resource) ?? 0) + (pod.requests.get(resource) ?? 0);
    sum += requested > capacity ? 0 : Math.floor(((capacity - requested) * 100) / capacity);
  }
  return Math.floor(sum / 2);
}

/** `0/N nodes are available: …` as kube-scheduler's FitError words it: reasons counted, sorted, joined. */
export function fitErrorMessage(nodes: number, reasons: ReadonlyMap<string, number>): string {
  const parts = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${nodes} nodes are available: ${parts.join(', ')}.`;
}
