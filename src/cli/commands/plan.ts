// gpualloc plan: ranked placement options for a model on a host (or a saved cluster state), and
// --commit to apply the best one to the state file (under flock on FILE.lock, written atomically).
import { resolve } from 'node:path';
import { nodeFromInventory } from '../../cluster/node.js';
import type { ClusterPlanRequest, ClusterState } from '../../cluster/state.js';
import { type Engine, openEngine } from '../../engine.js';
import { DEFAULT_CONTEXT_LENGTH, estimateMemory } from '../../models/estimate.js';
import type { PlacementOption, PlacementPlan, Rejection } from '../../placement/index.js';
import { DEFAULT_PLACEMENT_LIMIT, MAX_PARTS } from '../../placement/index.js';
import { type ByteUnits, formatBytes, sayBytesIn } from '../../shared/units.js';
import type { RetryResult } from '../../store/index.js';
import { type Command, EXIT, type Io, parsePositiveInt, table, UsageError } from '../lib/common.js';
import { sayWithFlags } from '../lib/error-words.js';
import { backendOption, integerIn, inventoryOption, jsonOption, option, optionsHelp, presetOption, readOptions } from '../lib/options.js';
import { type ModelMemory, type ModelPlan, parseLimitFlag, parseMemoryFlag, parsePolicyFlag, parseTpFlag, planModel, sizesLine } from '../lib/plan-sizes.js';
import { resolveInventory } from '../lib/source.js';
import { busyLine, refreshUsed, stateFile } from '../lib/state-file.js';
import { CLI_COMMIT_ATTEMPTS, EXIT_OUTCOME_UNKNOWN, exitOnUnknown, storeUrlOf, withStoredState } from '../lib/store.js';

const OPTIONS = {
  memory: option({
    type: 'string',
    value: 'SIZE',
    field: 'memory',
    parse: parseMemoryFlag,
    help: "memory the model needs in total: 140GB, 140GiB, 512MiB, or Kubernetes'\n140G (= GB) and 140Gi (= GiB); a bare number is bytes and must be at\nleast 1 MiB; sizes print in the units typed",
  }),
  gguf: option({
    type: 'string',
    value: 'FILE',
    help: "estimate the memory from a GGUF file instead (Ollama's estimate): each\nGPU of a TP group holds its share of the weights and KV cache, plus the\nwhole graph and the per-GPU reserve",
  }),
  context: option({
    type: 'string',
    value: 'N',
    help: `context length for --gguf (default ${DEFAULT_CONTEXT_LENGTH}, as estimate and the page)`,
    field: 'options.contextLength',
    parse: parsePositiveInt,
  }),
  inventory: inventoryOption("the host's GPUs from an inventory file"),
  preset: presetOption("the host's GPUs from a built-in preset (see `gpualloc presets`)"),
  tp: option({
    type: 'string',
    value: 'LIST',
    field: 'tensorParallelSizes',
    parse: parseTpFlag,
    suggestFor: ['tensor-parallel', 'tensor-parallel-size', 'tensor-parallel-sizes'],
    help: 'tensor-parallel sizes to try (default: powers of two up to the GPU count;\nwith --gguf only sizes dividing the attention heads, KV heads split or\nreplicated as vLLM does; the dropped ones are named on stderr)',
  }),
  policy: option({ type: 'string', value: 'NAME', help: 'spread (default: balance load) or pack (keep whole GPUs free)', field: 'policy', parse: parsePolicyFlag }),
  model: option({ type: 'string', value: 'NAME', help: "the model's name: its own slots are never evicted for it", field: 'model' }),
  'no-evict': option({ type: 'boolean', help: 'do not plan evictions of stale slots', field: 'allowEviction' }),
  'allow-mig': option({
    type: 'boolean',
    help: 'let GPUs in MIG mode take the model as whole GPUs (by default they are\nrejected: their slices are allocated with gpualloc replicas)',
    field: 'allowMig',
  }),
  limit: option({ type: 'string', value: 'N', help: 'how many options to print (default 16)', field: 'limit', parse: parseLimitFlag }),
  'max-nodes': option({
    type: 'string',
    value: 'N',
    field: 'maxNodes',
    parse: integerIn(1, MAX_PARTS),
    help: `most nodes one option may span (tensor-parallel in each × a pipeline stage per\nnode, vLLM's multi-node serving); default: across nodes only when no node\ncan hold the model, up to ${MAX_PARTS}; 1: never`,
  }),
  'topology-required': option({
    type: 'string',
    value: 'LABEL',
    field: 'topology.required',
    help: 'a node label every node of an option shares one value of\n(nvidia.com/gpu.clique: one NVLink domain)',
  }),
  'topology-preferred': option({
    type: 'string',
    value: 'LABELS',
    field: 'topology.preferred',
    help: 'node labels, comma-separated, most important first: options across fewer\nof their values rank first (rack,topology.kubernetes.io/zone)',
  }),
  state: option({
    type: 'string',
    value: 'FILE',
    help: "plan against a saved cluster state (a missing FILE is planned as the\ninventory's node and written only by --commit; with --inventory, that node's\nused memory is read again, less its slots)",
  }),
  store: option({
    type: 'string',
    value: 'URL',
    help: 'plan against a cluster state in PostgreSQL (postgres://…; gpualloc state init\n--store URL creates it); with --commit, a lost race is re-planned up to 5 times.\nWithout --store and --state, GPUALLOC_STORE is used when set; the password\nand TLS settings may come from PGPASSWORD, ~/.pgpass, PGSERVICE, PGSSLMODE, …',
  }),
  commit: option({ type: 'boolean', help: "apply the best option to --state FILE (or --store URL) and print the new slot's ID" }),
  'request-id': option({
    type: 'string',
    value: 'ID',
    field: 'options.requestId',
    help: "with --commit --store: this commit's identity; repeating the command with the\nsame ID returns the slot it committed instead of committing a second one",
  }),
  backend: backendOption(),
  json: jsonOption(
    'print { options, rejected, reason?, optionCount, tensorParallel: { sizes,\ndropped, memoryPerGpu? }, committed?, evicted? } as JSON (evicted: the slots\nthe commit removed, each { id, node, model, gpus, memoryPerGpu })',
  ),
};

const HELP = `gpualloc plan: every viable way to place a model on GPUs by memory, ranked, with per-GPU rejections

Usage: gpualloc plan (--memory SIZE | --gguf FILE [--context N]) [--inventory FILE | --preset NAME]
                     [--tp 1,2,4,8] [--policy spread|pack] [--model NAME] [--no-evict] [--allow-mig] [--limit N]
                     [--max-nodes N] [--topology-required LABEL] [--topology-preferred LABELS]
                     [--state state.json | --store URL] [--commit [--request-id ID]] [--backend wasm|ts] [--json]

Options:
${optionsHelp(OPTIONS, 21)}
Options are ranked by: fewer evictions (then fewer evicted bytes), fewer GPUs, higher topology
score, then spread (most free left on the fullest chosen GPU) or pack (least left over), then
lowest GPU indices; across nodes, then the least loaded node, then node ID. Options spanning
several nodes (a state of nodes none of which holds the model) rank after those on one node: fewer
nodes, fewer distinct values of each --topology-preferred label, fewer GPUs, then the worst part.
Memory that processes outside gpualloc hold on a GPU (an inventory's memoryUsed or its processes,
NVML's reading of this host) counts as taken: it is never evicted, and the output names it as
\`in use by other processes\`.
Exit codes: 0 an option was found (and committed), 1 nothing fits (or, with --store, every attempt
lost to another writer), 2 bad input (or a store that failed with nothing changed), ${EXIT_OUTCOME_UNKNOWN} the store
became unreachable while the commit was in flight: whether it landed is unknown (repeat the command
with the --request-id the message names to find out).
`;

/** A slot a commit evicted, as `--json` lists it (model null when the slot named none). */
type Evicted = { id: string; node: string; model: string | null; gpus: number[]; memoryPerGpu: number };

/** The slots `option` evicts, read from the state it is about to be committed to. */
function evictedBy(state: Pick<ClusterState, 'listSlots'>, option: PlacementOption): Evicted[] {
  if (option.evict.length === 0 || option.node === undefined) return [];
  const slots = new Map(state.listSlots(option.node).map((s) => [s.id, s]));
  return option.evict.map((id) => {
    const s = slots.get(id);
    return { id, node: option.node!, model: s?.model ?? null, gpus: s === undefined ? [] : [...s.gpus], memoryPerGpu: s?.memoryPerGpu ?? 0 };
  });
}

/** One line per evicted slot: `evicted slot s1 (model m, 40 GiB on each of GPUs 0,1 of node)`. */
function evictedLine(e: Evicted, units: ByteUnits): string {
  const where = e.gpus.length === 1 ? `on GPU ${e.gpus[0]}` : `on each of GPUs ${e.gpus.join(',')}`;
  return `evicted slot ${e.id} (${e.model === null ? 'no model' : `model ${e.model}`}, ${formatBytes(e.memoryPerGpu, units)} ${where} of ${e.node})`;
}

function render(
  plan: PlacementPlan,
  model: ModelMemory,
  planned: ModelPlan,
  busy: string | undefined,
  committed?: string,
  committedOption = 1,
  notCommitted?: string,
  evicted: Evicted[] = [],
  replayedBy?: string,
): string {
  const lines: string[] = [];
  const spans = plan.options.some((o) => o.parts !== undefined);
  const multiNode = spans || plan.options.some((o) => o.node !== undefined && o.node !== plan.options[0]!.node);
  // Sizes print the way --memory was typed (GB or GiB); a GGUF's in GiB.
  const units = model.kind === 'total' ? model.units : 'binary';
  const what = model.kind === 'total' ? formatBytes(model.memory, units) : model.file;
  if (plan.options.length > 0) {
    const header = ['#', ...(multiNode ? [spans ? 'NODES' : 'NODE'] : []), 'GPUS', ...(spans ? ['TP×PP'] : []), 'MEMORY/GPU', 'EVICT', 'SCORE'];
    const rows = plan.options.map((o, k) => [
      k + 1,
      ...(multiNode ? [o.parts === undefined ? (o.node ?? '') : o.parts.map((p) => p.node).join('+')] : []),
      o.parts === undefined ? o.gpus.join(',') : o.parts.map((p) => p.gpus.join(',')).join(' + '),
      ...(spans ? [o.parts === undefined ? `${o.gpus.length}×1` : `${o.tensorParallel}×${o.pipelineParallel}`] : []),
      formatBytes(o.memoryPerGpu, units),
      o.evict.length === 0 ? '-' : o.evict.join(','),
      o.score,
    ]);
    const count =
      planned.optionCount > plan.options.length
        ? `showing ${plan.options.length} of ${planned.countCapped ? 'at least ' : ''}${planned.optionCount} options`
        : `${plan.options.length} option${plan.options.length === 1 ? '' : 's'}`;
    lines.push(`${count} for ${what}${plan.options[0]!.node !== undefined && !multiNode ? ` on ${plan.options[0]!.node}` : ''}:`); // options.length > 0
    lines.push(table(header, rows).trimEnd());
  } else {
    lines.push(`no option for ${what}: ${sayBytesIn(plan.reason?.message ?? 'nothing fits', units)}`);
  }
  if (plan.rejected.length > 0) {
    const byCode = new Map<string, number>();
    for (const r of plan.rejected) byCode.set(r.code, (byCode.get(r.code) ?? 0) + 1);
    lines.push('');
    lines.push(`rejected GPUs (${[...byCode].map(([c, n]) => `${n} ${c}`).join(', ')}):`);
    for (const r of plan.rejected) lines.push(`  ${sayBytesIn(r.message, units)}`);
  }
  if (busy !== undefined) {
    lines.push('');
    lines.push(busy);
  }
  if (committed !== undefined) {
    lines.push('');
    lines.push(replayedBy === undefined ? `committed option ${committedOption} as slot ${committed}` : `request ${replayedBy} was committed before, as slot ${committed}; nothing new was committed`);
    for (const e of evicted) lines.push(evictedLine(e, units));
  }
  if (notCommitted !== undefined) {
    lines.push('');
    lines.push(`not committed: ${notCommitted}`);
  }
  return lines.join('\n') + '\n';
}

/** Per-GPU rejections of every node, for display when the plan has options (ClusterState.plan lists them only when it has none). */
function explain(engine: Engine, state: Pick<ClusterState, 'toJSON'>, request: ClusterPlanRequest): Rejection[] {
  const json = state.toJSON();
  if (json.nodes.length > 64) return [];
  const out: Rejection[] = [];
  const { maxNodes: _m, topology: _t, attentionHeads: _h, ...one } = request;
  for (const node of json.nodes) {
    const p = engine.planPlacement({ ...one, gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), limit: 1 });
    for (const r of p.rejected) out.push({ node: node.id, ...r, message: r.message.replace(/^GPU (\d+)/, `GPU $1 on node ${node.id}`) });
  }
  return out;
}

/** The stderr lines on the sizes tried (and dropped), the per-GPU memory of a GGUF, and --tp warnings. */
function reportSizes(io: Io, planned: ModelPlan): void {
  io.err(`gpualloc: ${sizesLine(planned)}\n`);
  if (planned.memoryPerGpu !== undefined) io.err(`gpualloc: memory per GPU: ${planned.sizes.map((t) => `TP ${t} ${formatBytes(planned.memoryPerGpu![t]!)}`).join(', ')}\n`);
  for (const w of planned.warnings) io.err(`gpualloc: warning: ${w}\n`);
}

/** `--json`'s object: the plan, how many options exist, the sizes' story, the committed slot and what it evicted. */
function jsonOf(plan: PlacementPlan, planned: ModelPlan, committed: string | undefined, evicted: Evicted[] = []): object {
  const tensorParallel = {
    sizes: planned.sizes,
    dropped: planned.dropped,
    ...(planned.memoryPerGpu === undefined ? {} : { memoryPerGpu: planned.memoryPerGpu }),
    ...(planned.warnings.length === 0 ? {} : { warnings: planned.warnings }),
  };
  return { ...plan, optionCount: planned.optionCount, tensorParallel, ...(committed === undefined ? {} : { committed, evicted }) };
}

/** The one request commitWithRetry re-plans with on a store: a total over the sizes tried, a GGUF at the chosen size. */
function retryRequest(planned: ModelPlan, base: Omit<ClusterPlanRequest, 'memory'>, model: ModelMemory, size: number, limit: number): ClusterPlanRequest {
  if (model.kind === 'total') return { ...base, memory: model.memory, tensorParallelSizes: planned.sizes, limit };
  return { ...base, memory: planned.memoryPerGpu![size]! * size, tensorParallelSizes: [size], limit };
}

/** The `plan` subcommand. */
export const command: Command = {
  name: 'plan',
  summary: 'rank every viable placement of a model by memory (evicting stale work), optionally commit it',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const backend = values.backend ?? 'wasm';
    if (values.memory !== undefined && values.gguf !== undefined) throw new UsageError('give either --memory or --gguf, not both');
    if (values.memory === undefined && values.gguf === undefined) throw new UsageError('--memory SIZE (or --gguf FILE) is required');
    if (values.context !== undefined && values.gguf === undefined) throw new UsageError('--context needs --gguf');
    if (values.gguf !== undefined && (values['max-nodes'] !== undefined || values['topology-required'] !== undefined || values['topology-preferred'] !== undefined))
      throw new UsageError('--max-nodes and --topology-* plan options across nodes from a total: give --memory (gpualloc estimate --gguf FILE prints it), not --gguf');
    if (values.state !== undefined && values.store !== undefined) throw new UsageError('give --state FILE or --store URL, not both');
    const storeUrl = storeUrlOf(values, io);
    if (values.commit && values.state === undefined && storeUrl === undefined) throw new UsageError('--commit needs --state FILE or --store URL');
    const requestId = values['request-id'];
    if (requestId !== undefined && (!values.commit || storeUrl === undefined)) throw new UsageError('--request-id needs --commit and --store URL (or GPUALLOC_STORE)');
    let model: ModelMemory;
    if (values.memory !== undefined) model = values.memory;
    else {
      const contextLength = values.context ?? DEFAULT_CONTEXT_LENGTH;
      const estimate = await estimateMemory(resolve(io.cwd, values.gguf!), { contextLength }).catch((error: unknown) => {
        throw sayWithFlags(error, { source: `--gguf ${values.gguf}` });
      });
      model = { kind: 'gguf', file: values.gguf!, estimate };
      if (!values.json)
        io.err(
          `gpualloc: ${values.gguf} at context ${contextLength}: weights ${formatBytes(estimate.weights)}, KV cache ${formatBytes(estimate.kvCache)} (${estimate.kvHeads} KV heads), graph ${formatBytes(estimate.graph)} per GPU, ${formatBytes(estimate.total - estimate.weights - estimate.kvCache - estimate.graph)} reserve per GPU; ${formatBytes(estimate.total)} on one GPU\n`,
        );
    }
    const tp = values.tp;
    const limit = values.limit ?? DEFAULT_PLACEMENT_LIMIT;
    const request: Omit<ClusterPlanRequest, 'memory'> = {};
    if (values.policy !== undefined) request.policy = values.policy;
    if (values.model !== undefined) request.model = values.model;
    if (values['no-evict']) request.allowEviction = false;
    if (values['allow-mig']) request.allowMig = true;
    if (values['max-nodes'] !== undefined) request.maxNodes = values['max-nodes'];
    const required = values['topology-required'];
    const preferred = values['topology-preferred'];
    if (required !== undefined || preferred !== undefined)
      request.topology = { ...(required === undefined ? {} : { required }), ...(preferred === undefined ? {} : { preferred: preferred.split(',').map((k) => k.trim()) }) };

    const engine = await openEngine({ backend });
    if (storeUrl !== undefined) {
      if ((values.inventory !== undefined || values.preset !== undefined) && !values.json)
        io.err('gpualloc: using the nodes of --store; --inventory/--preset only seed a new store (gpualloc state init)\n');
      return exitOnUnknown(io, values.json === true, async () => {
        const { plan, planned, busy, result, evicted } = await withStoredState(engine, storeUrl, io.env, async (state) => {
          const planned = planModel(state, request, model, tp, limit, engine);
          if (!values.json) reportSizes(io, planned);
          // Rejections are explained on the state each plan was made on (before its commit), as with --state FILE.
          const annotate = (p: PlacementPlan): void => {
            if (p.options.length > 0 && p.rejected.length === 0 && p.options[0]!.parts === undefined) p.rejected = explain(engine, state, planned.explainRequest);
          };
          let plan = planned.plan;
          let busy = busyLine(state);
          let result: RetryResult | undefined;
          // What each option of the plan being committed would evict, read before the commit removes it.
          let evictions: Evicted[][] = [];
          if (values.commit && plan.options.length > 0) {
            // A lost race is re-planned with one request: the best option's size (for a GGUF, at that size's per-GPU memory).
            result = await state.commitWithRetry(retryRequest(planned, request, model, plan.options[0]!.gpus.length, limit), {
              attempts: CLI_COMMIT_ATTEMPTS,
              lastActivity: Date.now(),
              onPlan: (p) => {
                annotate(p);
                busy = busyLine(state);
                evictions = p.options.map((o) => evictedBy(state, o));
              },
              ...(requestId === undefined ? {} : { requestId }),
            });
            plan = result.plan;
          } else annotate(plan);
          // A repeated request's slot was committed before: this plan's options evicted nothing.
          const evicted = result?.committed === undefined || result.replayed === true ? [] : (evictions[result.option ?? 0] ?? []);
          return { plan, planned, busy, result, evicted };
        });
        const committed = result?.committed;
        const lost = result !== undefined && committed === undefined && plan.options.length > 0 ? result.reason : undefined;
        const replayed = result?.replayed === true ? { replayed: true } : {};
        if (values.json)
          io.out(JSON.stringify(lost !== undefined ? { ...jsonOf(plan, planned, committed), reason: lost } : { ...jsonOf(plan, planned, committed, evicted), ...replayed }, null, 2) + '\n');
        else io.out(render(plan, model, planned, busy, committed, (result?.option ?? 0) + 1, lost?.message, evicted, result?.replayed === true ? requestId : undefined));
        return committed !== undefined || (!values.commit && plan.options.length > 0) ? EXIT.OK : EXIT.INFEASIBLE;
      });
    }
    /** Plans on the saved state (undefined: none yet, or no --state) and commits the best option when asked; returns the state to write. */
    const planOn = async (saved: ClusterState | undefined): Promise<{ plan: PlacementPlan; planned: ModelPlan; busy?: string; committed?: string; evicted?: Evicted[]; state: ClusterState }> => {
      let state = saved;
      if (state === undefined) {
        const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: values.json === true }, io);
        state = engine.createClusterState({ nodes: [nodeFromInventory(inventory)] });
      } else if (values.inventory !== undefined) {
        // A fresh reading of a node already in the state: its used memory is read again, less what its slots hold.
        const { inventory } = await resolveInventory({ inventory: values.inventory, quiet: true }, io);
        state = refreshUsed(engine, state, inventory, values.inventory, values.state!);
        if (!values.json)
          io.err(`gpualloc: used memory of the node in ${values.inventory} read again (less what its slots in ${values.state} hold)${values.commit ? '' : '; the file is written only by --commit'}\n`);
      } else if (values.preset !== undefined) {
        if (!values.json) io.err(`gpualloc: using the nodes of ${values.state}; --preset only seeds a new state file\n`);
      }
      const planned = planModel(state, request, model, tp, limit, engine);
      const plan = planned.plan;
      if (plan.options.length > 0 && plan.rejected.length === 0 && plan.options[0]!.parts === undefined) plan.rejected = explain(engine, state, planned.explainRequest);
      if (!values.json) reportSizes(io, planned);
      const busy = busyLine(state);
      if (!values.commit || plan.options.length === 0) return { plan, planned, busy, state };
      // lastActivity lets `gpualloc state list` show the slot's age and `state gc --older-than` find it.
      const best = plan.options[0]!; // options.length > 0, checked above
      const evicted = evictedBy(state, best);
      const committed = state.commit(best, { lastActivity: Date.now() });
      return { plan, planned, busy, committed, evicted, state };
    };
    let outcome: Awaited<ReturnType<typeof planOn>>;
    if (values.state === undefined) outcome = await planOn(undefined);
    else {
      const file = stateFile(engine, io, values.state);
      // --commit: read, plan, commit and write under the state file's lock, so concurrent commits never lose one another.
      if (values.commit)
        outcome = await file.update(async (saved) => {
          const done = await planOn(saved);
          return { value: done, ...(done.committed === undefined ? {} : { write: done.state }) };
        });
      else outcome = await planOn(await file.current());
    }
    const { plan, planned, busy, committed, evicted } = outcome;
    if (values.json) io.out(JSON.stringify(jsonOf(plan, planned, committed, evicted), null, 2) + '\n');
    else io.out(render(plan, model, planned, busy, committed, 1, undefined, evicted));
    return plan.options.length > 0 ? EXIT.OK : EXIT.INFEASIBLE;
  },
};
