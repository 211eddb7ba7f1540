// gpualloc dra: Kubernetes DRA claims on the objects `kubectl get … -o json` writes. `allocate`
// puts pending claims together on one node (engine.allocateClaims); `schedule` places each pending
// claim of a cluster dump on the best node as kube-scheduler would (engine.createDraCluster).
// Claims with status.allocation count as held. --patch prints the status patch of each claim.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createEngine } from '../../engine.js';
import { AllocationError } from '../../shared/errors.js';
import { parseJson } from '../../shared/file-positions.js';
import { allocationPatch, claimsOfDump, DRA_FEATURE_GATES, DRA_MODES, NODE_SCORES, splitDraDump, type AllocationResult as DraAllocationResult, type DraDump, type DraExplanation, type DraFeature, type DraFeatures, type DraMode, type DumpClaim, type NodeScore } from '../../dra/index.js';
import { EXIT, table, UsageError, type Command, type Io } from '../lib/common.js';
import { helpOption, jsonOption, option, optionsHelp, readOptions } from '../lib/options.js';


const OPTIONS = {
  dump: option({ type: 'string', value: 'FILE', help: 'classes, slices, claims and nodes from one file' }),
  classes: option({ type: 'string', value: 'FILE', help: 'DeviceClasses' }),
  slices: option({ type: 'string', value: 'FILE', help: 'ResourceSlices' }),
  claims: option({ type: 'string', value: 'FILE', help: 'ResourceClaims (those with status.allocation hold their devices)' }),
  nodes: option({ type: 'string', value: 'FILE', help: 'Nodes (schedule)' }),
  node: option({ type: 'string', value: 'FILE|NAME', help: 'the Node to allocate on (allocate)' }),
  claim: option({ type: 'string', value: 'NAME', multiple: true, help: 'only this pending claim (namespace/name or name); repeatable' }),
  mode: option({ type: 'string', value: 'NAME', help: 'scored (default: best allocation by the documented objective) or first-fit\n(upstream\'s choices exactly)' }),
  'node-score': option({ type: 'string', value: 'NAME', help: "pack (default: most allocated node first), spread, first (node order), or\nfragmentation (scored mode: the node whose allocation scores best)" }),
  features: option({ type: 'string', value: 'LIST', help: `allocator features on, comma-separated (every other one off); default: the\ngates Kubernetes enables by default (${Object.keys(DRA_FEATURE_GATES).join(', ')})` }),
  json: jsonOption('print JSON'),
  explain: option({ type: 'boolean', help: "scored mode: show the objective's terms for the chosen allocation beside\nfirst-fit's (with --json: an \"explain\" field per claim)" }),
  patch: option({ type: 'boolean', help: 'print, per claim, the status patch: a `kubectl patch … --subresource=status`\ncommand (with --json: a "patch" field per claim)' }),
  help: helpOption(),
};

const HELP = `gpualloc dra: allocate Kubernetes DRA ResourceClaims (resource.k8s.io/v1) as the scheduler does

Usage:
  gpualloc dra allocate (--dump FILE | --classes FILE --slices FILE --claims FILE) --node FILE|NAME
                        [--claim NAME]... [--mode scored|first-fit] [--features LIST] [--json] [--patch]
                        [--explain]
  gpualloc dra schedule (--dump FILE | --classes FILE --slices FILE --claims FILE --nodes FILE)
                        [--claim NAME]... [--mode scored|first-fit]
                        [--node-score pack|spread|first|fragmentation] [--features LIST] [--json]
                        [--patch] [--explain]

Every FILE is what \`kubectl get deviceclasses,resourceslices,resourceclaims,nodes -o json\` writes:
one object, a List of any of the four kinds, a typed List (ResourceSliceList …) or an array. One
file may serve several flags (each takes its own kind from it); --dump FILE stands for all four.

  allocate   the pending claims (no status.allocation) together on one node, as the structured
             allocator does; --node names a Node of the files or a file holding one Node
  schedule   each pending claim, in file order, as its own pod: the best node that can take it
             (filter, score, allocate), keeping what it took for the next

Options:
${optionsHelp(OPTIONS, 23)}
Exit codes: 0 every claim allocated, 1 some claim cannot be (the reason on stderr), 2 bad usage or input.
`;


type Values = { dump?: string; classes?: string; slices?: string; claims?: string; nodes?: string; node?: string; claim?: string[]; mode?: string; 'node-score'?: string; features?: string; json?: boolean; patch?: boolean; explain?: boolean };

/** A file's objects; a file named by several flags is read once. */
async function readDump(io: Io, file: string, cache: Map<string, DraDump>): Promise<DraDump> {
  const known = cache.get(file);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new AllocationError('INVALID_ARGUMENT', `${file}: cannot read: ${(error as Error).message}`, { field: 'file', cause: error });
  }
  const json = parseJson(text, 'INVALID_ARGUMENT', file);
  let dump: DraDump;
  try {
    dump = splitDraDump(json, file);
  } catch (error) {
    // Named objects are told by name: add the file.
    if (error instanceof AllocationError && !error.message.startsWith(file)) {
      throw new AllocationError(error.code, `${file}: ${error.message}`, { ...(error.field !== undefined ? { field: error.field } : {}), cause: error });
    }
    throw error;
  }
  cache.set(file, dump);
  return dump;
}

/** The objects of the files the flags name, each kind from its own flag (or --dump). */
async function readInputs(io: Io, values: Values, kinds: Array<keyof DraDump>): Promise<DraDump & { files: string[] }> {
  const cache = new Map<string, DraDump>();
  const out: DraDump & { files: string[] } = { classes: [], slices: [], claims: [], nodes: [], files: [] };
  for (const kind of kinds) {
    const file = values[kind] ?? values.dump;
    if (file === undefined) throw new UsageError(`dra: --${kind} FILE (or --dump FILE) is required (see gpualloc dra --help)`);
    const dump = await readDump(io, file, cache);
    out[kind] = dump[kind];
    if (!out.files.includes(file)) out.files.push(file);
  }
  return out;
}

function parseFeatures(text: string | undefined): DraFeatures | undefined {
  if (text === undefined) return undefined;
  const names = Object.keys(DRA_FEATURE_GATES);
  const out: DraFeatures = {};
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
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

/** The pending claims to allocate: all, or those --claim names (each must be pending). */
function pending(claims: DumpClaim[], names: string[] | undefined, files: string[]): DumpClaim[] {
  const waiting = claims.filter((c) => c.allocation === undefined);
  if (names === undefined || names.length === 0) return waiting;
  return names.map((name) => {
    const found = claims.filter((c) => c.label === name || c.label.endsWith(`/${name}`));
    if (found.length === 0) throw new UsageError(`--claim: no ResourceClaim ${JSON.stringify(name)} in ${files.join(', ')} (claims: ${claims.map((c) => c.label).join(', ') || 'none'})`);
    if (found.length > 1) throw new UsageError(`--claim: ${JSON.stringify(name)} matches ${found.map((c) => c.label).join(', ')}; give namespace/name`);
    if (found[0].allocation !== undefined) throw new UsageError(`--claim: ResourceClaim ${found[0].label} is already allocated (status.allocation)`);
    return found[0];
  });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `kubectl patch` of one claim's status. */
function patchCommand(label: string, allocation: DraAllocationResult): string {
  const slash = label.indexOf('/');
  const [namespace, name] = slash < 0 ? [undefined, label] : [label.slice(0, slash), label.slice(slash + 1)];
  return `kubectl patch resourceclaim ${name}${namespace !== undefined ? ` -n ${namespace}` : ''} --subresource=status --type=merge -p ${shellQuote(JSON.stringify(allocationPatch(allocation)))}\n`;
}

function deviceRows(label: string, node: string, allocation: DraAllocationResult): string[][] {
  return allocation.devices.results.map((r) => [label, node, r.request, r.driver, r.pool, r.device + (r.shareID !== undefined ? ` (share ${r.shareID.slice(0, 8)})` : '')]);
}

/** The objective's terms of the chosen allocation beside first-fit's, one line each. */
function explainLines(label: string, node: string, explain: DraExplanation): string {
  const terms = (o: DraExplanation['chosen']): string => `topology ${o.topology}, fragmentation ${o.fragmentation}, parents ${o.parents}, domains ${o.domains}, consumption ${o.consumption}${o.alternatives.length > 0 ? `, alternatives [${o.alternatives.join(',')}]` : ''}`;
  const same = explain.comparison === 0 ? ' (as good by every term)' : '';
  return `${label} on ${node}: scored   ${terms(explain.chosen)}\n${' '.repeat(label.length + node.length + 5)}first-fit ${terms(explain.firstFit.objective)}${same}: ${explain.firstFit.devices.flat().map((d) => d.slice(d.lastIndexOf('/') + 1)).join(', ')}\n`;
}

async function allocate(values: Values, io: Io): Promise<number> {
  if (values.node === undefined) throw new UsageError('dra allocate: --node FILE|NAME is required (see gpualloc dra --help)');
  if (values.nodes !== undefined) throw new UsageError('dra allocate: --nodes is for schedule; allocate takes --node FILE|NAME');
  if (values['node-score'] !== undefined) throw new UsageError('dra allocate: --node-score is for schedule');
  const mode = oneOf<DraMode>('--mode', values.mode, DRA_MODES);
  const features = parseFeatures(values.features);
  const inputs = await readInputs(io, values, ['classes', 'slices', 'claims']);
  let node: unknown;
  // --node is a file when one is there, else a node's name.
  const nodeFile = await readFile(resolve(io.cwd, values.node), 'utf8').then(() => true, () => false);
  if (nodeFile) {
    const nodes = (await readDump(io, values.node, new Map())).nodes;
    if (nodes.length !== 1) throw new UsageError(`--node ${values.node}: expected a file with one Node, found ${nodes.length}`);
    node = nodes[0];
  } else {
    const candidates = values.dump !== undefined ? (await readDump(io, values.dump, new Map())).nodes : [];
    node = candidates.find((n) => (n as { metadata: { name: string } }).metadata.name === values.node);
    if (node === undefined && candidates.length > 0) throw new UsageError(`--node: no Node ${JSON.stringify(values.node)} in ${values.dump} (nodes: ${candidates.map((n) => (n as { metadata: { name: string } }).metadata.name).join(', ')})`);
    // Without Node objects the node is its name alone (no labels for node selectors).
    node ??= { apiVersion: 'v1', kind: 'Node', metadata: { name: values.node } };
  }
  const nodeName = (node as { metadata: { name: string } }).metadata.name;
  const { claims, held } = claimsOfDump(inputs.claims);
  const chosen = pending(claims, values.claim, inputs.files);
  if (chosen.length === 0) throw new UsageError(`dra allocate: no pending ResourceClaim in ${inputs.files.join(', ')} (every claim has status.allocation)`);
  const engine = await createEngine();
  if (values.explain && mode === 'first-fit') throw new UsageError('dra allocate: --explain is for the scored mode');
  const r = engine.allocateClaims({ classes: inputs.classes, slices: inputs.slices, claims: chosen.map((c) => c.object), node, ...held, ...(features !== undefined ? { features } : {}), ...(mode !== undefined ? { mode } : {}), ...(values.explain ? { explain: true } : {}) });
  const labels = chosen.map((c) => c.label);
  if (r.reason !== undefined) {
    if (values.json) io.out(JSON.stringify({ node: nodeName, mode: mode ?? DRA_MODES[0], claims: labels, results: [], reason: r.reason }, null, 2) + '\n');
    io.err(`gpualloc: ${labels.join(', ')} cannot be allocated on ${nodeName}: ${r.reason.message}\n`);
    return EXIT.INFEASIBLE;
  }
  const entries = labels.map((claim, i) => ({ claim, allocation: r.results[i], ...(values.patch ? { patch: allocationPatch(r.results[i]) } : {}) }));
  if (values.json) {
    io.out(JSON.stringify({ node: nodeName, mode: mode ?? DRA_MODES[0], claims: entries, ...(r.objective !== undefined ? { objective: r.objective } : {}), ...(r.explain !== undefined ? { explain: r.explain } : {}) }, null, 2) + '\n');
  } else if (values.patch) {
    for (const e of entries) io.out(patchCommand(e.claim, e.allocation));
  } else {
    io.out(table(['CLAIM', 'NODE', 'REQUEST', 'DRIVER', 'POOL', 'DEVICE'], entries.flatMap((e) => deviceRows(e.claim, nodeName, e.allocation))));
    if (r.explain !== undefined) io.out(explainLines(labels.join(', '), nodeName, r.explain));
  }
  return EXIT.OK;
}

async function schedule(values: Values, io: Io): Promise<number> {
  if (values.node !== undefined) throw new UsageError('dra schedule: --node is for allocate; schedule takes every Node of --nodes FILE (or --dump)');
  const mode = oneOf<DraMode>('--mode', values.mode, DRA_MODES);
  const nodeScore = oneOf<NodeScore>('--node-score', values['node-score'], NODE_SCORES);
  const features = parseFeatures(values.features);
  const inputs = await readInputs(io, values, ['classes', 'slices', 'claims', 'nodes']);
  if (inputs.nodes.length === 0) throw new UsageError(`dra schedule: no Node in ${inputs.files.join(', ')}`);
  const { claims, held } = claimsOfDump(inputs.claims);
  const chosen = pending(claims, values.claim, inputs.files);
  const engine = await createEngine();
  if (values.explain && mode === 'first-fit') throw new UsageError('dra schedule: --explain is for the scored mode');
  const cluster = engine.createDraCluster({ classes: inputs.classes, slices: inputs.slices, nodes: inputs.nodes, ...held, ...(features !== undefined ? { features } : {}), ...(mode !== undefined ? { mode } : {}), ...(nodeScore !== undefined ? { nodeScore } : {}), ...(values.explain ? { explain: true } : {}) });
  const outcomes = chosen.map((c) => ({ claim: c.label, result: cluster.schedule(c.object) }));
  const failed = outcomes.filter((o) => o.result.reason !== undefined);
  const entries = outcomes.map((o) =>
    o.result.reason !== undefined
      ? { claim: o.claim, reason: o.result.reason }
      : { claim: o.claim, node: o.result.node, allocation: o.result.results[0], ...(values.patch ? { patch: allocationPatch(o.result.results[0]) } : {}), ...(o.result.explain !== undefined ? { explain: o.result.explain } : {}) },
  );
  if (values.json) {
    io.out(JSON.stringify({ mode: mode ?? DRA_MODES[0], nodeScore: nodeScore ?? NODE_SCORES[0], nodes: inputs.nodes.length, claims: entries }, null, 2) + '\n');
  } else if (values.patch) {
    for (const e of entries) if ('allocation' in e && e.allocation !== undefined) io.out(patchCommand(e.claim, e.allocation));
  } else {
    io.out(table(['CLAIM', 'NODE', 'REQUEST', 'DRIVER', 'POOL', 'DEVICE'], entries.flatMap((e) => ('allocation' in e && e.allocation !== undefined ? deviceRows(e.claim, e.node as string, e.allocation) : [[e.claim, '-', '', '', '', 'unschedulable']]))));
    for (const e of entries) if ('explain' in e && e.explain !== undefined) io.out(explainLines(e.claim, e.node as string, e.explain));
  }
  for (const f of failed) io.err(`gpualloc: ${f.claim}: ${f.result.reason?.message}\n`);
  return failed.length > 0 ? EXIT.INFEASIBLE : EXIT.OK;
}

/** The `dra` subcommand. */
export const command: Command = {
  name: 'dra',
  summary: 'Kubernetes DRA: allocate ResourceClaims on a node, or schedule them across a cluster dump',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const read = readOptions(OPTIONS, argv, { positionals: true });
    const values = read.values as Values;
    const positionals = read.positionals;
    const [action, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`dra: unexpected argument ${JSON.stringify(extra[0])} (see gpualloc dra --help)`);
    if (action === 'allocate') return allocate(values, io);
    if (action === 'schedule') return schedule(values, io);
    throw new UsageError(action === undefined ? 'dra: say allocate or schedule (see gpualloc dra --help)' : `dra: unknown action ${JSON.stringify(action)}: expected allocate or schedule`);
  },
};
