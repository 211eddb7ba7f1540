// gpualloc simulate: replay a pod trace on a node list by the FGD paper's protocol (src/fleet/).
import { constants } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { openEngine } from '../../engine.js';
import { DEFAULT_POLICY, formatDuration, MAX_SCALE, POLICIES, parseNodeCsv, parsePodCsv, parseSeeds, RunProgress, scaleTrace, validateNodes, validatePods } from '../../fleet/index.js';
import { AllocationError } from '../../shared/errors.js';
import { type SimulationRun, simulateRun, simulationNodeValues } from '../../simulation/index.js';
import { type Command, EXIT, type Io, table, UsageError } from '../lib/common.js';
import { backendOption, helpOption, integerIn, jsonOption, namesAmong, option, optionsHelp, positiveUpTo, readOptions } from '../lib/options.js';
import { FlagFileError, isFileError } from '../lib/usage-error.js';

/** --policy: comma-separated policy names, each known and given once. */
/** --seeds: a range 42..51 or a list (a malformed value is a usage error). */
function parseSeedsFlag(text: string, flag: string): number[] {
  try {
    return parseSeeds(flag, text, 10000);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const OPTIONS = {
  nodes: option({ type: 'string', value: 'FILE', help: 'node list: sn,cpu_milli,memory_mib,gpu,model (the openb format)' }),
  pods: option({ type: 'string', value: 'FILE', help: 'pod list: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]' }),
  policy: option({
    type: 'string',
    value: 'LIST',
    help: `comma-separated policies (default ${DEFAULT_POLICY}): ${POLICIES.map((p) => p.name).join(', ')}`,
    parse: namesAmong(POLICIES.map((p) => p.name)),
  }),
  seeds: option({ type: 'string', value: 'RANGE', help: 'a range 42..51 or a list 42,43 (default 42..51)', parse: parseSeedsFlag }),
  tune: option({ type: 'string', value: 'X', help: 'workload target as a multiple of the GPU capacity (default 1.3)', parse: positiveUpTo(100) }),
  scale: option({
    type: 'string',
    value: 'K',
    help: `replicate the trace K times (nodes and pods; copy i of an ID is <id>-r<i>):\nthe same workload on a K times larger cluster (default 1, at most ${MAX_SCALE})`,
    parse: integerIn(1, MAX_SCALE),
  }),
  events: option({ type: 'string', value: 'FILE', help: 'one policy, one seed: write every pod attempt as JSON Lines\n{"pod","node","gpus","milli","cpu","memoryMiB","arrived","used"}' }),
  csv: option({ type: 'string', value: 'FILE', help: 'write the curves: policy,seed,arrived,allocation,fragmentation (percent)' }),
  json: jsonOption('print {"runs": [{policy, seed, capacityMilli, pods, failed, allocation}]}'),
  backend: backendOption(),
  help: helpOption(),
};

const HELP = `gpualloc simulate: replay a GPU cluster trace under placement policies (FGD protocol)

Usage: gpualloc simulate --nodes NODES.csv --pods PODS.csv [--policy NAME[,NAME...]] [--seeds 42..51]
                         [--tune 1.3] [--scale K] [--events FILE] [--csv FILE] [--json] [--backend wasm|ts]

Options:
${optionsHelp(OPTIONS, 20)}
Protocol: pods shuffled by seed, tuned to X times the GPU capacity with clones <pod>-tuned-<i>
after every original, no departures, a pod that fits nowhere is dropped but counts as arrived.
allocation maps the arrived load x% (0..130) to the GPU allocation ratio in %. After the table: the
run time per policy. Progress goes to stderr: a bar on a terminal, else a line every 10 s.
Policies: ${POLICIES.map((p) => `${p.name} (${p.summary})`).join('; ')}.
`;

/** Runs a file operation for `--flag`; a failure keeps its errno (IO_ERROR, exit 2) and names the flag. */
async function forFlag<T>(flag: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw isFileError(error) ? new FlagFileError(flag, error) : error;
  }
}

/** Before any run: the folder of an output file exists and is writable, and the file is not a folder. */
async function checkOutput(flag: string, path: string): Promise<void> {
  const found = await stat(path).catch(() => undefined);
  if (found?.isDirectory()) throw new UsageError(`${flag}: ${JSON.stringify(path)} is a folder, expected a file to write`);
  await forFlag(flag, () => access(found === undefined ? dirname(path) : path, constants.W_OK));
}

/** The seeds as the table's title names them: A..B when consecutive, else the list. */
function seedLabel(seeds: number[]): string {
  if (seeds.length === 1) return String(seeds[0]);
  return seeds.every((s, i) => s === seeds[0]! + i) ? `${seeds[0]}..${seeds[seeds.length - 1]}` : seeds.join(','); // every: seeds is not empty
}

function stats(values: number[]): string {
  if (values.length === 0) return '-';
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  if (values.length === 1) return m.toFixed(2);
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1));
  return `${m.toFixed(2)} ± ${sd.toFixed(2)}`;
}

/** The `simulate` subcommand. */
export const command: Command = {
  name: 'simulate',
  summary: 'replay a GPU cluster trace (openb) under placement policies (FGD, ours, ...)',
  help: HELP,
  options: OPTIONS,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = readOptions(OPTIONS, argv);
    const json = values.json === true;
    const backend = values.backend ?? 'wasm';
    if (values.nodes === undefined) throw new UsageError('--nodes FILE is required');
    if (values.pods === undefined) throw new UsageError('--pods FILE is required');
    const policies = values.policy ?? [DEFAULT_POLICY];
    const seeds = values.seeds ?? Array.from({ length: 10 }, (_, i) => 42 + i);
    const tune = values.tune ?? 1.3;
    const scale = values.scale ?? 1;
    if (values.events !== undefined && (policies.length !== 1 || seeds.length !== 1)) throw new UsageError('--events: needs exactly one policy and one seed');

    // A file that cannot be written fails now, not after every run.
    if (values.events !== undefined) await checkOutput('--events', values.events);
    if (values.csv !== undefined) await checkOutput('--csv', values.csv);
    const trace = scaleTrace(
      parseNodeCsv(values.nodes, await forFlag('--nodes', () => readFile(values.nodes!, 'utf8'))),
      parsePodCsv(values.pods, await forFlag('--pods', () => readFile(values.pods!, 'utf8'))),
      scale,
      '--scale',
    );
    const { nodes, pods } = trace;
    // A header alone replays nothing: say so instead of printing a table of dashes.
    if (nodes.length === 0) throw AllocationError.of('INVALID_TRACE', { origin: `--nodes ${values.nodes}`, detail: 'no nodes after the header line (a replay needs at least one)' });
    if (pods.length === 0) throw AllocationError.of('INVALID_TRACE', { origin: `--pods ${values.pods}`, detail: 'no pods after the header line (a replay needs at least one)' });
    // The trace reader checked every row; the specs (memory in MiB as `memory`) are what a run takes.
    const nodeSpecs = validateNodes('--nodes', nodes);
    const podSpecs = validatePods('--pods', pods);
    const engine = await openEngine({ backend });
    const tty = process.stderr.isTTY === true;
    const runs: SimulationRun[] = [];
    const seconds = new Map<string, number>();
    const progress = new RunProgress(policies.length * seeds.length, tty ? 100 : 10_000);
    const report = (label: string) => {
      const p = progress.snapshot();
      const pct = `${(100 * p.fraction).toFixed(0).padStart(3)}%`;
      const rate = `${Math.round(p.podsPerSecond).toLocaleString('en-US')} pods/s`;
      if (tty) {
        const width = 30;
        const bar = '#'.repeat(Math.round(p.fraction * width)).padEnd(width, '.');
        io.err(`\r[${bar}] ${pct}  ${label}  ${rate}, ${formatDuration(p.leftMs)} left   `);
      } else io.err(`simulate: ${pct.trim()} (${label}: ${p.done} of ${p.total} pods), ${rate}, ${formatDuration(p.elapsedMs)} so far, ${formatDuration(p.leftMs)} left\n`);
    };
    // fgd-node's node values: the same for every seed of the trace, so its LP is solved once (its time
    // counts in fgd-node's run time below).
    const lpStart = performance.now();
    const nodeValues = policies.includes('fgd-node') ? simulationNodeValues(engine.kernels, nodeSpecs, podSpecs) : undefined;
    if (nodeValues !== undefined) seconds.set('fgd-node', (performance.now() - lpStart) / 1000);
    for (const policy of policies) {
      for (const seed of seeds) {
        const k = runs.length;
        const label = `${policy} seed ${seed}`;
        const t0 = performance.now();
        runs.push(
          simulateRun(engine.kernels, nodeSpecs, podSpecs, {
            policy,
            seed,
            tune,
            events: values.events !== undefined,
            fragmentation: values.csv !== undefined,
            ...(nodeValues === undefined ? {} : { values: nodeValues }),
            progress: (done, all) => {
              if (progress.pod(k, done, all)) report(label);
            },
          }),
        );
        seconds.set(policy, (seconds.get(policy) ?? 0) + (performance.now() - t0) / 1000);
      }
    }
    if (tty) io.err('\n');
    // Every run succeeded: only now write the files.
    if (values.events !== undefined) {
      const events = runs[0]?.events ?? [];
      await forFlag('--events', () => writeFile(values.events!, events.map((e) => JSON.stringify(e)).join('\n') + (events.length > 0 ? '\n' : '')));
    }
    if (values.csv !== undefined) {
      const lines = ['policy,seed,arrived,allocation,fragmentation'];
      for (const r of runs) {
        for (let x = 0; x <= 130; x++) {
          const a = r.allocation[x];
          const f = r.fragmentation?.[x];
          if (a === undefined && f === undefined) continue;
          lines.push(`${r.policy},${r.seed},${x},${a ?? ''},${f ?? ''}`);
        }
      }
      await forFlag('--csv', () => writeFile(values.csv!, lines.join('\n') + '\n'));
    }
    if (json) {
      io.out(JSON.stringify({ runs: runs.map((r) => ({ policy: r.policy, seed: r.seed, capacityMilli: r.capacityMilli, pods: r.pods, failed: r.failed, allocation: r.allocation })) }) + '\n');
      return EXIT.OK;
    }
    const at = [90, 100, 110, 130];
    const rows = policies.map((p) => {
      const mine = runs.filter((r) => r.policy === p);
      return [p, ...at.map((x) => stats(mine.map((r) => r.allocation[x]).filter((v): v is number => v !== undefined))), stats(mine.map((r) => r.failed))];
    });
    const attempts = (p: string) => runs.filter((r) => r.policy === p).reduce((a, r) => a + r.pods, 0);
    const timing = policies.map((p) => `${p} ${(seconds.get(p)! / seeds.length).toFixed(2)} s (${((seconds.get(p)! * 1e6) / attempts(p)).toFixed(1)} µs per pod attempt)`);
    io.out(
      `GPU allocation ratio (%) by arrived load, mean ± sd over seeds ${seedLabel(seeds)} (${seeds.length}), tune ${tune}, ${nodes.length} nodes, ${pods.length} pods${scale > 1 ? ` (the trace ×${scale})` : ''}\n\n` +
        table(['POLICY', ...at.map((x) => `${x}%`), 'FAILED PODS'], rows) +
        `\nRun time per policy and seed (${engine.backend}): ${timing.join(', ')}\n`,
    );
    return EXIT.OK;
  },
};
