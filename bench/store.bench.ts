// Store benchmark (issue 21): commits per second and commit latency (p50, p99) with 1, 4 and 8
// writers, each its own StoredClusterState following the others' changes (for PostgreSQL: its own
// connection and LISTEN), on the in-memory, JSON file and PostgreSQL stores. One tinybench
// iteration = one round: every writer does 50 commitWithRetry calls (keeping at most 2 slots, releasing the oldest) at the
// same time. Starts its own PostgreSQL server (bench/pg-server.ts) with the server's default
// durability (fsync and synchronous_commit on); without server binaries the PostgreSQL rows are
// left out with a note.
//   npm run bench:store [-- --quick] [-- --out=FILE]
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { table } from '../src/cli/lib/common.js';
import type { ClusterNode } from '../src/cluster/state.js';
import { type Engine, openEngine } from '../src/engine.js';
import { JsonFileStore } from '../src/store/file.js';
import { MemoryStore } from '../src/store/memory.js';
import { PostgresStore } from '../src/store/postgres.js';
import { openClusterState, type StoredClusterState } from '../src/store/stored-state.js';
import type { ClusterStore } from '../src/store/types.js';
import { findPgBin, type PgServer, startPg } from './pg-server.js';

const GiB = 2 ** 30;
/** The cluster: 4 nodes × 8 GPUs of 80 GiB (the contention test's). */
const NODES: ClusterNode[] = Array.from({ length: 4 }, (_, n) => ({ id: `n${n}`, gpus: Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * GiB })) }));
/** Request sizes, cycled per writer. */
const SIZES = [20, 40, 60].map((g) => g * GiB);
const WRITERS = [1, 4, 8];

/** One row of the table / JSON. */
export type StoreBenchRow = { store: string; writers: number; commits: number; commitsPerSecond: number; p50Ms: number; p99Ms: number; conflicts: number; failures: number; rounds: number };

/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when empty. Shared with store-pods.bench.ts. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The machine a store bench ran on, for its JSON. Shared with store-pods.bench.ts. */
export function machineInfo() {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryBytes: totalmem(), node: process.version, platform: process.platform, loadavg: loadavg() };
}

/** The path of NAME in the package's bench folder, whether the bench runs from the sources or from dist. */
export function resultsPath(name: string): string {
  let root = import.meta.dirname;
  while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
  return join(root, 'bench', name);
}

/** Whether the module at `url` (its `import.meta.url`) is the program node runs, not an import. */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}

/** The value of `--NAME=VALUE` among the program's arguments; undefined when absent. */
export function argValue(name: string, args: readonly string[] = process.argv.slice(2)): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** Writes a bench's results as indented JSON. */
export function writeResults(path: string, results: unknown): void {
  writeFileSync(path, JSON.stringify(results, null, 2) + '\n');
}

/** Times rounds of `writers` concurrent writers on stores made by `open` (one per writer, sharing one state). */
async function measure(name: string, writers: number, engine: Engine, stores: ClusterStore[], perWriter: number, iterations: number): Promise<StoreBenchRow> {
  const states: StoredClusterState[] = [];
  for (const [w, store] of stores.entries()) states.push(await openClusterState(engine, store, { replica: w }));
  const latencies: number[] = [];
  let conflicts = 0;
  let commits = 0;
  let failures = 0;
  let busy = 0;
  const round = async (): Promise<void> => {
    const started = performance.now();
    await Promise.all(
      states.map(async (state, w) => {
        const held: string[] = [];
        for (let k = 0; k < perWriter; k++) {
          const t0 = performance.now();
          const r = await state.commitWithRetry({ memory: SIZES[(w + k) % SIZES.length]!, tensorParallelSizes: [1, 2] });
          latencies.push(performance.now() - t0);
          conflicts += r.conflicts;
          if (r.committed === undefined) {
            failures++;
            continue;
          }
          commits++;
          held.push(r.committed);
          if (held.length > 2) await state.release(held.shift()!);
        }
        for (const id of held) await state.release(id);
      }),
    );
    busy += performance.now() - started;
  };
  await round(); // warm-up: JIT, connections, plans
  latencies.length = 0;
  conflicts = 0;
  commits = 0;
  failures = 0;
  busy = 0;
  const bench = new Bench({ iterations, time: 0, warmup: false });
  bench.add(`${name} ${writers}`, round);
  await bench.run();
  const task = bench.tasks[0]!;
  if (task.result?.state === 'errored') throw task.result.error;
  latencies.sort((a, b) => a - b);
  return { store: name, writers, commits, commitsPerSecond: commits / (busy / 1000), p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), conflicts, failures, rounds: iterations };
}

export async function runStoreBench(options: { quick?: boolean; out?: string | null } = {}): Promise<{ rows: StoreBenchRow[]; notes: string[] }> {
  const quick = options.quick === true;
  const perWriter = quick ? 10 : 50;
  const iterations = quick ? 2 : 5;
  const engine = await openEngine({ backend: 'wasm' });
  const rows: StoreBenchRow[] = [];
  const notes: string[] = [];
  for (const writers of WRITERS) {
    const shared = MemoryStore.create(engine, { nodes: NODES });
    rows.push(
      await measure(
        'memory',
        writers,
        engine,
        Array.from({ length: writers }, () => shared),
        perWriter,
        quick ? iterations : 40,
      ),
    );
  }
  // The file store: every writer its own JsonFileStore (its own lock descriptor) on one file in a temp dir.
  const dir = mkdtempSync(join(tmpdir(), 'gpualloc-store-bench-'));
  try {
    for (const writers of WRITERS) {
      const path = join(dir, `state-${writers}.json`);
      await JsonFileStore.create(path).init(engine.createClusterState({ nodes: NODES }));
      rows.push(
        await measure(
          'file',
          writers,
          engine,
          Array.from({ length: writers }, () => JsonFileStore.create(path)),
          perWriter,
          iterations,
        ),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  let server: PgServer | undefined;
  if (findPgBin() === undefined) notes.push('postgres: no server binaries (install postgresql or set PG_BIN); rows left out');
  else {
    server = startPg({ fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
    try {
      for (const writers of WRITERS) {
        const schema = `bench_${writers}`;
        const first = await PostgresStore.open(server.url, { schema, maxConnections: 1 });
        await first.init(engine.createClusterState({ nodes: NODES }));
        const stores: PostgresStore[] = [first];
        for (let w = 1; w < writers; w++) stores.push(await PostgresStore.open(server.url, { schema, maxConnections: 1 }));
        try {
          rows.push(await measure('postgres', writers, engine, stores, perWriter, iterations));
        } finally {
          await Promise.all(stores.map((s) => s.close()));
        }
      }
    } finally {
      server.stop();
    }
  }
  const machine = machineInfo();
  console.log(
    `store bench on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}${quick ? ', quick' : ''}: ${perWriter} commits per writer per round, ${iterations} rounds (memory: ${quick ? iterations : 40})`,
  );
  process.stdout.write(
    table(
      ['store', 'writers', 'commits/s', 'p50 ms', 'p99 ms', 'conflicts', 'commits', 'not committed'],
      rows.map((r) => [r.store, r.writers, Math.round(r.commitsPerSecond).toLocaleString('en-US'), r.p50Ms.toFixed(3), r.p99Ms.toFixed(3), r.conflicts, r.commits, r.failures]),
    ),
  );
  for (const n of notes) console.log(n);
  if (options.out !== null) {
    writeResults(options.out ?? resultsPath('store-results.json'), { schema: 1, date: new Date().toISOString(), quick, machine, perWriter, rounds: iterations, rows, notes });
  }
  return { rows, notes };
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = argValue('out', args);
  await runStoreBench({ quick: args.includes('--quick'), out });
}
