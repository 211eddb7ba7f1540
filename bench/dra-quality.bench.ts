// DRA placement-quality benchmark: seeded streams of claims (MIG profiles, whole GPUs ×1/×2/×4/×8,
// GPU + NIC pairs under one PCIe root, shared GPUs by consumable memory) and openb's pods mapped to
// claims, arriving at a fleet of driver-faithful nodes (bench/dra-fleets/) until they ask for
// 100 % of its GPUs — FGD's protocol: a claim no node can take is skipped. Each stream runs through
// createDraCluster in first-fit mode (upstream's allocator) and in scored mode; where every claim of
// the stream maps to a fleet pod (whole GPUs, shares by memory: dra-quality-fleet.ts) also through
// the fleet room's FGD pod scheduler. openb's pods run on `h100-dynamic-mig` as MIG profiles and on
// `example-shared` as shares of 80 GiB. Rows per fleet × stream × mode: GPUs allocated at 100 % arrived (mean of the seeds), claims
// placed before the first failure, multi-GPU claims split across PCIe roots (and how many of those
// splits a free root could have avoided), µs per claim and CPU per claim. Speed is measured fairly
// between the modes: on each fleet and stream every mode first runs one untimed warm-up stream
// (seed first-seed − 1), then the seeds run with the modes interleaved, their order rotated from
// seed to seed; so no mode runs on code another made hot, and each pays for the garbage the others
// leave about equally. The seeds run `--rounds` times (3; the quick run once), each round placing
// every claim as the first did; the µs and CPU columns cover every round. Prints a table, writes
// bench/dra-quality-results.json, names the machine. `--same-as=FILE`: also checks that every
// placement is the one an earlier results file recorded (exit code 1 where one differs).
//   npm run bench:dra-quality [-- --quick] [-- --seeds=5] [-- --first-seed=1] [-- --scale=1] [-- --rounds=3] [-- --fleets=…] [-- --out=FILE] [-- --same-as=FILE]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { table } from '../src/cli/lib/common.js';
import { createDraCluster, DEFAULT_DRA_FEATURES, DEFAULT_NODE_SCORES, type DraMode, type DraWorkloadEntry, FRAGMENTATION_CANDIDATES, type NodeScore } from '../src/dra/index.js';
import { openEngine } from '../src/engine.js';
import { buildFleet, type Fleet, type FleetName, fleetGpus, openbShapes, openbStream, type ShapeWeight, type StreamClaim, seededStream, shapeClaim, shapeMix } from './dra-fleets/index.js';
import { fleetMaps, runFleetStream } from './dra-quality-fleet.js';
import { type QualityRun, StreamTally } from './dra-quality-tally.js';
import { openbRoot } from './openb-root.js';
import { argValue, isMain, machineInfo, resultsPath, writeResults } from './store.bench.js';

export type { QualityRun } from './dra-quality-tally.js';

/** One row: a fleet, a stream, a mode, over the seeds. */
export interface QualityRow {
  fleet: FleetName;
  stream: 'mix' | 'openb';
  /** The DRA allocator's mode, or `fleet`: the fleet room's FGD pod scheduler on the same stream (where every claim maps to a pod; dra-quality-fleet.ts). */
  mode: DraMode | 'fleet';
  nodeScore: NodeScore | 'fgd';
  /** The scored search was told the stream's shape mix as its workload. */
  workload: boolean;
  nodes: number;
  gpus: number;
  seeds: number[];
  /** Mean over the seeds. */
  allocatedShare: number;
  unallocatedShare: number;
  perSeedAllocated: number[];
  placedBeforeFirstFailure: number;
  multiGpu: number;
  split: number;
  avoidableSplit: number;
  usPerClaimMedian: number;
  usPerClaimMean: number;
  usHalfFullMedian: number;
  cpuMsPerClaim: number;
  /** CPU per claim in each round (the seeds once each). */
  cpuMsPerClaimPerRound: number[];
  /** Each seed's placement digest (QualityRun.placements). */
  perSeedPlacements: string[];
}

export interface QualityTarget {
  target: string;
  met: boolean | null;
  detail: string;
}

export interface QualityReport {
  schema: 1;
  date: string;
  quick: boolean;
  machine: ReturnType<typeof machineInfo>;
  loadavgStart: number[];
  /** Times each stream ran (µs and CPU columns over all of them). */
  rounds: number;
  rows: QualityRow[];
  targets: QualityTarget[];
  seconds: number;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

/** Runs one stream through a fresh cluster handle; counts what the issue's rows need (StreamTally). */
export function runStream(fleet: Fleet, stream: readonly StreamClaim[], mode: DraMode, nodeScore: NodeScore, seed: number, workload?: DraWorkloadEntry[]): QualityRun {
  const cluster = createDraCluster({
    classes: fleet.classes,
    slices: fleet.slices,
    nodes: fleet.nodes,
    mode,
    nodeScore,
    features: { ...DEFAULT_DRA_FEATURES, consumableCapacity: true },
    ...(workload !== undefined ? { workload } : {}),
  });
  const tally = new StreamTally(fleet, seed, stream.length);
  for (const c of stream) {
    tally.place(c, () => {
      const result = cluster.schedule(c.claim);
      if (result.node === undefined) return undefined;
      const devices = result.results.map((r) => r.devices.results.map((d) => `${d.driver}/${d.pool}/${d.device}${d.shareID === undefined ? '' : `#${d.shareID}`}`).join(',')).join(';');
      // The GPUs of the claim's first result (NICs aside).
      const gpus: string[] = [];
      for (const r of result.results[0]!.devices.results) {
        const gpu = fleet.deviceGpu.get(`${r.driver}/${r.pool}/${r.device}`);
        if (gpu !== undefined && !gpu.includes('/nic/')) gpus.push(gpu);
      }
      return { line: `${result.node}:${devices}`, gpus };
    });
  }
  return tally.finish();
}

/** A shape mix as a workload (one claim per shape, its weight). */
function workloadOf(mix: readonly ShapeWeight[]): DraWorkloadEntry[] {
  return mix.map((m, i) => ({ claim: shapeClaim(`workload-${i}`, m.shape).claim, weight: m.weight }));
}

/** openb's shapes counted: the trace's own distribution. */
function openbMix(shapes: readonly string[]): ShapeWeight[] {
  const counts = new Map<string, number>();
  for (const s of shapes) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([shape, weight]) => ({ shape, weight }));
}

function rowOf(fleet: Fleet, stream: 'mix' | 'openb', mode: DraMode | 'fleet', nodeScore: NodeScore | 'fgd', runs: QualityRun[], workload: boolean): QualityRow {
  const allocated = mean(runs.map((r) => r.allocatedShare));
  const claims = runs.reduce((s, r) => s + r.claims, 0);
  return {
    fleet: fleet.name,
    stream,
    mode,
    nodeScore,
    workload,
    nodes: fleet.nodes.length,
    gpus: fleetGpus(fleet),
    seeds: runs.map((r) => r.seed),
    allocatedShare: allocated,
    unallocatedShare: 1 - allocated,
    perSeedAllocated: runs.map((r) => r.allocatedShare),
    placedBeforeFirstFailure: mean(runs.map((r) => r.placedBeforeFirstFailure)),
    multiGpu: runs.reduce((s, r) => s + r.multiGpu, 0),
    split: runs.reduce((s, r) => s + r.split, 0),
    avoidableSplit: runs.reduce((s, r) => s + r.avoidableSplit, 0),
    usPerClaimMedian: median(runs.flatMap((r) => r.latenciesUs)),
    usPerClaimMean: mean(runs.flatMap((r) => r.latenciesUs)),
    usHalfFullMedian: median(runs.flatMap((r) => r.halfFullUs)),
    cpuMsPerClaim: runs.reduce((s, r) => s + r.cpuMs, 0) / (claims * (runs[0]?.rounds ?? 1)),
    cpuMsPerClaimPerRound: (runs[0]?.cpuMsPerRound ?? []).map((_, round) => runs.reduce((s, r) => s + r.cpuMsPerRound[round]!, 0) / claims),
    perSeedPlacements: runs.map((r) => r.placements),
  };
}

/** MIG-heavy fleets: where the unallocated-share target applies. */
export const MIG_HEAVY: readonly FleetName[] = ['a100-static-mig', 'h100-dynamic-mig'];

/** The issue's targets, judged on the rows. */
export function evaluateQualityTargets(rows: readonly QualityRow[]): QualityTarget[] {
  const targets: QualityTarget[] = [];
  // Judged on the scored handle's default node score (with and without the workload); the `pack` rows are an option, shown beside.
  const judged = (r: QualityRow): boolean => r.mode === 'scored' && r.nodeScore === DEFAULT_NODE_SCORES.scored;
  const label = (r: QualityRow): string => `${r.nodeScore}${r.workload ? ' +workload' : ''}`;
  const pairs = rows.filter(judged).flatMap((s) => {
    const ff = rows.find((r) => r.mode === 'first-fit' && r.fleet === s.fleet && r.stream === s.stream);
    return ff === undefined ? [] : [{ s, ff }];
  });
  // Every mode runs the same seeds, so a row and its first-fit row have a value per seed each.
  const worse = pairs.flatMap(({ s, ff }) => s.perSeedAllocated.map((a, i) => ({ s, a, b: ff.perSeedAllocated[i]!, seed: s.seeds[i]! })).filter((x) => x.a < x.b - 1e-9));
  targets.push({
    target: 'scored allocates at least as much as first-fit on every fleet and seed',
    met: pairs.length === 0 ? null : worse.length === 0,
    detail:
      worse.length === 0
        ? `${pairs.reduce((n, p) => n + p.s.seeds.length, 0)} fleet × seed runs`
        : worse.map((x) => `${x.s.fleet}/${x.s.stream} ${label(x.s)} seed ${x.seed}: ${(x.a * 100).toFixed(2)} % vs ${(x.b * 100).toFixed(2)} %`).join('; '),
  });
  const heavy = pairs.filter((p) => MIG_HEAVY.includes(p.s.fleet));
  targets.push({
    target: "on MIG-heavy fleets scored leaves ≤ 0.7 × first-fit's unallocated share (mean of the seeds)",
    met: heavy.length === 0 ? null : heavy.every((p) => p.s.unallocatedShare <= 0.7 * p.ff.unallocatedShare + 1e-12),
    detail: heavy
      .map(
        (p) =>
          `${p.s.fleet}/${p.s.stream} ${label(p.s)}: ${(p.s.unallocatedShare * 100).toFixed(2)} % vs ${(p.ff.unallocatedShare * 100).toFixed(2)} % (${p.ff.unallocatedShare === 0 ? '–' : (p.s.unallocatedShare / p.ff.unallocatedShare).toFixed(2)}×)`,
      )
      .join('; '),
  });
  const scored = rows.filter(judged);
  targets.push({
    target: 'no avoidable PCIe split (scored)',
    met: scored.length === 0 ? null : scored.every((r) => r.avoidableSplit === 0),
    detail: scored.map((r) => `${r.fleet}/${r.stream} ${label(r)}: ${r.avoidableSplit} of ${r.split} splits avoidable (${r.multiGpu} multi-GPU claims)`).join('; '),
  });
  // Every scored row of the mixed fleet against first-fit's, from the same run (the modes interleaved per seed).
  const mixed = pairs.filter((p) => p.s.fleet === 'nvidia-mix' && p.s.stream === 'mix');
  const us = (ms: number): string => (ms * 1000).toFixed(0);
  targets.push({
    target: 'scored within 2× of first-fit per claim on the mixed NVIDIA fleet (CPU time per claim, the default scored rows)',
    met: mixed.length === 0 ? null : mixed.every((p) => p.s.cpuMsPerClaim <= 2 * p.ff.cpuMsPerClaim),
    detail:
      mixed.length === 0
        ? 'no nvidia-mix rows'
        : `first-fit ${us(mixed[0]!.ff.cpuMsPerClaim)} µs CPU per claim; ${mixed
            .map(
              (p) =>
                `scored ${p.s.nodeScore}${p.s.workload ? ' +workload' : ''}${p.s.nodeScore === 'fragmentation' ? ` (the allocator on up to ${FRAGMENTATION_CANDIDATES} nodes per claim)` : ''} ${us(p.s.cpuMsPerClaim)} µs (${(p.s.cpuMsPerClaim / p.ff.cpuMsPerClaim).toFixed(2)}×; by round ${p.s.cpuMsPerClaimPerRound.map((c, i) => `${(c / p.ff.cpuMsPerClaimPerRound[i]!).toFixed(2)}×`).join(', ')}; wall median ${p.s.usPerClaimMedian.toFixed(0)} against ${p.ff.usPerClaimMedian.toFixed(0)} µs)`,
            )
            .join('; ')}`,
  });
  const ff = rows.find((r) => r.mode === 'first-fit' && r.fleet === 'nvidia-mix' && r.stream === 'mix');
  targets.push({
    target: 'first-fit ≤ 300 µs median per claim on the mixed NVIDIA fleet at half full',
    met: ff === undefined ? null : ff.usHalfFullMedian <= 300,
    detail: ff === undefined ? 'no nvidia-mix rows' : `${ff.usHalfFullMedian.toFixed(0)} µs (scored ${mixed.map((p) => `${p.s.nodeScore} ${p.s.usHalfFullMedian.toFixed(0)} µs`).join(', ')})`,
  });
  return targets;
}

/**
 * Where two reports' placements differ: rows matched by fleet, stream, mode, node score and
 * workload; per seed the allocated share, the placement digest (when both recorded one), and per
 * row the claims placed before the first failure and the splits. Empty: the same placements.
 */
export function placementDifferences(now: readonly QualityRow[], before: readonly QualityRow[]): string[] {
  const name = (r: QualityRow): string => `${r.fleet}/${r.stream} ${r.mode} ${r.nodeScore}${r.workload ? ' +workload' : ''}`;
  const out: string[] = [];
  for (const r of now) {
    const b = before.find((x) => name(x) === name(r));
    if (b === undefined) continue;
    r.seeds.forEach((seed, i) => {
      const j = b.seeds.indexOf(seed);
      if (j < 0) return;
      if (r.perSeedAllocated[i] !== b.perSeedAllocated[j]) out.push(`${name(r)} seed ${seed}: allocated ${r.perSeedAllocated[i]} against ${b.perSeedAllocated[j]}`);
      const [p, q] = [r.perSeedPlacements?.[i], b.perSeedPlacements?.[j]];
      if (p !== undefined && q !== undefined && p !== q) out.push(`${name(r)} seed ${seed}: placements differ (${p.slice(0, 12)} against ${q.slice(0, 12)})`);
    });
    if (r.seeds.join() !== b.seeds.join()) continue;
    for (const field of ['placedBeforeFirstFailure', 'multiGpu', 'split', 'avoidableSplit'] as const) {
      if (r[field] !== b[field]) out.push(`${name(r)}: ${field} ${r[field]} against ${b[field]}`);
    }
  }
  return out;
}

const pct = (x: number): string => `${(x * 100).toFixed(2)} %`;

/** The printed table. */
export function formatQualityTable(report: QualityReport): string {
  const m = report.machine;
  let text = `DRA placement quality on ${m.cpu} (${m.cores} cores), Node ${m.node}${report.quick ? ', quick' : ''}\n`;
  text += table(
    [
      'fleet',
      'stream',
      'mode',
      'node score',
      'nodes',
      'GPUs',
      'allocated @100%',
      'unallocated',
      'vs first-fit',
      'placed before 1st fail',
      'multi-GPU split (avoidable)',
      'µs/claim p50',
      'half full p50',
      'CPU µs/claim',
      'CPU vs first-fit',
    ],
    report.rows.map((r) => {
      const ff = report.rows.find((x) => x.mode === 'first-fit' && x.fleet === r.fleet && x.stream === r.stream);
      return [
        r.fleet,
        r.stream,
        r.mode,
        `${r.nodeScore}${r.workload ? ' +workload' : ''}`,
        String(r.nodes),
        String(r.gpus),
        pct(r.allocatedShare),
        pct(r.unallocatedShare),
        ff === undefined || r === ff ? '' : ff.unallocatedShare === 0 ? '–' : `${(r.unallocatedShare / ff.unallocatedShare).toFixed(2)}×`,
        r.placedBeforeFirstFailure.toFixed(1),
        `${r.split}/${r.multiGpu} (${r.avoidableSplit})`,
        r.usPerClaimMedian.toFixed(0),
        Number.isNaN(r.usHalfFullMedian) ? '–' : r.usHalfFullMedian.toFixed(0),
        (r.cpuMsPerClaim * 1000).toFixed(0),
        ff === undefined || r === ff ? '' : `${(r.cpuMsPerClaim / ff.cpuMsPerClaim).toFixed(2)}×`,
      ];
    }),
  );
  text += `load average ${report.loadavgStart[0]!.toFixed(1)} → ${m.loadavg[0]!.toFixed(1)} on ${m.cores} cores; seeds ${report.rows[0]?.seeds.join(', ') ?? ''}, ${report.rounds} round(s); per fleet and stream one untimed warm-up stream per mode, then the modes interleaved per seed, their order rotated.\n`;
  for (const t of report.targets) text += `target: ${t.target}: ${t.met === null ? 'n/a' : t.met ? 'met' : 'MISSED'} (${t.detail})\n`;
  return text;
}

/** Runs the benchmark; writes bench/dra-quality-results.json unless `out` is null. */
/**
 * The configurations every stream runs in: upstream's allocator (first-fit, nodes packed), the
 * scored mode as a handle is by default (the node chosen by the objective, DEFAULT_NODE_SCORES;
 * its default workload: the partition shapes each node publishes), the same told the stream's
 * shape mix as its workload (what a scheduler knows of its pending claims), and the scored mode
 * with nodes packed (the `pack` option).
 */
export const CONFIGURATIONS: ReadonlyArray<{ mode: DraMode | 'fleet'; nodeScore: NodeScore | 'fgd'; workload: boolean }> = [
  { mode: 'first-fit', nodeScore: DEFAULT_NODE_SCORES['first-fit'], workload: false },
  { mode: 'scored', nodeScore: DEFAULT_NODE_SCORES.scored, workload: false },
  { mode: 'scored', nodeScore: DEFAULT_NODE_SCORES.scored, workload: true },
  { mode: 'scored', nodeScore: 'pack', workload: false },
];

/** The fleet room's FGD pod scheduler, told the stream's shape mix as its typical pods: on streams whose every claim maps to a fleet pod (dra-quality-fleet.ts). */
export const FLEET_FGD = { mode: 'fleet', nodeScore: 'fgd', workload: true } as const;

export async function runQualityBench(
  options: { quick?: boolean; seeds?: number; firstSeed?: number; scale?: number; rounds?: number; out?: string | null; fleets?: FleetName[] } = {},
): Promise<QualityReport> {
  const quick = options.quick === true;
  const started = performance.now();
  const loadavgStart = loadavg();
  const seeds = Array.from({ length: options.seeds ?? (quick ? 2 : 5) }, (_, i) => i + (options.firstSeed ?? 1));
  const scale = options.scale ?? 1;
  const rounds = options.rounds ?? (quick ? 1 : 3);
  const fleets: FleetName[] = options.fleets ?? (quick ? ['h100-dynamic-mig', 'a100-static-mig', 'nvidia-mix'] : ['dgx-h100', 'a100-static-mig', 'h100-dynamic-mig', 'nvidia-mix', 'example-shared']);
  const rows: QualityRow[] = [];
  // The warm-up seed: just before the measured ones, never one of them.
  const warmSeed = seeds[0]! - 1;
  const openb = openbShapes(openbRoot(import.meta.url));
  const openbShared = openbShapes(openbRoot(import.meta.url), 'default', 'shared');
  const engine = await openEngine({ backend: 'wasm' });
  for (const name of fleets) {
    const fleet = buildFleet(name, quick ? Math.max(1, Math.floor(scale / 2)) : scale);
    const mix = shapeMix(fleet);
    const streams: Array<{ kind: 'mix' | 'openb'; of: (seed: number) => StreamClaim[]; mix: ShapeWeight[] }> = [{ kind: 'mix', of: (seed) => seededStream(fleet, mix, seed), mix }];
    if (fleet.name === 'h100-dynamic-mig') streams.push({ kind: 'openb', of: (seed) => openbStream(fleet, openb, seed), mix: openbMix(openb) });
    if (fleet.name === 'example-shared') streams.push({ kind: 'openb', of: (seed) => openbStream(fleet, openbShared, seed), mix: openbMix(openbShared) });
    for (const s of streams) {
      const workload = workloadOf(s.mix);
      const configs = fleetMaps(
        s.mix.map((m) => m.shape),
        fleet,
      )
        ? [...CONFIGURATIONS, FLEET_FGD]
        : CONFIGURATIONS;
      const run = (at: number, seed: number): QualityRun => {
        const config = configs[at]!; // at < configs.length
        if (config.mode === 'fleet') return runFleetStream(engine, fleet, s.of(seed), s.mix, seed);
        return runStream(fleet, s.of(seed), config.mode, config.nodeScore as NodeScore, seed, config.workload ? workload : undefined);
      };
      // Warm-up: each mode once on a seed not measured, untimed, so each runs on code it made hot.
      for (let at = 0; at < configs.length; at++) run(at, warmSeed);
      // Then round by round and seed by seed, the modes interleaved and their order rotated (the
      // i-th stream run starts with mode i mod 3). A later round adds its times to the first's runs
      // and must place every claim as the first did.
      const runs: QualityRun[][] = configs.map(() => []);
      let start = 0;
      for (let round = 0; round < rounds; round++) {
        seeds.forEach((seed, i) => {
          for (let j = 0; j < configs.length; j++) {
            const at = (start + j) % configs.length;
            const done = run(at, seed);
            const list = runs[at]!; // at < configs.length
            if (round === 0) {
              list.push(done);
              continue;
            }
            const first = list[i]!; // the first round ran every seed
            if (done.placements !== first.placements) throw new Error(`${fleet.name}/${s.kind} seed ${seed}: round ${round + 1} placed claims differently from round 1 (nondeterminism)`);
            first.rounds++;
            first.cpuMs += done.cpuMs;
            first.cpuMsPerRound.push(done.cpuMs);
            first.latenciesUs.push(...done.latenciesUs);
            first.halfFullUs.push(...done.halfFullUs);
          }
          start++;
        });
      }
      configs.forEach(({ mode, nodeScore, workload }, at) => {
        const row = rowOf(fleet, s.kind, mode, nodeScore, runs[at]!, workload);
        rows.push(row);
        // Each row as it is done (a long run on a loaded machine shows its progress).
        process.stderr.write(
          `${row.fleet} ${row.stream} ${row.mode} ${row.nodeScore}${workload ? ' +workload' : ''}: allocated ${pct(row.allocatedShare)} (${row.perSeedAllocated.map((a) => (a * 100).toFixed(2)).join(' ')}), splits ${row.split}/${row.multiGpu} avoidable ${row.avoidableSplit}, CPU ${(row.cpuMsPerClaim * 1000).toFixed(0)} µs/claim\n`,
        );
      });
    }
  }
  const report: QualityReport = {
    schema: 1,
    date: new Date().toISOString(),
    quick,
    machine: machineInfo(),
    loadavgStart,
    rounds,
    rows,
    targets: evaluateQualityTargets(rows),
    seconds: (performance.now() - started) / 1000,
  };
  process.stdout.write(formatQualityTable(report));
  if (options.out !== null) writeResults(options.out ?? resultsPath('dra-quality-results.json'), report);
  return report;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (name: string): string | undefined => argValue(name, args);
  const seeds = value('seeds');
  const rounds = value('rounds');
  const firstSeed = value('first-seed');
  const scale = value('scale');
  const fleets = value('fleets');
  const sameAs = value('same-as');
  const report = await runQualityBench({
    quick: args.includes('--quick'),
    out: value('out'),
    ...(seeds !== undefined ? { seeds: Number(seeds) } : {}),
    ...(firstSeed !== undefined ? { firstSeed: Number(firstSeed) } : {}),
    ...(scale !== undefined ? { scale: Number(scale) } : {}),
    ...(rounds !== undefined ? { rounds: Number(rounds) } : {}),
    ...(fleets !== undefined ? { fleets: fleets.split(',') as FleetName[] } : {}),
  });
  if (sameAs !== undefined) {
    const before = JSON.parse(readFileSync(sameAs, 'utf8')) as QualityReport;
    const matched = report.rows.filter((r) => before.rows.some((b) => b.fleet === r.fleet && b.stream === r.stream && b.mode === r.mode && b.nodeScore === r.nodeScore && b.workload === r.workload));
    const differences = placementDifferences(report.rows, before.rows);
    process.stdout.write(
      differences.length === 0
        ? `placements: the same as ${sameAs} (${matched.length} rows matched)\n`
        : `placements: ${differences.length} difference(s) from ${sameAs}:\n${differences.map((d) => `  ${d}\n`).join('')}`,
    );
    if (differences.length > 0 || matched.length === 0) process.exitCode = 1;
  }
}
