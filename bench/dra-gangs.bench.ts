// DRA gangs benchmark: createDraCluster over DGX H100 nodes as NVIDIA's DRA driver publishes them
// (8 whole GPUs each with its own UUID, which node classes leave out: the nodes are one class), the
// node label `nvidia.com/gpu.clique` in cliques of 18 nodes (a GB200 NVL72-sized NVLink domain),
// a seeded tenth of the nodes fully held and a twentieth half held by other claims. Rows:
//   - placed: gangs of 4 and 16 pods × 8 GPUs in one clique (topology.required), and of 64 pods
//     over as few cliques as possible (topology.preferred): time per gang placed, its pods released
//     outside the timing;
//   - refused: 64 pods in one clique (no clique has 64 nodes) and 16 pods in one clique on a
//     cluster where no clique has 16 free nodes: time per gang refused;
//   - quality (on the smallest cluster): a seeded stream of gangs (2–16 pods × 8 GPUs, one clique each) and single pods
//     (1, 2, 4 or 8 GPUs), placed until the first gang fails, three ways: scheduleGroup; each pod
//     alone by schedule() (a gang counts when every pod is placed and all in one clique); and
//     clique by clique with each pod alone on the clique's nodes, giving back on failure (KEP-5732's
//     first algorithm: one domain after another, pods in sequence, no backtracking).
// Wall time per operation (tinybench) and CPU time (user + system) per operation; prints a table,
// writes bench/dra-gangs-results.json, names the machine.
//   npm run bench:dra-gangs [-- --quick] [-- --nodes=1000,5000] [-- --out=FILE]
import { loadavg } from 'node:os';
import { Bench } from 'tinybench';
import { table } from '../src/cli/lib/common.js';
import { createDraCluster, type DraCluster, type GangRequest } from '../src/dra/index.js';
import { DGX_H100_LAYOUT, H100_80GB, NVIDIA_CLASSES, NVIDIA_DRIVER, rng, wholeGpuNode } from './dra-fleets/index.js';
import { argValue, isMain, machineInfo, resultsPath, writeResults } from './store.bench.js';

type Obj = Record<string, unknown>;
const CLIQUE = 'nvidia.com/gpu.clique';
const CLIQUE_SIZE = 18;
const GPUS = 8;
/** Targets of the issue. */
const TARGETS = { refusedMs: 10, placed16Ms: 50 };

/** One row of timings. */
export interface GangRow {
  kind: 'placed' | 'refused';
  nodes: number;
  pods: number;
  topology: string;
  /** Wall ms per gang: mean and median. */
  meanMs: number;
  p50Ms: number;
  /** CPU ms (user + system) per gang. */
  cpuMs: number;
  /** Allocator runs per gang. */
  tries: number;
  samples: number;
  outcome: string;
}

/** One way of placing the quality stream. */
export interface QualityRow {
  nodes: number;
  way: 'scheduleGroup' | 'one by one' | 'clique by clique';
  gangsBeforeFirstFailure: number;
  /** Single pods placed before that failure. */
  singles: number;
  /** GPUs allocated at the first failure ÷ GPUs free at the start. */
  allocatedShare: number;
  ms: number;
}

/** The cluster: `nodes` DGX H100s in cliques of 18, with the seeded background load (`busy` false: nothing held). */
function clusterInit(nodes: number, busy: boolean, seed = 1): { classes: Obj[]; slices: Obj[]; nodes: Obj[]; allocatedDevices: string[] } {
  const random = rng(seed);
  const slices: Obj[] = [];
  const nodeObjects: Obj[] = [];
  const allocatedDevices: string[] = [];
  for (let k = 0; k < nodes; k++) {
    const name = `dgx-${String(k).padStart(5, '0')}`;
    slices.push(...wholeGpuNode(name, H100_80GB, DGX_H100_LAYOUT));
    nodeObjects.push({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, [CLIQUE]: `clique-${Math.floor(k / CLIQUE_SIZE)}` } } });
    if (!busy) continue;
    const r = random();
    const held = r < 0.1 ? GPUS : r < 0.15 ? GPUS / 2 : 0;
    for (let g = 0; g < held; g++) allocatedDevices.push(`${NVIDIA_DRIVER}/${name}/gpu-${g}`);
  }
  return { classes: NVIDIA_CLASSES, slices, nodes: nodeObjects, allocatedDevices };
}

/** The cluster where no clique has `free` nodes free: all but `free - 1` nodes of each clique held. */
function crowdedInit(nodes: number, free: number): ReturnType<typeof clusterInit> {
  const init = clusterInit(nodes, false);
  init.allocatedDevices = [];
  init.nodes.forEach((n, k) => {
    if (k % CLIQUE_SIZE < free - 1) return;
    const name = (n.metadata as { name: string }).name;
    for (let g = 0; g < GPUS; g++) init.allocatedDevices.push(`${NVIDIA_DRIVER}/${name}/gpu-${g}`);
  });
  return init;
}

function claim(name: string, gpus: number): Obj {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace: 'bench' },
    spec: { devices: { requests: [{ name: 'gpus', exactly: { deviceClassName: 'gpu.nvidia.com', allocationMode: 'ExactCount', count: gpus } }] } },
  };
}

function gang(prefix: string, pods: number, gpus = GPUS): Obj[][] {
  return Array.from({ length: pods }, (_, p) => [claim(`${prefix}-${p}`, gpus)]);
}

/** Times scheduleGroup of `pods` one-claim pods named PREFIX-i; what it placed is released after each sample. */
async function timeRow(
  row: Omit<GangRow, 'meanMs' | 'p50Ms' | 'cpuMs' | 'tries' | 'samples' | 'outcome'>,
  cluster: DraCluster,
  prefix: string,
  topology: GangRequest['topology'],
  quick: boolean,
): Promise<GangRow> {
  let placed: string[] = [];
  let outcome = '';
  let calls = 0;
  let cpu = 0;
  const bench = new Bench({ time: quick ? 50 : 1500, warmupTime: quick ? 10 : 200, iterations: quick ? 3 : 10, warmupIterations: quick ? 1 : 3 });
  const triesBefore = cluster.stats().tries;
  bench.add(`${row.kind} ${row.pods}`, () => {
    // The gang placed by the sample before is given back first, outside the timing.
    for (const label of placed) cluster.release(label);
    placed = [];
    const pods = gang(prefix, row.pods);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = cluster.scheduleGroup({ pods, topology });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    calls++;
    placed = r.placements.map((p) => `bench/${prefix}-${p.pod}`);
    outcome = r.reason === undefined ? `${r.placements.length} placed in ${new Set(r.placements.map((p) => cliqueOf(cluster, p.node))).size} clique(s)` : r.reason.message.slice(0, 90);
    return { overriddenDuration: ms };
  });
  await bench.run();
  for (const label of placed) cluster.release(label);
  const r = bench.tasks[0]!.result;
  if (r === undefined || r.state !== 'completed') throw (r as { error?: unknown } | undefined)?.error ?? new Error(`${row.kind}: no result`);
  return { ...row, meanMs: r.latency.mean, p50Ms: r.latency.p50, cpuMs: cpu / calls, tries: (cluster.stats().tries - triesBefore) / calls, samples: r.latency.samplesCount, outcome };
}

async function timingRows(nodes: number, quick: boolean): Promise<GangRow[]> {
  const rows: GangRow[] = [];
  const t0 = performance.now();
  const cluster = createDraCluster({ ...clusterInit(nodes, true), mode: 'first-fit' });
  process.stderr.write(`dra-gangs: ${nodes} nodes created in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  for (const pods of [4, 16]) rows.push(await timeRow({ kind: 'placed', nodes, pods, topology: `required ${CLIQUE}` }, cluster, `g${pods}`, { required: CLIQUE }, quick));
  rows.push(await timeRow({ kind: 'placed', nodes, pods: 64, topology: `preferred ${CLIQUE}` }, cluster, 'g64', { preferred: [CLIQUE] }, quick));
  rows.push(await timeRow({ kind: 'refused', nodes, pods: 64, topology: `required ${CLIQUE}` }, cluster, 'r64', { required: CLIQUE }, quick));
  const crowded = createDraCluster({ ...crowdedInit(nodes, 16), mode: 'first-fit' });
  rows.push(await timeRow({ kind: 'refused', nodes, pods: 16, topology: `required ${CLIQUE}, 15 free per clique` }, crowded, 'r16', { required: CLIQUE }, quick));
  return rows;
}

/** The seeded stream: gangs of 2–16 pods × 8 GPUs and single pods of 1, 2, 4 or 8 GPUs, about one gang in three. */
function stream(seed: number, length: number): Array<{ gang: number; gpus: number }> {
  const random = rng(seed);
  return Array.from({ length }, () => (random() < 0.35 ? { gang: 2 + Math.floor(random() * 15), gpus: GPUS } : { gang: 0, gpus: [1, 2, 4, 8][Math.floor(random() * 4)]! }));
}

function cliqueOf(cluster: DraCluster, node: string): number {
  return Math.floor(cluster.nodeNames.indexOf(node) / CLIQUE_SIZE);
}

function qualityRow(nodes: number, way: QualityRow['way'], seed: number): QualityRow {
  const init = clusterInit(nodes, true, seed);
  const cluster = createDraCluster({ ...init, mode: 'first-fit' });
  const freeAtStart = nodes * GPUS - init.allocatedDevices.length;
  const t0 = performance.now();
  let gangs = 0;
  let singles = 0;
  let n = 0;
  const cliques = Math.ceil(nodes / CLIQUE_SIZE);
  for (const item of stream(seed, 100_000)) {
    n++;
    if (item.gang === 0) {
      if (cluster.schedule([claim(`s${n}`, item.gpus)]).node !== undefined) singles++;
      continue;
    }
    const pods = gang(`q${n}`, item.gang);
    let ok: boolean;
    if (way === 'scheduleGroup') ok = cluster.scheduleGroup({ pods, topology: { required: CLIQUE } }).reason === undefined;
    else if (way === 'one by one') {
      const placed = pods.map((p) => cluster.schedule(p).node);
      ok = placed.every((x) => x !== undefined) && new Set(placed.map((x) => cliqueOf(cluster, x!))).size === 1;
    } else {
      ok = false;
      for (let c = 0; c < cliques && !ok; c++) {
        const done: string[] = [];
        for (const [p, podClaims] of pods.entries()) {
          const r = cluster.place(podClaims, (k) => Math.floor(k / CLIQUE_SIZE) === c);
          if (r.node < 0) break;
          done.push(`bench/q${n}-${p}`);
        }
        if (done.length === pods.length) ok = true;
        else for (const label of done) cluster.release(label);
      }
    }
    if (!ok) break;
    gangs++;
  }
  const allocated = cluster.allocated().allocatedDevices.length - init.allocatedDevices.length;
  return { nodes, way, gangsBeforeFirstFailure: gangs, singles, allocatedShare: allocated / freeAtStart, ms: performance.now() - t0 };
}

/** The report. */
export interface GangBenchReport {
  schema: 1;
  date: string;
  quick: boolean;
  machine: ReturnType<typeof machineInfo>;
  loadavgStart: number[];
  rows: GangRow[];
  quality: QualityRow[];
  targets: Array<{ target: string; met: boolean; detail: string }>;
  seconds: number;
}

function formatReport(report: GangBenchReport): string {
  const m = report.machine;
  let text = `DRA gangs — ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${report.loadavgStart[0]!.toFixed(1)} → ${m.loadavg[0]!.toFixed(1)}${report.quick ? ' (quick)' : ''}\n`;
  text += table(
    ['ROW', 'NODES', 'PODS × 8 GPUs', 'TOPOLOGY', 'MEAN ms', 'P50 ms', 'CPU ms', 'RUNS', 'OUTCOME'],
    report.rows.map((r) => [r.kind, r.nodes.toLocaleString('en-US'), String(r.pods), r.topology, r.meanMs.toFixed(2), r.p50Ms.toFixed(2), r.cpuMs.toFixed(2), r.tries.toFixed(0), r.outcome]),
  );
  text += table(
    ['QUALITY', 'NODES', 'GANGS BEFORE 1ST FAILURE', 'SINGLE PODS', 'GPUs ALLOCATED', 'ms'],
    report.quality.map((q) => [q.way, q.nodes.toLocaleString('en-US'), String(q.gangsBeforeFirstFailure), String(q.singles), `${(q.allocatedShare * 100).toFixed(1)} %`, q.ms.toFixed(0)]),
  );
  for (const t of report.targets) text += `target: ${t.target}: ${t.met ? 'met' : 'MISSED'} (${t.detail})\n`;
  return text;
}

function evaluate(rows: GangRow[]): GangBenchReport['targets'] {
  const out: GangBenchReport['targets'] = [];
  const big = Math.max(...rows.map((r) => r.nodes));
  for (const r of rows.filter((x) => x.nodes === big && x.kind === 'refused'))
    out.push({
      target: `infeasible gang refused in ≤ ${TARGETS.refusedMs} ms at ${big} nodes (${r.pods} pods, ${r.topology})`,
      met: r.p50Ms <= TARGETS.refusedMs,
      detail: `${r.p50Ms.toFixed(2)} ms median, ${r.cpuMs.toFixed(2)} ms CPU`,
    });
  const r16 = rows.find((x) => x.nodes === big && x.kind === 'placed' && x.pods === 16);
  if (r16 !== undefined)
    out.push({
      target: `feasible 16-pod gang placed in ≤ ${TARGETS.placed16Ms} ms at ${big} nodes`,
      met: r16.p50Ms <= TARGETS.placed16Ms,
      detail: `${r16.p50Ms.toFixed(2)} ms median, ${r16.cpuMs.toFixed(2)} ms CPU`,
    });
  return out;
}

/** Runs the gangs benchmark; writes bench/dra-gangs-results.json unless `out` is null. */
export async function runGangBench(options: { quick?: boolean; out?: string | null; nodes?: number[] } = {}): Promise<GangBenchReport> {
  const quick = options.quick === true;
  const started = performance.now();
  const loadavgStart = loadavg();
  const sizes = options.nodes ?? (quick ? [1000] : [1000, 5000]);
  const rows: GangRow[] = [];
  const quality: QualityRow[] = [];
  for (const nodes of sizes) rows.push(...(await timingRows(nodes, quick)));
  // Quality on the smallest size: the clique-by-clique way tries every clique for every gang.
  for (const way of ['scheduleGroup', 'one by one', 'clique by clique'] as const) quality.push(qualityRow(Math.min(...sizes), way, 7));
  const report: GangBenchReport = {
    schema: 1,
    date: new Date().toISOString(),
    quick,
    machine: machineInfo(),
    loadavgStart,
    rows,
    quality,
    targets: evaluate(rows),
    seconds: (performance.now() - started) / 1000,
  };
  process.stdout.write(formatReport(report));
  if (options.out !== null) writeResults(options.out ?? resultsPath('dra-gangs-results.json'), report);
  return report;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = argValue('out', args);
  const nodes = argValue('nodes', args)?.split(',').map(Number);
  await runGangBench({ quick: args.includes('--quick'), out, ...(nodes !== undefined ? { nodes } : {}) });
}
