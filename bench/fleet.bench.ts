// Fleet simulation speed: one full run of the FGD protocol on the openb default trace (1,213 nodes,
// ~10,800 pod attempts after tuning, seed 42) per policy, on each backend. Prints a table (runs in
// ms, pod attempts per second) and writes bench/fleet-results.json with the machine's description.
//   npm run bench:fleet              (builds first)
//   node dist/bench/fleet.bench.js --quick --out=/tmp/fleet.json
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { openEngine } from '../src/engine.js';
import { DEFAULT_POLICY, POLICIES } from '../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { validateNodes, validatePods } from '../src/fleet/types.js';
import { fleetClusterNodes } from '../src/simulation/simulate.js';
import { type Replay, realisticNodes, replay } from './fleet-realistic.js';
import { openbRoot } from './openb-root.js';
import { argValue } from './store.bench.js';

const root = openbRoot(import.meta.url);
const quick = process.argv.includes('--quick');
const out = argValue('out') ?? join(root, 'bench', 'fleet-results.json');

const nodes = parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8'));
const pods = parsePodCsv('pods', readFileSync(join(root, 'data/openb/openb_pod_list_default.csv'), 'utf8'));
// The same trace as validated specs (memory in MiB as `memory`), for the internal helpers.
const nodeSpecs = validateNodes('nodes', nodes);
const podSpecs = validatePods('pods', pods);
const engines = { wasm: await openEngine({ backend: 'wasm' }), ts: await openEngine({ backend: 'ts' }) };
const attempts = engines.wasm.simulateFleet({ nodes, pods, policy: 'random', seed: 42 }).pods;

const bench = new Bench({ iterations: quick ? 2 : 8, warmupIterations: quick ? 0 : 1, time: 0, warmupTime: 0 });
for (const p of POLICIES) {
  for (const backend of ['wasm', 'ts'] as const) {
    bench.add(`${p.name} ${backend}`, () => {
      engines[backend].simulateFleet({ nodes, pods, policy: p.name, seed: 42 });
    });
  }
}
// The same default policy through the public API (state.podScheduler, plan, state.commit) on the
// plain state the simulator builds and on the realistic one (bench/fleet-realistic.ts): the ratio is
// what topology on every node, GPUs partly used by other processes and models already placed cost.
const STATES = { plain: fleetClusterNodes(nodeSpecs), realistic: realisticNodes(nodeSpecs, 7) };
const outcomes: Record<string, Replay> = {};
for (const [kind, clusterNodes] of Object.entries(STATES)) {
  for (const backend of ['wasm', 'ts'] as const) {
    bench.add(`state ${kind} ${backend}`, () => {
      outcomes[`${kind} ${backend}`] = replay(engines[backend], clusterNodes, nodeSpecs, podSpecs, DEFAULT_POLICY, 42);
    });
  }
}
const load0 = loadavg();
await bench.run();
const median = (name: string) => {
  const r = bench.tasks.find((t) => t.name === name)?.result as { latency?: { mean: number; p50?: number } } | undefined;
  return r?.latency?.p50 ?? r?.latency?.mean ?? NaN;
};
const rows = POLICIES.map((p) => {
  const w = median(`${p.name} wasm`);
  const t = median(`${p.name} ts`);
  return { policy: p.name, wasmMs: w, tsMs: t, wasmPodsPerS: (attempts / w) * 1000, tsPodsPerS: (attempts / t) * 1000 };
});
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryBytes: totalmem(),
  node: process.version,
  platform: process.platform,
  arch: process.arch,
  loadavgStart: load0,
  loadavgEnd: loadavg(),
};
const pad = (s: string | number, n: number) => String(s).padStart(n);
process.stdout.write(`fleet simulation, openb default trace: ${nodes.length} nodes, ${attempts} pod attempts per run (seed 42), median of ${quick ? 2 : 8} runs\n`);
process.stdout.write(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load ${load0[0]!.toFixed(2)}\n\n`);
process.stdout.write(`${'policy'.padEnd(12)}${pad('wasm ms', 10)}${pad('wasm pods/s', 13)}${pad('ts ms', 10)}${pad('ts pods/s', 13)}${pad('ts/wasm', 9)}\n`);
for (const r of rows) {
  process.stdout.write(
    `${r.policy.padEnd(12)}${pad(r.wasmMs.toFixed(0), 10)}${pad(Math.round(r.wasmPodsPerS), 13)}${pad(r.tsMs.toFixed(0), 10)}${pad(Math.round(r.tsPodsPerS), 13)}${pad((r.tsMs / r.wasmMs).toFixed(2) + 'x', 9)}\n`,
  );
}
const count = (r: Replay) => ({ placed: r.placed, failed: r.failed });
const stateRows = (['wasm', 'ts'] as const).map((backend) => {
  const plain = median(`state plain ${backend}`);
  const realistic = median(`state realistic ${backend}`);
  return {
    backend,
    policy: DEFAULT_POLICY,
    plainMs: plain,
    realisticMs: realistic,
    realisticOverPlain: realistic / plain,
    // outcomes holds a replay per kind and backend (filled above).
    plain: count(outcomes[`plain ${backend}`]!),
    realistic: count(outcomes[`realistic ${backend}`]!),
  };
});
process.stdout.write(
  `\n${DEFAULT_POLICY} through state.podScheduler + state.commit, plain state against realistic (topology on every node, 32 GiB GPUs, a quarter partly used by other processes, models on every tenth node)\n`,
);
process.stdout.write(`${'backend'.padEnd(9)}${pad('plain ms', 10)}${pad('realistic ms', 14)}${pad('ratio', 8)}${pad('placed/failed plain', 21)}${pad('realistic', 12)}\n`);
for (const r of stateRows) {
  process.stdout.write(
    `${r.backend.padEnd(9)}${pad(r.plainMs.toFixed(0), 10)}${pad(r.realisticMs.toFixed(0), 14)}${pad(r.realisticOverPlain.toFixed(2) + 'x', 8)}${pad(`${r.plain.placed}/${r.plain.failed}`, 21)}${pad(`${r.realistic.placed}/${r.realistic.failed}`, 12)}\n`,
  );
}
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine, nodes: nodes.length, attempts, quick, rows, stateRows }, null, 2) + '\n');
process.stderr.write(`wrote ${out}\n`);
