// What `gpualloc dra schedule` prints: a table of pods and claims, the JSON the docs give, and with
// --patch what kube-scheduler would write (each claim's status: allocation and reservedFor; each
// pod's Binding; claims made from templates created first), as JSON or as a kubectl script.
import { type AllocationResult, type DraExplanation, fragmentationParts, type GroupOutcome, type PodOutcome } from '../../dra/index.js';

/** A pending claim without a pod, scheduled on its own (as before pods were read). */
export interface ClaimOutcome {
  claim: string;
  node?: string;
  allocation?: AllocationResult;
  reason?: { code: 'UNSCHEDULABLE' | 'INVALID'; message: string };
  /** Scored mode with --explain: the allocation's terms beside first-fit's on its node (one object for claims placed together). */
  explain?: DraExplanation;
}

/** What a pod is known by in a reservedFor entry and a Binding. */
export interface PodRef {
  name: string;
  namespace: string;
  uid?: string;
}

function splitLabel(label: string): { namespace: string; name: string } {
  const slash = label.indexOf('/');
  return slash < 0 ? { namespace: 'default', name: label } : { namespace: label.slice(0, slash), name: label.slice(slash + 1) };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The status a claim gets: its allocation, reserved for the pod (when there is one). */
export function claimStatus(allocation: AllocationResult, pod?: PodRef): { status: { allocation: AllocationResult; reservedFor?: Array<{ resource: 'pods'; name: string; uid?: string }> } } {
  return { status: { allocation, ...(pod !== undefined ? { reservedFor: [{ resource: 'pods' as const, name: pod.name, ...(pod.uid !== undefined ? { uid: pod.uid } : {}) }] } : {}) } };
}

/** The Binding kube-scheduler posts for a pod. */
export function binding(pod: PodRef, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: pod.name, namespace: pod.namespace, ...(pod.uid !== undefined ? { uid: pod.uid } : {}) },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

/** The claim the resourceclaim controller would create from a template (owned by the pod). */
export function generatedClaim(label: string, podClaimName: string, pod: PodRef, spec: unknown): Record<string, unknown> {
  const { namespace, name } = splitLabel(label);
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      name,
      namespace,
      annotations: { 'resource.kubernetes.io/pod-claim-name': podClaimName },
      ...(pod.uid !== undefined ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec,
  };
}

/** `kubectl patch resourceclaim … --subresource=status` of one claim. */
export function claimPatchCommand(label: string, allocation: AllocationResult, pod?: PodRef): string {
  const { namespace, name } = splitLabel(label);
  return `kubectl patch resourceclaim ${name} -n ${namespace} --subresource=status --type=merge -p ${shellQuote(JSON.stringify(claimStatus(allocation, pod)))}\n`;
}

/** One pod's commands: create the claims made from templates, patch every claim's status, bind the pod. */
export function podScript(outcome: PodOutcome, pod: PodRef, generated: ReadonlyMap<string, Record<string, unknown>>): string {
  if (outcome.node === null) return `# ${outcome.pod}: not scheduled: ${outcome.reason.message}\n`;
  let out = `# ${outcome.pod} -> ${outcome.node}\n`;
  for (const c of outcome.claims) {
    const object = generated.get(c.claim);
    if (object !== undefined) out += `kubectl create -f - <<'EOF'\n${JSON.stringify(object)}\nEOF\n`;
  }
  for (const c of outcome.claims) if (c.allocation !== null) out += claimPatchCommand(c.claim, c.allocation, pod);
  out += `kubectl create -f - <<'EOF'\n${JSON.stringify(binding(pod, outcome.node))}\nEOF\n`;
  return out;
}

/** Table rows: one per device of each claim (a pod without claims, or not placed, gets one row). */
export function podRows(outcomes: readonly PodOutcome[]): string[][] {
  const rows: string[][] = [];
  for (const o of outcomes) {
    if (o.node === null) {
      rows.push([o.pod, '-', '', '', '', '', o.reason.code === 'INVALID' ? 'invalid' : 'unschedulable']);
      continue;
    }
    const devices = o.claims.flatMap((c) =>
      (c.allocation?.devices.results ?? []).map((r) => [o.pod, o.node, c.claim, r.request, r.driver, r.pool, r.device + (r.shareID !== undefined ? ` (share ${r.shareID.slice(0, 8)})` : '')]),
    );
    rows.push(...(devices.length > 0 ? devices : [[o.pod, o.node, '', '', '', '', '']]));
  }
  return rows;
}

/** Table rows of claims scheduled on their own. */
export function claimRows(outcomes: readonly ClaimOutcome[]): string[][] {
  return outcomes.flatMap((o) =>
    o.allocation === undefined
      ? [['-', '-', o.claim, '', '', '', o.reason?.code === 'INVALID' ? 'invalid' : 'unschedulable']]
      : o.allocation.devices.results.map((r) => ['-', o.node ?? '-', o.claim, r.request, r.driver, r.pool, r.device]),
  );
}

/** The objective's terms of the chosen allocation beside first-fit's, one line each. */
export function explainLines(label: string, node: string, explain: DraExplanation): string {
  const fragmentation = (value: number): string => {
    const { share, placements } = fragmentationParts(value);
    return `${share.toFixed(3)}‰ of a parent, placements ${placements.toFixed(3)}`;
  };
  const terms = (o: DraExplanation['chosen']): string =>
    `topology ${o.topology}, opened ${o.opened}, fragmentation ${fragmentation(o.fragmentation)}, parents ${o.parents}, domains ${o.domains}, consumption ${o.consumption}${o.alternatives.length > 0 ? `, alternatives [${o.alternatives.join(',')}]` : ''}`;
  const same = explain.comparison === 0 ? ' (as good by every term)' : '';
  return `${label} on ${node}: scored   ${terms(explain.chosen)}\n${' '.repeat(label.length + node.length + 5)}first-fit ${terms(explain.firstFit.objective)}${same}: ${explain.firstFit.devices
    .flat()
    .map((d) => d.slice(d.lastIndexOf('/') + 1))
    .join(', ')}\n`;
}

/**
 * `dra schedule --explain` in text: each pod (a gang's too) placed, its terms beside first-fit's
 * (explainLines), or `POD: not placed: REASON`; then each gang, what it placed and against
 * first-fit, or why not; then each pending claim without a pod (`claim NAME`, claims placed
 * together once, named together) the same way as a pod.
 */
export function explainSchedule(pods: readonly PodOutcome[], groups: readonly GroupOutcome[], claims: readonly ClaimOutcome[]): string {
  let out = '';
  for (const p of pods) {
    if (p.node !== null && p.explain !== undefined) out += explainLines(p.pod, p.node, p.explain);
    else if (p.reason !== undefined) out += `${p.pod}: not placed: ${p.reason.message}\n`;
  }
  for (const g of groups) {
    const of = `${g.placed} of ${g.pods.length} pending pod(s) placed${g.bound > 0 ? ` (${g.bound} bound)` : ''}`;
    if (g.reason !== undefined) out += `gang ${g.group}: not placed: ${g.reason.message}\n`;
    else if (g.explain !== undefined) out += `gang ${g.group}: ${of}; scored better than first-fit for ${g.explain.better} pod(s) on their nodes, as good for ${g.explain.asGood}\n`;
    else out += `gang ${g.group}: ${of}\n`;
  }
  const done = new Set<DraExplanation>();
  for (const c of claims) {
    if (c.explain !== undefined && c.node !== undefined) {
      if (done.has(c.explain)) continue;
      done.add(c.explain);
      const together = claims.filter((o) => o.explain === c.explain).map((o) => o.claim);
      out += explainLines(`claim ${together.join(', ')}`, c.node, c.explain);
    } else if (c.reason !== undefined) out += `claim ${c.claim}: not placed: ${c.reason.message}\n`;
  }
  return out;
}
