// gpualloc dra: Kubernetes DRA on the objects `kubectl get … -o yaml|json` writes (files or
// standard input, every served version). `schedule` places a cluster's pending pods as
// kube-scheduler would (queue order, claims and templates, the default filters, the claims of a
// pod together on one node) and the pending claims without a pod each on its own; `allocate` puts
// pending claims together on one node. Nothing one pod or claim does stops the others.

import {
  type AllocationResult,
  type ClusterDump,
  claimsOfDump,
  DEFAULT_DRA_FEATURES,
  DRA_FEATURE_GATES,
  DRA_FEATURE_STAGES,
  DRA_MODES,
  type DraCluster,
  type DraFeature,
  type DraFeatures,
  type DraMode,
  type DumpClaim,
  NODE_SCORES,
  type NodeScore,
  podOwnerOf,
  schedulePods,
} from '../../dra/index.js';
import { openEngine } from '../../engine.js';
import { AllocationError } from '../../shared/errors.js';
import { type Command, EXIT, type Io, table, UsageError } from '../lib/common.js';
import { type DumpPart, readInputs } from '../lib/dra-input.js';
import { binding, type ClaimOutcome, claimPatchCommand, claimRows, claimStatus, explainLines, explainSchedule, generatedClaim, type PodRef, podRows, podScript } from '../lib/dra-output.js';
import { helpOption, jsonOption, option, optionsHelp, readOptions } from '../lib/options.js';

/** The features on (or off) by default, each with its Kubernetes 1.36 stage: `adminAccess (GA), …`. */
function featureList(on: boolean): string {
  return (Object.keys(DEFAULT_DRA_FEATURES) as DraFeature[])
    .filter((f) => DEFAULT_DRA_FEATURES[f] === on)
    .map((f) => `${f} (${DRA_FEATURE_STAGES[f]})`)
    .join(', ');
}

const OPTIONS = {
  dump: option({ type: 'string', value: 'FILE|-', multiple: true, help: 'a cluster dump: every kind from one file or standard input (-); repeatable' }),
  classes: option({ type: 'string', value: 'FILE', help: 'DeviceClasses' }),
  slices: option({ type: 'string', value: 'FILE', help: 'ResourceSlices (and DeviceTaintRules)' }),
  claims: option({ type: 'string', value: 'FILE', help: 'ResourceClaims and ResourceClaimTemplates (claims with status.allocation hold\ntheir devices)' }),
  nodes: option({ type: 'string', value: 'FILE', help: 'Nodes (schedule)' }),
  pods: option({ type: 'string', value: 'FILE', help: 'Pods (schedule)' }),
  node: option({ type: 'string', value: 'NAME', help: 'the Node to allocate on (allocate)' }),
  claim: option({ type: 'string', value: 'NAME', multiple: true, help: 'only this pending claim (namespace/name or name); repeatable; no pods then' }),
  mode: option({ type: 'string', value: 'NAME', help: "scored (default: best allocation by the documented objective) or first-fit\n(upstream's choices exactly)" }),
  'node-score': option({
    type: 'string',
    value: 'NAME',
    help: "the node order instead of kube-scheduler's (NodeResourcesFit LeastAllocated):\npack (most allocated devices first), spread, first (node order), or\nfragmentation (scored mode: the node whose allocation scores best); default:\nkube-scheduler's order for pods (scored mode: the best-scoring allocation among\nits first nodes), and for claims without a pod fragmentation (first-fit: pack)",
  }),
  features: option({
    type: 'string',
    value: 'LIST',
    help: `allocator features on, comma-separated (every other one off); default: those\nKubernetes 1.36 enables by default: ${featureList(true)};\noff by default: ${featureList(false)}`,
  }),
  workload: option({
    type: 'string',
    value: 'pending',
    help: "scored mode: the claims expected, for the fragmentation term: pending (the input's\npending claims, each once; the term then looks 6 claims ahead); default: every\npartition shape each node publishes, equally (FGD's next claim)",
  }),
  strict: option({ type: 'boolean', help: 'every field the readers do not know is an error (default: a warning)' }),
  detail: option({ type: 'boolean', help: 'for a pod not placed, why each node was not chosen' }),
  json: jsonOption('print JSON'),
  explain: option({
    type: 'boolean',
    help: 'scored mode: per pod, gang and pending claim without a pod (schedule) or for the\nclaims (allocate), the objective\'s terms of the chosen allocation beside first-fit\'s on\nthe same node, or why it was not placed (with --json: an "explain" field)',
  }),
  patch: option({ type: 'boolean', help: 'print what kube-scheduler would write, as kubectl commands (with --json: a\n"patch" per claim and a "binding" per pod)' }),
  help: helpOption(),
};

const HELP = `gpualloc dra: where Kubernetes would put pending pods and their DRA claims, and why not

Usage:
  gpualloc dra schedule --dump FILE|- [--dump FILE]... [--node-score pack|spread|first|fragmentation]
                        [--mode scored|first-fit] [--workload pending] [--features LIST]
                        [--strict] [--detail] [--json] [--patch] [--explain]
  gpualloc dra allocate --dump FILE|- --node NAME [--claim NAME]... [--mode …] [--workload pending]
                        [--json] [--patch] [--explain]

  kubectl get deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates,pods,nodes -A -o yaml \\
    | gpualloc dra schedule --dump -

Input: JSON or YAML as kubectl writes it (one object, a List, a YAML stream), from files or standard
input (-); resource.k8s.io/v1, v1beta2 and v1beta1, converted as the API server converts them.
--classes, --slices, --claims, --nodes and --pods take one kind each from their own file instead.
Kinds the scheduler does not use are skipped (one count on stderr).

  schedule   every pending pod, in scheduling-queue order, on the node kube-scheduler would pick
             (claims of a pod together on one node); then each pending claim without a pod
  allocate   the pending claims (no status.allocation) together on the node --node names

Options:
${optionsHelp(OPTIONS, 23)}
Exit codes: 0 everything placed, 1 something not placed or invalid (the reason on stderr), 2 the
input as a whole cannot be read, or bad usage.
`;

type Values = {
  dump?: string[];
  classes?: string;
  slices?: string;
  claims?: string;
  nodes?: string;
  pods?: string;
  node?: string;
  claim?: string[];
  mode?: string;
  'node-score'?: string;
  features?: string;
  workload?: string;
  strict?: boolean;
  detail?: boolean;
  json?: boolean;
  patch?: boolean;
  explain?: boolean;
};

function parseFeatures(text: string | undefined): DraFeatures | undefined {
  if (text === undefined) return undefined;
  const names = Object.keys(DRA_FEATURE_GATES);
  const out: DraFeatures = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    if (!names.includes(part)) throw new UsageError(`--features: unknown feature ${JSON.stringify(part)} (known: ${names.join(', ')})`);
    out[part as DraFeature] = true;
  }
  return out;
}

function oneOf<T extends string>(flag: string, text: string | undefined, options: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  if (!(options as readonly string[]).includes(text)) throw new UsageError(`${flag}: expected ${options.join(' or ')}, got ${JSON.stringify(text)}`);
  return text as T;
}

/** --workload: whether the input's pending claims are the workload (scored mode only). */
function workloadOf(values: Values, mode: DraMode | undefined): boolean {
  if (oneOf('--workload', values.workload, ['pending'] as const) === undefined) return false;
  if (mode === 'first-fit') throw new UsageError('--workload is for the scored mode');
  return true;
}

async function inputs(io: Io, values: Values, needs: DumpPart[]): Promise<ClusterDump & { files: string[] }> {
  const parts: Partial<Record<DumpPart, string>> = {};
  for (const part of ['classes', 'slices', 'claims', 'nodes', 'pods'] as const) if (values[part] !== undefined) parts[part] = values[part];
  for (const part of needs) {
    if (parts[part] === undefined && (values.dump ?? []).length === 0) throw new UsageError(`dra: --${part} FILE (or --dump FILE) is required (see gpualloc dra --help)`);
  }
  return readInputs(io, { ...(values.dump !== undefined ? { dump: values.dump } : {}), parts }, { strict: values.strict === true });
}

/** An error about an object of the dump, said at the file, line and column where the object stands. */
function located(dump: ClusterDump, error: unknown): unknown {
  // The readers' errors have the object (`ResourceSlice/name`) as their origin.
  const object = error instanceof AllocationError ? (error.origin ?? error.details?.object) : undefined;
  if (!(error instanceof AllocationError) || typeof object !== 'string') return error;
  const where = dump.locate(object, error.field);
  return where === undefined
    ? error
    : AllocationError.of(error.code, { origin: where.origin, ...(where.position !== undefined ? { position: where.position } : {}), detail: error.message, cause: error });
}

/** The pending claims --claim names (each must exist and be pending). */
function named(claims: DumpClaim[], names: string[], files: string[]): DumpClaim[] {
  return names.map((name) => {
    const found = claims.filter((c) => c.label === name || c.label.endsWith(`/${name}`));
    if (found.length === 0) throw new UsageError(`--claim: no ResourceClaim ${JSON.stringify(name)} in ${files.join(', ')} (claims: ${claims.map((c) => c.label).join(', ') || 'none'})`);
    if (found.length > 1) throw new UsageError(`--claim: ${JSON.stringify(name)} matches ${found.map((c) => c.label).join(', ')}; give namespace/name`);
    const claim = found[0]!; // exactly one, checked above
    if (claim.allocation !== undefined) throw new UsageError(`--claim: ResourceClaim ${claim.label} is already allocated (status.allocation)`);
    return claim;
  });
}

/** Schedules one group of claims (one pod's, or one claim) through the cluster; errors of a claim become INVALID. */
function scheduleClaims(cluster: DraCluster, group: DumpClaim[], invalid: ReadonlyMap<string, string>): ClaimOutcome[] {
  const refused = group.map((c) => invalid.get(`ResourceClaim/${c.label.includes('/') ? c.label : `default/${c.label}`}`)).find((m) => m !== undefined);
  if (refused !== undefined) return group.map((c) => ({ claim: c.label, reason: { code: 'INVALID', message: refused } }));
  try {
    const r = cluster.schedule(group.map((c) => c.object));
    if (r.reason !== undefined) return group.map((c) => ({ claim: c.label, reason: r.reason }));
    // Claims placed together share one explanation (of them together).
    return group.map((c, i) => ({ claim: c.label, node: r.node, allocation: r.results[i], ...(r.explain !== undefined ? { explain: r.explain } : {}) }));
  } catch (error) {
    if (!(error instanceof AllocationError) || error.code !== 'DRA_REJECTED') throw error;
    return group.map((c) => ({ claim: c.label, reason: { code: 'INVALID', message: error.message } }));
  }
}

async function schedule(values: Values, io: Io): Promise<number> {
  if (values.node !== undefined) throw new UsageError('dra schedule: --node is for allocate; schedule takes every Node of the input');
  const mode = oneOf<DraMode>('--mode', values.mode, DRA_MODES);
  if (values.explain && mode === 'first-fit') throw new UsageError('dra schedule: --explain is for the scored mode');
  const nodeScore = oneOf<NodeScore>('--node-score', values['node-score'], NODE_SCORES);
  const workload = workloadOf(values, mode);
  const features = parseFeatures(values.features);
  const dump = await inputs(io, values, ['classes', 'slices', 'claims', 'nodes']);
  if (dump.nodes.length === 0) throw new UsageError(`dra schedule: no Node in ${dump.files.join(', ')}`);
  const { claims, held } = claimsOfDump(dump.claims);
  const engine = await openEngine();
  let cluster: DraCluster;
  try {
    cluster = engine.createDraCluster({
      classes: dump.classes,
      slices: dump.slices,
      nodes: dump.nodes,
      ...held,
      ...(features !== undefined ? { features } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(nodeScore !== undefined ? { nodeScore } : {}),
      ...(values.explain ? { explain: true } : {}),
      ...(workload ? { workload: claims.filter((c) => c.allocation === undefined).map((c) => ({ claim: c.object })) } : {}),
    });
  } catch (error) {
    throw located(dump, error);
  }
  const started = Date.now();
  let said = started;
  // Progress every 2 s of a long run, on a terminal only (a pipe or a log gets the result alone).
  const progress = (done: number, total: number): void => {
    if (io.errIsTerminal !== true) return;
    const now = Date.now();
    if (now - said < 2000) return;
    said = now;
    io.err(`gpualloc: scheduling: ${done}/${total} pods (${((now - started) / 1000).toFixed(0)} s)\n`);
  };

  // Pods first (unless --claim picks claims), then the pending claims no pod of the dump uses.
  const onlyClaims = values.claim !== undefined && values.claim.length > 0;
  const extendedResources = new Map<string, string>();
  for (const c of dump.classes) {
    const o = c as { metadata?: { name?: string }; spec?: { extendedResourceName?: string } };
    if (typeof o.spec?.extendedResourceName === 'string' && typeof o.metadata?.name === 'string') extendedResources.set(o.spec.extendedResourceName, o.metadata.name);
  }
  const podSchedule = onlyClaims
    ? { pods: [], generated: new Map<string, unknown>(), groups: [] }
    : schedulePods({
        pods: dump.pods,
        nodes: dump.nodeInfos,
        claims,
        templates: dump.templates,
        podGroups: dump.podGroups,
        extendedResources,
        placer: cluster,
        order: nodeScore === undefined ? 'scheduler' : 'placer',
        invalid: dump.invalid,
        detail: values.detail === true,
        progress,
      });
  const used = new Set(podSchedule.pods.flatMap((p) => p.claims.map((c) => c.claim)));
  const podLabels = new Set(dump.pods.map((p) => p.label));
  let pending: DumpClaim[];
  if (onlyClaims) pending = named(claims, values.claim ?? [], dump.files);
  else {
    const label = (c: DumpClaim): string => (c.label.includes('/') ? c.label : `default/${c.label}`);
    // Claims a pod of the dump uses were handled with it.
    const byPods = new Set(
      dump.pods.flatMap((p) => [
        ...p.claims.map((r) => (r.resourceClaimName !== undefined ? `${p.namespace}/${r.resourceClaimName}` : '')),
        ...[...p.claimStatuses.values()].map((n) => (n === null ? '' : `${p.namespace}/${n}`)),
      ]),
    );
    pending = claims.filter((c) => c.allocation === undefined && !used.has(label(c)) && !byPods.has(label(c)) && !podLabels.has(podOwnerOf(c.object) ?? ''));
  }
  // Claims owned by one pod (absent from the dump) go together, as that pod's would.
  const groups = new Map<string, DumpClaim[]>();
  for (const c of pending) {
    const owner = podOwnerOf(c.object);
    const key = owner !== undefined ? `pod:${owner}` : `claim:${c.label}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(c);
  }
  const claimOutcomes = [...groups.values()].flatMap((group) => scheduleClaims(cluster, group, dump.invalid));
  if (Date.now() - started > 2000) io.err(`gpualloc: scheduled ${podSchedule.pods.length} pods and ${claimOutcomes.length} claims in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const podsByLabel = new Map(dump.pods.map((p) => [p.label, p]));
  const refOf = (label: string): PodRef => {
    const p = podsByLabel.get(label);
    const slash = label.indexOf('/');
    return { namespace: label.slice(0, slash), name: label.slice(slash + 1), ...(p?.uid !== undefined ? { uid: p.uid } : {}) };
  };
  const generated = new Map<string, Record<string, unknown>>();
  for (const pod of podSchedule.pods) {
    for (const c of pod.claims) {
      const object = podSchedule.generated.get(c.claim) as { spec?: unknown } | undefined;
      if (c.generated !== undefined && object !== undefined) generated.set(c.claim, generatedClaim(c.claim, c.generated.podClaimName, refOf(pod.pod), object.spec));
    }
  }
  if (values.json) {
    const pods = podSchedule.pods.map((p) => ({
      ...p,
      claims: p.claims.map((c) => ({
        ...c,
        ...(values.patch && c.allocation !== null && p.node !== null ? { patch: claimStatus(c.allocation, refOf(p.pod)) } : {}),
        ...(values.patch && p.node !== null && generated.has(c.claim) ? { create: generated.get(c.claim) } : {}),
      })),
      ...(values.patch && p.node !== null ? { binding: binding(refOf(p.pod), p.node) } : {}),
    }));
    const claimsOut = claimOutcomes.map((c) => ({ ...c, ...(values.patch && c.allocation !== undefined ? { patch: claimStatus(c.allocation) } : {}) }));
    io.out(JSON.stringify({ pods, claims: claimsOut, ...(podSchedule.groups.length > 0 ? { groups: podSchedule.groups } : {}) }, null, 2) + '\n');
  } else if (values.patch) {
    io.out('#!/bin/sh\n# What kube-scheduler would write (gpualloc dra schedule --patch).\nset -e\n');
    for (const p of podSchedule.pods) io.out(podScript(p, refOf(p.pod), generated));
    for (const c of claimOutcomes) if (c.allocation !== undefined) io.out(claimPatchCommand(c.claim, c.allocation as AllocationResult));
  } else {
    io.out(table(['POD', 'NODE', 'CLAIM', 'REQUEST', 'DRIVER', 'POOL', 'DEVICE'], [...podRows(podSchedule.pods), ...claimRows(claimOutcomes)]));
    if (values.explain) io.out(explainSchedule(podSchedule.pods, podSchedule.groups, claimOutcomes));
  }
  let failed = 0;
  for (const p of podSchedule.pods) {
    if (p.reason === undefined) continue;
    failed++;
    io.err(`gpualloc: pod ${p.pod}: ${p.reason.message}\n`);
    for (const [node, why] of Object.entries(p.nodes ?? {})) io.err(`  ${node}: ${why}\n`);
  }
  for (const c of claimOutcomes) {
    if (c.reason === undefined) continue;
    failed++;
    io.err(`gpualloc: claim ${c.claim}: ${c.reason.message}\n`);
  }
  return failed > 0 ? EXIT.INFEASIBLE : EXIT.OK;
}

async function allocate(values: Values, io: Io): Promise<number> {
  if (values.node === undefined) throw new UsageError('dra allocate: --node NAME is required (see gpualloc dra --help)');
  if (values['node-score'] !== undefined) throw new UsageError('dra allocate: --node-score is for schedule');
  const mode = oneOf<DraMode>('--mode', values.mode, DRA_MODES);
  const features = parseFeatures(values.features);
  if (values.explain && mode === 'first-fit') throw new UsageError('dra allocate: --explain is for the scored mode');
  const dump = await inputs(io, values, ['classes', 'slices', 'claims']);
  const nodeObject = dump.nodes.find((n) => (n as { metadata: { name: string } }).metadata.name === values.node);
  if (nodeObject === undefined && dump.nodes.length > 0)
    throw new UsageError(
      `--node: no Node ${JSON.stringify(values.node)} in ${dump.files.join(', ')} (nodes: ${dump.nodes.map((n) => (n as { metadata: { name: string } }).metadata.name).join(', ')})`,
    );
  // Without Node objects the node is its name alone (no labels for node selectors).
  const node = nodeObject ?? { apiVersion: 'v1', kind: 'Node', metadata: { name: values.node } };
  const { claims, held } = claimsOfDump(dump.claims);
  const chosen = values.claim !== undefined && values.claim.length > 0 ? named(claims, values.claim, dump.files) : claims.filter((c) => c.allocation === undefined);
  if (chosen.length === 0) throw new UsageError(`dra allocate: no pending ResourceClaim in ${dump.files.join(', ')} (every claim has status.allocation)`);
  const engine = await openEngine();
  let r: ReturnType<typeof engine.allocateClaims>;
  try {
    r = engine.allocateClaims({
      classes: dump.classes,
      slices: dump.slices,
      claims: chosen.map((c) => c.object),
      node,
      ...held,
      ...(features !== undefined ? { features } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(values.explain ? { explain: true } : {}),
      ...(workloadOf(values, mode) ? { workload: claims.filter((c) => c.allocation === undefined).map((c) => ({ claim: c.object })) } : {}),
    });
  } catch (error) {
    throw located(dump, error);
  }
  const labels = chosen.map((c) => c.label);
  if (r.reason !== undefined) {
    if (values.json) io.out(JSON.stringify({ node: values.node, mode: mode ?? DRA_MODES[0], claims: labels, results: [], reason: r.reason }, null, 2) + '\n');
    io.err(`gpualloc: ${labels.join(', ')} cannot be allocated on ${values.node}: ${r.reason.message}\n`);
    return EXIT.INFEASIBLE;
  }
  // One result per claim, in the claims' order.
  const entries = labels.map((claim, i) => ({ claim, allocation: r.results[i]!, ...(values.patch ? { patch: claimStatus(r.results[i]!) } : {}) }));
  if (values.json)
    io.out(
      JSON.stringify(
        {
          node: values.node,
          mode: mode ?? DRA_MODES[0],
          claims: entries,
          ...(r.objective !== undefined ? { objective: r.objective } : {}),
          ...(r.explain !== undefined ? { explain: r.explain } : {}),
        },
        null,
        2,
      ) + '\n',
    );
  else if (values.patch) for (const e of entries) io.out(claimPatchCommand(e.claim, e.allocation));
  else
    io.out(
      table(
        ['CLAIM', 'NODE', 'REQUEST', 'DRIVER', 'POOL', 'DEVICE'],
        entries.flatMap((e) => e.allocation.devices.results.map((d) => [e.claim, values.node as string, d.request, d.driver, d.pool, d.device])),
      ),
    );
  if (!values.json && r.explain !== undefined) io.out(explainLines(labels.join(', '), values.node, r.explain));
  return EXIT.OK;
}

/** The `dra` subcommand. */
export const command: Command = {
  name: 'dra',
  summary: 'Kubernetes DRA: where pending pods and their claims would go in a cluster dump, and why not',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const read = readOptions(OPTIONS, argv, { positionals: true });
    const values = read.values as Values;
    const [action, ...extra] = read.positionals;
    if (extra.length > 0) throw new UsageError(`dra: unexpected argument ${JSON.stringify(extra[0])} (see gpualloc dra --help)`);
    if (action === 'allocate') return allocate(values, io);
    if (action === 'schedule') return schedule(values, io);
    throw new UsageError(action === undefined ? 'dra: say schedule or allocate (see gpualloc dra --help)' : `dra: unknown action ${JSON.stringify(action)}: expected schedule or allocate`);
  },
};
