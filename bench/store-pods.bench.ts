// Store benchmark for pods (issue 20): what migration 2's guard costs a PostgreSQL commit. The same
// writers commit the same workloads on a schema with the slots_within_node trigger and on one with
// it disabled (ALTER TABLE … DISABLE TRIGGER), interleaved round by round on one server, so the
// difference is the trigger's (one SELECT when the node tracks no CPU or host memory; that plus the
// sums of its slots when it does). Workloads, on 4 nodes × 8 GPUs of 80 GiB:
//   models: memory-placed models (commitWithRetry) on nodes that track no CPU or host memory;
//   pods:   pods (a GPU share, whole GPUs or CPU only, with CPU and host memory) planned by the pod
//           scheduler on a copy of the writer's state, on nodes with 64 CPUs and 512 GiB each.
// Every writer keeps at most 2 slots (releasing the oldest), so the cluster never fills (a commit
// that loses every one of its 5 attempts counts as not committed). Latency is
// the store commit alone (planning excluded). Server durability at its defaults (fsync on).
//   npm run bench:store-pods [-- --quick] [-- --out=FILE]
import pg from 'pg';
import { Bench } from 'tinybench';
import { table } from '../src/cli/lib/common.js';
import type { ClusterNode } from '../src/cluster/state.js';
import { type Engine, openEngine } from '../src/engine.js';
import type { PlacementOption } from '../src/placement/index.js';
import { AllocationError } from '../src/shared/errors.js';
import { PostgresStore } from '../src/store/postgres.js';
import { openClusterState, type StoredClusterState } from '../src/store/stored-state.js';
import { findPgBin, startPg } from './pg-server.js';
import { argValue, isMain, machineInfo, percentile, resultsPath, writeResults } from './store.bench.js';

const GiB = 2 ** 30;
const WRITERS = [1, 8];
const WORKLOADS = ['models', 'pods'] as const;
type Workload = (typeof WORKLOADS)[number];

/** One row of the table / JSON. */
export type PodStoreBenchRow = {
  workload: Workload;
  trigger: boolean;
  writers: number;
  commits: number;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  conflicts: number;
  rounds: number;
};

function nodes(workload: Workload): ClusterNode[] {
  return Array.from({ length: 4 }, (_, n) => {
    const node: ClusterNode = { id: `n${n}`, gpus: Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * GiB })) };
    if (workload === 'pods') Object.assign(node, { cpu: 64_000, hostMemory: 512 * GiB, gpuModel: 'A100' });
    return node;
  });
}

/** The k-th pod of writer w: cycles through a share, whole GPUs and CPU only. */
function podOf(w: number, k: number) {
  const kind = (w + k) % 3;
  return { id: `p${w}-${k}`, cpu: [2000, 4000, 8000][k % 3]!, memoryMiB: [4096, 16384][k % 2]!, gpus: kind === 2 ? 0 : kind === 1 ? 2 : 1, milli: kind === 0 ? 250 : kind === 1 ? 1000 : 0 };
}

/** Commits one pod planned on a copy of the writer's state, re-planning on CONFLICT; returns the slot ID and the commit time. */
async function commitPod(engine: Engine, state: StoredClusterState, w: number, k: number): Promise<{ id?: string; ms: number; conflicts: number }> {
  let ms = 0;
  let conflicts = 0;
  for (let attempt = 1; attempt <= 5; attempt++) {
    const pods = engine.restoreClusterState(state.toJSON()).podScheduler({ policy: attempt === 1 ? 'bestfit' : 'random', seed: w * 1000 + k * 10 + attempt });
    let option: PlacementOption | undefined;
    try {
      option = pods.plan(podOf(w, k)).options[0];
    } finally {
      pods.close();
    }
    if (option === undefined) return { ms, conflicts };
    const t0 = performance.now();
    try {
      const id = await state.commit(option);
      return { id, ms: ms + performance.now() - t0, conflicts };
    } catch (error) {
      ms += performance.now() - t0;
      if (!(error instanceof AllocationError) || error.code !== 'CONFLICT') throw error;
      conflicts++;
    }
  }
  return { ms, conflicts };
}

type Rig = { workload: Workload; trigger: boolean; writers: number; states: StoredClusterState[]; stores: PostgresStore[]; latencies: number[]; commits: number; failures: number; conflicts: number };

/** One round: every writer commits `perWriter` slots at the same time (keeping at most 2), then releases the rest. */
async function round(engine: Engine, rig: Rig, perWriter: number, record: boolean): Promise<void> {
  await Promise.all(
    rig.states.map(async (state, w) => {
      const held: string[] = [];
      for (let k = 0; k < perWriter; k++) {
        let id: string | undefined;
        if (rig.workload === 'models') {
          const t0 = performance.now();
          const r = await state.commitWithRetry({ memory: [20, 40, 60][(w + k) % 3]! * GiB, tensorParallelSizes: [1, 2] });
          if (record) {
            rig.latencies.push(performance.now() - t0);
            rig.conflicts += r.conflicts;
          }
          id = r.committed;
        } else {
          const r = await commitPod(engine, state, w, k);
          if (record) {
            rig.latencies.push(r.ms);
            rig.conflicts += r.conflicts;
          }
          id = r.id;
        }
        // Not committed: every attempt lost a race (the cluster itself never fills).
        if (id === undefined) {
          if (record) rig.failures++;
          continue;
        }
        if (record) rig.commits++;
        held.push(id);
        if (held.length > 2) await state.release(held.shift()!);
      }
      for (const id of held) await state.release(id);
    }),
  );
}

export async function runPodStoreBench(options: { quick?: boolean; out?: string | null } = {}): Promise<{ rows: PodStoreBenchRow[]; notes: string[] }> {
  const quick = options.quick === true;
  const perWriter = quick ? 6 : 30;
  const iterations = quick ? 2 : 6;
  const notes: string[] = [];
  const rows: PodStoreBenchRow[] = [];
  if (findPgBin() === undefined) {
    notes.push('postgres: no server binaries (install postgresql or set PG_BIN); nothing measured');
    console.log(notes[0]);
    return { rows, notes };
  }
  const engine = await openEngine({ backend: 'wasm' });
  const server = startPg({ fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
  try {
    for (const workload of WORKLOADS) {
      for (const writers of WRITERS) {
        // The two schemas of the A/B pair, identical but for the trigger.
        const rigs: Rig[] = [];
        for (const trigger of [true, false]) {
          const schema = `pods_${workload}_${writers}_${trigger ? 'on' : 'off'}`;
          const first = await PostgresStore.open(server.url, { schema, maxConnections: 1 });
          await first.init(engine.createClusterState({ nodes: nodes(workload) }));
          if (!trigger) {
            const db = new pg.Client({ connectionString: server.url });
            await db.connect();
            await db.query(`ALTER TABLE ${pg.escapeIdentifier(schema)}.slots DISABLE TRIGGER slots_within_node`);
            await db.end();
          }
          const stores = [first];
          for (let w = 1; w < writers; w++) stores.push(await PostgresStore.open(server.url, { schema, maxConnections: 1 }));
          const states: StoredClusterState[] = [];
          for (const [w, store] of stores.entries()) states.push(await openClusterState(engine, store, { replica: w }));
          rigs.push({ workload, trigger, writers, states, stores, latencies: [], commits: 0, failures: 0, conflicts: 0 });
        }
        try {
          for (const rig of rigs) await round(engine, rig, perWriter, false); // warm-up: JIT, connections, plans
          // Interleaved: trigger on, then off, each tinybench iteration, so drift in the machine's load hits both alike.
          const bench = new Bench({ iterations, time: 0, warmup: false });
          bench.add(`${workload} ${writers}`, async () => {
            for (const rig of rigs) await round(engine, rig, perWriter, true);
          });
          await bench.run();
          const task = bench.tasks[0]!;
          if (task.result?.state === 'errored') throw task.result.error;
          for (const rig of rigs) {
            const sorted = [...rig.latencies].sort((a, b) => a - b);
            rows.push({
              workload,
              trigger: rig.trigger,
              writers,
              commits: rig.commits,
              failures: rig.failures,
              p50Ms: percentile(sorted, 50),
              p99Ms: percentile(sorted, 99),
              meanMs: sorted.reduce((s, x) => s + x, 0) / sorted.length,
              conflicts: rig.conflicts,
              rounds: iterations,
            });
          }
        } finally {
          for (const rig of rigs) {
            for (const s of rig.states) await s.close();
            await Promise.all(rig.stores.map((s) => s.close()));
          }
        }
      }
    }
  } finally {
    server.stop();
  }
  const machine = machineInfo();
  console.log(
    `pod store bench on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}${quick ? ', quick' : ''}: ${perWriter} commits per writer per round, ${iterations} rounds, PostgreSQL commit latency (planning excluded)`,
  );
  process.stdout.write(
    table(
      ['workload', 'slots_within_node', 'writers', 'p50 ms', 'p99 ms', 'mean ms', 'commits', 'not committed', 'conflicts'],
      rows.map((r) => [r.workload, r.trigger ? 'on' : 'off', r.writers, r.p50Ms.toFixed(3), r.p99Ms.toFixed(3), r.meanMs.toFixed(3), r.commits, r.failures, r.conflicts]),
    ),
  );
  if (options.out !== null) {
    writeResults(options.out ?? resultsPath('store-pods-results.json'), { schema: 1, date: new Date().toISOString(), quick, machine, perWriter, rounds: iterations, rows, notes });
  }
  return { rows, notes };
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = argValue('out', args);
  await runPodStoreBench({ quick: args.includes('--quick'), out });
}
