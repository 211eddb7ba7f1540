// What pod schedulers left behind cost later commits. One state per row, each 200 nodes × 8 GPUs;
// one operation is a commit of a state's best option for a 40 GiB request and the release of that
// slot, timed on its own. Rows: no pod scheduler; 500 opened and closed; 500 opened and dropped
// without close() (then one garbage collection, as any running service has); 500 opened and still
// held (live schedulers: each is re-synced on every change, by design). Interleaved: every tinybench
// iteration does one operation on each row's state, starting at the next row each time, so drift in
// the machine's load hits all alike. Wall-clock medians: on a loaded machine the p99 is the machine's.
//   npm run build && node --expose-gc dist/bench/lifecycle.bench.js [--quick] [--out=FILE]
// Writes bench/lifecycle-results.json.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Bench } from 'tinybench';
import type { ClusterState } from '../src/cluster/state.js';
import { type Engine, openEngine } from '../src/engine.js';
import type { PodScheduler } from '../src/fleet/scheduler.js';
import { formatBytes } from '../src/shared/units.js';
import { argValue, isMain, machineInfo, percentile, resultsPath, writeResults } from './store.bench.js';

const G = 2 ** 30;
/** Schedulers per row. */
export const SCHEDULERS = 500;
const NODES = 200;

/** The garbage collector (node --expose-gc, else Node's flag set at run time). */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

type Row = { backend: string; row: string; schedulers: number; p50Us: number; p99Us: number; meanUs: number; ops: number; vsNone?: number };

type Rig = { row: string; state: ClusterState; held: PodScheduler[]; latencies: number[] };

function rig(engine: Engine, row: string, schedulers: 'none' | 'closed' | 'dropped' | 'held'): Rig {
  const state = engine.createClusterState({
    nodes: Array.from({ length: NODES }, (_, n) => ({ id: `n${n}`, gpus: Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * G })), cpu: 64_000, hostMemory: 512 * G })),
  });
  const held: PodScheduler[] = [];
  if (schedulers !== 'none') {
    for (let k = 0; k < SCHEDULERS; k++) {
      const s = state.podScheduler({ policy: 'bestfit' });
      if (schedulers === 'closed') s.close();
      if (schedulers === 'held') held.push(s);
    }
  }
  return { row, state, held, latencies: [] };
}

function operate(r: Rig): void {
  const t0 = performance.now();
  const plan = r.state.plan({ memory: 40 * G, tensorParallelSizes: [1] });
  const id = r.state.commit(plan.options[0]!); // commit rejects a missing option with an AllocationError
  r.state.release(id);
  r.latencies.push((performance.now() - t0) * 1000);
}

export async function runLifecycleBench(options: { quick?: boolean; out?: string | null } = {}): Promise<Row[]> {
  const quick = options.quick === true;
  const iterations = quick ? 200 : 3000;
  const gc = collector();
  const rows: Row[] = [];
  for (const backend of ['wasm', 'ts'] as const) {
    const engine = await openEngine({ backend });
    const rigs = [
      rig(engine, 'no pod scheduler', 'none'),
      rig(engine, `${SCHEDULERS} pod schedulers, closed`, 'closed'),
      rig(engine, `${SCHEDULERS} pod schedulers, dropped without close() (after a GC)`, 'dropped'),
      rig(engine, `${SCHEDULERS} pod schedulers, open and held`, 'held'),
    ];
    // The dropped ones: collected, and their finalizers run (a turn of the event loop).
    for (let k = 0; k < 3; k++) {
      gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    for (let k = 0; k < 50; k++) for (const r of rigs) operate(r); // warm-up
    for (const r of rigs) r.latencies.length = 0;
    const bench = new Bench({ iterations, time: 0, warmup: false });
    // Each iteration starts at the next row, so no row is always first (or last) after tinybench's own work.
    let turn = 0;
    bench.add(`lifecycle ${backend}`, () => {
      turn++;
      for (let k = 0; k < rigs.length; k++) operate(rigs[(turn + k) % rigs.length]!);
    });
    await bench.run();
    const task = bench.tasks[0]!;
    if (task.result?.state === 'errored') throw task.result.error;
    let none = NaN;
    for (const r of rigs) {
      const sorted = [...r.latencies].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      if (r.row === 'no pod scheduler') none = p50;
      rows.push({
        backend,
        row: r.row,
        schedulers: r.row === 'no pod scheduler' ? 0 : SCHEDULERS,
        p50Us: p50,
        p99Us: percentile(sorted, 99),
        meanUs: sorted.reduce((s, x) => s + x, 0) / sorted.length,
        ops: sorted.length,
        vsNone: p50 / none,
      });
      for (const s of r.held) s.close();
    }
  }
  const machine = machineInfo();
  console.log(
    `lifecycle bench on ${machine.cpu} (${machine.cores} cores, ${formatBytes(machine.memoryBytes)}), Node ${machine.node}, load average ${machine.loadavg.map((x) => x.toFixed(1)).join(' ')}${quick ? ', quick' : ''}: plan + commit + release on ${NODES} nodes × 8 GPUs, ${iterations} per row, interleaved; µs`,
  );
  const header = ['backend', 'row', 'p50 µs', 'p99 µs', 'mean µs', '÷ no scheduler (p50)'];
  const cells = rows.map((r) => [r.backend, r.row, r.p50Us.toFixed(1), r.p99Us.toFixed(1), r.meanUs.toFixed(1), (r.vsNone ?? NaN).toFixed(2)]);
  const widths = header.map((h, k) => Math.max(h.length, ...cells.map((c) => c[k]!.length)));
  for (const line of [header, widths.map((w) => '-'.repeat(w)), ...cells]) console.log(line.map((c, k) => c.padEnd(widths[k]!)).join('  '));
  if (options.out !== null) writeResults(options.out ?? resultsPath('lifecycle-results.json'), { schema: 1, date: new Date().toISOString(), quick, machine, nodes: NODES, iterations, rows });
  return rows;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = argValue('out', args);
  await runLifecycleBench({ quick: args.includes('--quick'), out });
}
