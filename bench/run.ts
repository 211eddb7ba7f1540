// Runs every benchmark suite, prints one table and writes bench/results.json.
//   npm run bench                      full run (builds first)
//   npm run bench -- --quick           a few iterations per case
//   npm run bench -- --only=aligned,placement --out=/tmp/r.json
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openEngine } from '../src/engine.js';
import { suite as aligned } from './aligned.bench.js';
import { suite as cluster } from './cluster.bench.js';
import { suite as estimate } from './estimate.bench.js';
import { addCaseError, BACKENDS, type BackendName, type Case, type CaseResult, isNotBuilt, runCase, type Suite, type SuiteContext, watchKernels } from './harness.js';
import { suite as naturalSort } from './natural-sort.bench.js';
import { suite as placement } from './placement.bench.js';
import { suite as replicas } from './replicas.bench.js';
import { suite as split } from './split.bench.js';
import { formatTable } from './table.js';
import { evaluateTargets, type TargetResult } from './targets.js';

/** Every suite, in the order of the issue's workload list. */
export const SUITES: readonly Suite[] = [naturalSort, split, replicas, aligned, placement, cluster, estimate];

/** Options of runBench. */
export type RunOptions = {
  /** Few iterations per case (default false). */
  quick?: boolean;
  /** Families to run (default: all). */
  only?: string[];
  /** Where to write the JSON report; null writes nothing (default bench/results.json of the package). */
  out?: string | null;
  /** Called with each case's result as it completes (progress output). */
  onCase?: (result: CaseResult) => void;
};

/** The release wasm: its size and the core's memory pages around the suite. */
export type WasmReport = {
  /** Bytes of build/release.wasm (null if it is missing). */
  releaseBytes: number | null;
  /** The target: at most 64 KiB. */
  limitBytes: number;
  /** Pages (64 KiB) of the wasm engine's memory after one warm-up call of every case. */
  pagesAfterWarmup: number;
  /** Pages after every suite ran. */
  pagesAfterSuite: number;
};

/** What results.json holds. */
export type BenchReport = {
  schema: 1;
  /** ISO date and time the run started. */
  date: string;
  quick: boolean;
  /** The commit measured (BENCH_COMMIT, else git rev-parse), `+dirty` when tracked files differ from it; null if unknown. */
  commit: string | null;
  machine: { cpu: string; cores: number; memoryBytes: number; node: string; platform: string; arch: string; loadavgStart: number[]; loadavgEnd: number[] };
  wasm: WasmReport;
  workloads: CaseResult[];
  /** Families whose capability is not built yet (or failed to set up), with the reason. */
  pending: Array<{ family: string; reason: string }>;
  targets: TargetResult[];
  /** Seconds the whole run took. */
  seconds: number;
};

/** The package root (the folder with package.json), from either bench/ or dist/bench/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 5; k++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'assembly'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

/** A call's answer as text, for comparing the backends (typed arrays and plain data). */
function _answer(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v)) ?? 'undefined';
}

/** Which commit is being measured: BENCH_COMMIT (for a run from an exported tree), else git. */
function _commit(root: string): string | null {
  const fromEnv = process.env.BENCH_COMMIT;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return null;
  }
}

function _message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs the suites and returns (and by default writes) the report. */
export async function runBench(options: RunOptions = {}): Promise<BenchReport> {
  const started = performance.now();
  const quick = options.quick ?? false;
  const root = packageRoot();
  const loadavgStart = loadavg();
  const [wasm, ts] = await Promise.all([openEngine({ backend: 'wasm' }), openEngine({ backend: 'ts' })]);
  const ctx: SuiteContext = { engines: { wasm, ts }, quick };
  const unknown = (options.only ?? []).filter((f) => !SUITES.some((s) => s.family === f));
  if (unknown.length > 0) throw new Error(`--only: unknown families ${unknown.join(', ')}; known: ${SUITES.map((s) => s.family).join(', ')}`);
  const suites = options.only === undefined || options.only.length === 0 ? SUITES : SUITES.filter((s) => options.only!.includes(s.family));

  const pending: BenchReport['pending'] = [];
  const cases: Case[] = [];
  for (const s of suites) {
    try {
      cases.push(...(await s.cases(ctx)));
    } catch (error) {
      pending.push({ family: s.family, reason: isNotBuilt(error) ? _message(error) : `setup failed: ${_message(error)}` });
    }
  }

  // Warm-up: one call of every case on each backend, so the arena reaches its working size before
  // pages are counted; a case whose capability is still a placeholder moves to `pending`. The two
  // backends' answers are compared on the way: a speed ratio means nothing if they differ.
  // Each backend's kernel calls are counted on this call (see CaseResult.kernelCalls).
  const runnable: Case[] = [];
  const mismatched = new Set<Case>();
  const kernelCalls = new Map<Case, Partial<Record<BackendName, number>>>();
  // Counted only: copies of every argument (a 100,000-ID sort's, the cluster's) would stay alive through the timing.
  const counters = { wasm: watchKernels(wasm, false), ts: watchKernels(ts, false) };
  try {
    for (const c of cases) {
      let notBuilt: unknown;
      const answers: string[] = [];
      const calls: Partial<Record<BackendName, number>> = {};
      for (const b of BACKENDS) {
        const fn = c.run[b];
        if (fn === undefined) continue;
        const before = counters[b].count();
        try {
          answers.push(_answer(await fn()));
          calls[b] = counters[b].count() - before;
        } catch (error) {
          if (isNotBuilt(error)) notBuilt = error;
        }
        // The search alone, once (its scratch space reaches its size before pages are counted).
        try {
          await c.search?.[b]?.();
        } catch (error) {
          if (isNotBuilt(error)) notBuilt = error;
        }
      }
      kernelCalls.set(c, calls);
      if (c.compareAnswers !== false && answers.length === 2 && answers[0] !== answers[1]) mismatched.add(c);
      if (notBuilt !== undefined) {
        if (!pending.some((p) => p.family === c.family)) pending.push({ family: c.family, reason: _message(notBuilt) });
      } else runnable.push(c);
    }
  } finally {
    counters.wasm.restore();
    counters.ts.restore();
  }
  const pagesAfterWarmup = wasm.memoryPages();

  const workloads: CaseResult[] = [];
  for (const c of runnable) {
    const r = await runCase(c, quick);
    const calls = kernelCalls.get(c);
    if (calls !== undefined && Object.keys(calls).length > 0) r.kernelCalls = calls;
    if (mismatched.has(c)) addCaseError((r.errors ??= {}), 'ts', 'the wasm and ts backends returned different answers');
    workloads.push(r);
    options.onCase?.(r);
  }
  const pagesAfterSuite = wasm.memoryPages();

  const wasmPath = join(root, 'build', 'release.wasm');
  const wasmReport: WasmReport = { releaseBytes: existsSync(wasmPath) ? statSync(wasmPath).size : null, limitBytes: 65536, pagesAfterWarmup, pagesAfterSuite };
  const cpuList = cpus();
  const report: BenchReport = {
    schema: 1,
    date: new Date(Date.now() - (performance.now() - started)).toISOString(),
    quick,
    commit: _commit(root),
    machine: {
      cpu: cpuList[0]?.model ?? 'unknown',
      cores: cpuList.length,
      memoryBytes: totalmem(),
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      loadavgStart: loadavgStart.map((x) => Math.round(x * 100) / 100),
      loadavgEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    },
    wasm: wasmReport,
    workloads,
    pending,
    targets: [],
    seconds: 0,
  };
  report.targets = evaluateTargets(report);
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  const out = options.out === undefined ? join(root, 'bench', 'results.json') : options.out;
  if (out !== null) {
    mkdirSync(dirname(resolve(out)), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
  return report;
}

/** Parses the command line: --quick, --only=a,b, --out=path, --no-write. */
export function parseArgs(argv: readonly string[]): RunOptions {
  const options: RunOptions = {};
  for (const arg of argv) {
    if (arg === '--quick') options.quick = true;
    else if (arg.startsWith('--only='))
      options.only = arg
        .slice(7)
        .split(',')
        .filter((x) => x !== '');
    else if (arg.startsWith('--out=')) options.out = arg.slice(6);
    else if (arg === '--no-write') options.out = null;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: node --expose-gc dist/bench/run.js [--quick] [--only=family,…] [--out=path | --no-write]\n');
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  return options;
}

async function _main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if ((globalThis as { gc?: unknown }).gc === undefined) process.stderr.write('note: run with node --expose-gc for steadier numbers (npm run bench does)\n');
  const version = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version as string;
  process.stderr.write(`gpualloc ${version} benchmarks${options.quick ? ' (quick)' : ''}: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}\n`);
  const report = await runBench({
    ...options,
    onCase: (r) =>
      process.stderr.write(
        `  ${r.family} / ${r.name}${
          r.errors
            ? `  [errors: ${Object.entries(r.errors)
                .map(([k, v]) => `${k}: ${v}`)
                .join('; ')}]`
            : ''
        }\n`,
      ),
  });
  process.stdout.write(`${formatTable(report)}\n`);
  const out = options.out === undefined ? join(packageRoot(), 'bench', 'results.json') : options.out;
  if (out !== null) process.stderr.write(`wrote ${out}\n`);
}

const _isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (_isMain) {
  _main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

export type { BackendName };
