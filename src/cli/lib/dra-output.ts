// What `gpualloc dra schedule` prints: a table of pods and claims, the JSON the docs give, and with
// --patch what kube-scheduler would write (each claim's status: allocation and reservedFor; each
// pod's Binding; claims made from templates created first), as JSON or as a kubectl script.
import type { AllocationResult, PodOutcome } from '../../dra/index.js';

/** A pending claim without a pod, scheduled on its own (as before pods were read). */
export interface ClaimOutcome {
  claim: string;
  node?: string;
  allocation?: AllocationResult;
  reason?: { code: 'UNSCHEDULABLE' | 'INVALID'; message: string };
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
