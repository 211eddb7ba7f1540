// gpualloc plan: ranked placement options for a model on a host (or a saved cluster state), and
// --commit to apply the best one to the state file (written to a temporary file, then renamed).
import { parseArgs } from 'node:util';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createEngine, type Engine } from '../engine.js';
import { AllocationError } from '../errors.js';
import { DEFAULT_CONTEXT_LENGTH, estimateMemory } from '../estimate.js';
import { DEFAULT_PLACEMENT_LIMIT } from '../placement.js';
import type { PlacementPlan, Rejection } from '../placement.js';
import { type ClusterPlanRequest, type ClusterState } from '../cluster/state.js';
import { nodeFromInventory } from '../cluster/node.js';
import { formatBytes, sayBytesIn } from '../units.js';
import { EXIT, parsePositiveInt, table, UsageError, type Command, type Io, parseBackend, ENGINE_OPTIONS } from './common.js';
import { resolveInventory } from './source.js';
import { stateFromText } from './strict-files.js';
import { PLAN_FLAGS, parseLimitFlag, parseMemoryFlag, parsePolicyFlag, parseTpFlag, planModel, sizesLine, type ModelMemory, type ModelPlan } from './plan-sizes.js';

const HELP = `gpualloc plan: every viable way to place a model on GPUs by memory, ranked, with per-GPU rejections

Usage: gpualloc plan (--memory SIZE | --gguf FILE [--context N]) [--inventory FILE | --preset NAME]
                     [--tp 1,2,4,8] [--policy spread|pack] [--model NAME] [--no-evict] [--limit N]
                     [--state state.json [--commit]] [--backend wasm|ts] [--json]

Options:
  --memory SIZE      memory the model needs in total: 140GB, 140GiB, 512MiB (a bare number is
                     bytes and must be at least 1 MiB); sizes print in the units typed
  --gguf FILE        estimate the memory from a GGUF file instead (Ollama's estimate): each
                     GPU of a TP group holds its share of the weights and KV cache, plus the
                     whole graph and the per-GPU reserve
  --context N        context length for --gguf (default ${DEFAULT_CONTEXT_LENGTH}, as estimate and the page)
  --inventory FILE   the host's GPUs from an inventory file
  --preset NAME      the host's GPUs from a built-in preset (see \`gpualloc presets\`)
  --tp LIST          tensor-parallel sizes to try (default: powers of two up to the GPU count;
                     with --gguf only sizes dividing the attention heads, KV heads split or
                     replicated as vLLM does; the dropped ones are named on stderr)
  --policy NAME      spread (default: balance load) or pack (keep whole GPUs free)
  --model NAME       the model's name: its own slots are never evicted for it
  --no-evict         do not plan evictions of stale slots
  --limit N          how many options to print (default 16)
  --state FILE       plan against a saved cluster state (created from the inventory if missing)
  --commit           apply the best option to --state FILE and print the new slot's ID
  --backend NAME     wasm (default) or ts
  --json             print { options, rejected, reason?, optionCount, tensorParallel: { sizes,
                     dropped, memoryPerGpu? }, committed? } as JSON

Options are ranked by: fewer evictions (then fewer evicted bytes), fewer GPUs, higher topology
score, then spread (most free left on the fullest chosen GPU) or pack (least left over), then
lowest GPU indices; across nodes, then the least loaded node, then node ID.
Exit codes: 0 an option was found (and committed), 1 nothing fits, 2 bad input.
`;

/** Reads a state file; a missing file is `undefined`, a corrupt one INVALID_STATE (and is left untouched). */
async function readState(engine: Engine, path: string, name: string): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AllocationError('INVALID_STATE', `--state: cannot read ${name}: ${(error as Error).message}`, { field: 'state', cause: error });
  }
  return stateFromText(engine, text, name);
}

/** Writes the state next to its file, then renames it over the file: readers never see half a file. */
async function writeState(state: ClusterState, path: string): Promise<void> {
  // A name no other writer uses (pid + random), created exclusively, flushed to disk before the rename:
  // after a crash the file is either the old state or the new one, never a prefix of either.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    const handle = await open(tmp, 'wx');
    try {
      await handle.writeFile(JSON.stringify(state.toJSON(), null, 2) + '\n', 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
}

function render(plan: PlacementPlan, model: ModelMemory, planned: ModelPlan, committed?: string): string {
  const lines: string[] = [];
  const multiNode = plan.options.some((o) => o.node !== undefined && o.node !== plan.options[0].node);
  // Sizes print the way --memory was typed (GB or GiB); a GGUF's in GiB.
  const units = model.kind === 'total' ? model.units : 'binary';
  const what = model.kind === 'total' ? formatBytes(model.memory, units) : model.file;
  if (plan.options.length > 0) {
    const header = ['#', ...(multiNode ? ['NODE'] : []), 'GPUS', 'MEMORY/GPU', 'EVICT', 'SCORE'];
    const rows = plan.options.map((o, k) => [k + 1, ...(multiNode ? [o.node ?? ''] : []), o.gpus.join(','), formatBytes(o.memoryPerGpu, units), o.evict.length === 0 ? '-' : o.evict.join(','), o.score]);
    const count = planned.optionCount > plan.options.length ? `showing ${plan.options.length} of ${planned.countCapped ? 'at least ' : ''}${planned.optionCount} options` : `${plan.options.length} option${plan.options.length === 1 ? '' : 's'}`;
    lines.push(`${count} for ${what}${plan.options[0].node !== undefined && !multiNode ? ` on ${plan.options[0].node}` : ''}:`);
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
  if (committed !== undefined) {
    lines.push('');
    lines.push(`committed option 1 as slot ${committed}`);
  }
  return lines.join('\n') + '\n';
}

/** Per-GPU rejections of every node, for display when the plan has options (ClusterState.plan lists them only when it has none). */
function explain(engine: Engine, state: ClusterState, request: ClusterPlanRequest): Rejection[] {
  const json = state.toJSON();
  if (json.nodes.length > 64) return [];
  const out: Rejection[] = [];
  for (const node of json.nodes) {
    const p = engine.planPlacement({ ...request, gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), limit: 1 });
    for (const r of p.rejected) out.push({ node: node.id, ...r, message: r.message.replace(/^GPU (\d+)/, `GPU $1 on node ${node.id}`) });
  }
  return out;
}

/** How long a --commit waits for another gpualloc's lock on the same state file, in milliseconds. */
const LOCK_WAIT_MS = 10_000;

/** Whether a process is running (a lock whose holder is gone is stale). */
function _alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding FILE.lock (created exclusively, holding our pid), so concurrent `--commit` runs on
 * one state file take turns: each reads the state the previous one wrote, and no commit is lost.
 */
async function withStateLock<T>(path: string, name: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, 'wx');
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(holder) && holder > 0 && !_alive(holder)) {
        await unlink(lock).catch(() => undefined); // left by a process that is gone
        continue;
      }
      if (Date.now() > deadline) {
        throw new AllocationError('STATE_LOCKED', `--state ${name}: locked by process ${holder > 0 ? holder : '?'} (${name}.lock); nothing was written. If no gpualloc is running, remove the lock file`, { field: 'state' });
      }
      await new Promise((done) => setTimeout(done, 5 + Math.random() * 20));
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}

/** The `plan` subcommand. */
export const command: Command = {
  name: 'plan',
  summary: 'rank every viable placement of a model by memory (evicting stale work), optionally commit it',
  help: HELP,
  flags: PLAN_FLAGS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = parseArgs({
      args: argv,
      options: {
        memory: { type: 'string' }, gguf: { type: 'string' }, context: { type: 'string' },
        ...ENGINE_OPTIONS,
        tp: { type: 'string' }, policy: { type: 'string' }, model: { type: 'string' }, 'no-evict': { type: 'boolean' }, limit: { type: 'string' },
        state: { type: 'string' }, commit: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
    const backend = parseBackend(values.backend);
    if (values.memory !== undefined && values.gguf !== undefined) throw new UsageError('give either --memory or --gguf, not both');
    if (values.memory === undefined && values.gguf === undefined) throw new UsageError('--memory SIZE (or --gguf FILE) is required');
    if (values.context !== undefined && values.gguf === undefined) throw new UsageError('--context needs --gguf');
    if (values.commit && values.state === undefined) throw new UsageError('--commit needs --state FILE');
    let model: ModelMemory;
    if (values.memory !== undefined) model = parseMemoryFlag(values.memory);
    else {
      const contextLength = parsePositiveInt(values.context, '--context', DEFAULT_CONTEXT_LENGTH);
      const estimate = await estimateMemory(resolve(io.cwd, values.gguf!), { contextLength });
      model = { kind: 'gguf', file: values.gguf!, estimate };
      if (!values.json) io.err(`gpualloc: ${values.gguf} at context ${contextLength}: weights ${formatBytes(estimate.weights)}, KV cache ${formatBytes(estimate.kvCache)} (${estimate.kvHeads} KV heads), graph ${formatBytes(estimate.graph)} per GPU, ${formatBytes(estimate.total - estimate.weights - estimate.kvCache - estimate.graph)} reserve per GPU; ${formatBytes(estimate.total)} on one GPU\n`);
    }
    const tp = values.tp === undefined ? undefined : parseTpFlag(values.tp);
    const limit = values.limit === undefined ? DEFAULT_PLACEMENT_LIMIT : parseLimitFlag(values.limit);
    const request: Omit<ClusterPlanRequest, 'memory'> = {};
    if (values.policy !== undefined) request.policy = parsePolicyFlag(values.policy);
    if (values.model !== undefined) request.model = values.model;
    if (values['no-evict']) request.allowEviction = false;

    const engine = await createEngine({ backend });
    const statePath = values.state === undefined ? undefined : resolve(io.cwd, values.state);
    const planAndCommit = async (): Promise<{ plan: PlacementPlan; planned: ModelPlan; committed?: string }> => {
      let state = statePath === undefined ? undefined : await readState(engine, statePath, values.state!);
      if (state === undefined) {
        const { inventory } = await resolveInventory({ inventory: values.inventory, preset: values.preset, quiet: values.json === true }, io);
        state = engine.createClusterState({ nodes: [nodeFromInventory(inventory)] });
      } else if (values.inventory !== undefined || values.preset !== undefined) {
        if (!values.json) io.err(`gpualloc: using the nodes of ${values.state}; --inventory/--preset only seed a new state file\n`);
      }
      const planned = planModel(state, request, model, tp, limit);
      const plan = planned.plan;
      if (plan.options.length > 0 && plan.rejected.length === 0) plan.rejected = explain(engine, state, planned.explainRequest);
      if (!values.json) {
        io.err(`gpualloc: ${sizesLine(planned, Math.max(...state.toJSON().nodes.map((n) => n.gpus.length)))}\n`);
        if (planned.memoryPerGpu !== undefined) io.err(`gpualloc: memory per GPU: ${planned.sizes.map((t) => `TP ${t} ${formatBytes(planned.memoryPerGpu![t])}`).join(', ')}\n`);
        for (const w of planned.warnings) io.err(`gpualloc: warning: ${w}\n`);
      }
      if (!values.commit || plan.options.length === 0) return { plan, planned };
      const committed = state.commit(plan.options[0]);
      await writeState(state, statePath!);
      return { plan, planned, committed };
    };
    // Read, plan, commit and write under the state file's lock, so concurrent commits never lose one another.
    const { plan, planned, committed } = values.commit ? await withStateLock(statePath!, values.state!, planAndCommit) : await planAndCommit();
    if (values.json) {
      const tensorParallel = { sizes: planned.sizes, dropped: planned.dropped, ...(planned.memoryPerGpu === undefined ? {} : { memoryPerGpu: planned.memoryPerGpu }), ...(planned.warnings.length === 0 ? {} : { warnings: planned.warnings }) };
      io.out(JSON.stringify({ ...plan, optionCount: planned.optionCount, tensorParallel, ...(committed === undefined ? {} : { committed }) }, null, 2) + '\n');
    } else io.out(render(plan, model, planned, committed));
    return plan.options.length > 0 ? EXIT.OK : EXIT.INFEASIBLE;
  },
};
