// The engine's rollouts on close decisions (src/fleet/lookahead.ts; docs/fleet.md, "Lookahead on
// close decisions"): the protocol's runs of the openb default trace (src/simulation/simulate.ts's
// steps: the same shuffle, tuning, ranks, plan and commit) for FGD, a base policy, the same policy
// by the scan, and the base policy with a lookahead, on each backend and seed. Prints the GPU
// allocation at 100 % arrived, the CPU µs per pod attempt (user + system of the whole run) and its
// ratio to FGD's, the share of decisions looked ahead on, and the lookahead's cost: the lookahead
// run's CPU less the base policy's (both through the pod index: the rollouts and the index's best-n
// descent), per pod and per looked-ahead decision; writes bench/fleet-rollout-results.json with the machine.
//   npm run bench:fleet-rollout
//   node dist/bench/fleet-rollout.bench.js --seeds=42..46 --base=fgd-lp --look=0:16:16:all:4 --out=/tmp/r.json
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterState } from '../src/cluster/state.js';
import { openEngine } from '../src/engine.js';
import type { Lookahead, LookaheadScope } from '../src/fleet/lookahead.js';
import { type FleetPolicy, policyByName } from '../src/fleet/policies/index.js';
import { Prng } from '../src/fleet/prng.js';
import { PodScheduler, type PodSearch } from '../src/fleet/scheduler.js';
import { parseSeeds } from '../src/fleet/seeds.js';
import { parseNodeCsv, parsePodCsv } from '../src/fleet/trace.js';
import { type NodeSpec, type Pod, validateNodes, validatePods } from '../src/fleet/types.js';
import { typicalPods } from '../src/fleet/typical.js';
import { binCurve, fleetClusterNodes, prepareWorkload, rint, round2 } from '../src/simulation/simulate.js';
import { openbRoot } from './openb-root.js';
import { argValue, isMain, machineInfo, resultsPath, writeResults } from './store.bench.js';

/** One run: the allocation at 100 % arrived, CPU µs per pod attempt, and decisions looked ahead on (share of the attempts). */
export type RolloutRun = { at100: number; cpuUs: number; looked: number; attempts: number };

/** One run of the protocol (simulateSteps' loop) with a policy object, which may carry a lookahead. */
export function runPolicy(engine: Awaited<ReturnType<typeof openEngine>>, nodes: readonly NodeSpec[], pods: readonly Pod[], policy: FleetPolicy, seed: number, search: PodSearch): RolloutRun {
  const rng = new Prng(seed);
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, rng);
  const state = ClusterState.create(engine.kernels, { nodes: fleetClusterNodes(nodes) });
  const fleet = new PodScheduler(engine.kernels, state.nodeView(), policy, typicalPods(pods), ranks, pods, seed, undefined, search);
  const gpus = nodes.reduce((a, n) => a + n.gpus, 0);
  const bins: number[] = [];
  const alloc: number[] = [];
  let arrived = 0;
  let used = 0;
  const start = process.cpuUsage();
  for (const pod of order) {
    arrived += pod.gpus * pod.milli;
    const at = fleet.planWithDraws(pod, 0, 0);
    if (at !== null) {
      state.commit(at);
      used += pod.gpus * pod.milli;
    }
    bins.push(rint(arrived / gpus / 10));
    alloc.push(round2(used / gpus / 10));
  }
  const cpu = process.cpuUsage(start);
  const looked = fleet.lookaheadDecisions();
  fleet.close();
  return { at100: binCurve(bins, alloc)[100] ?? Number.NaN, cpuUs: (cpu.user + cpu.system) / order.length, looked: looked / order.length, attempts: order.length };
}

/** What planning the same pods on the same state costs with and without the lookahead: CPU µs a plan each, and the lookahead's µs a looked-ahead decision. */
export type PlanCost = { arrived: number; plans: number; baseUs: number; lookUs: number; looked: number; perDecisionUs: number };

/**
 * The lookahead's cost per decision, on one state: the protocol run by `base` until `arrived` of the
 * GPU capacity has arrived, then the next `count` pods of the order planned (never committed) `reps`
 * times by `base` and by `base` with `lookahead`, both schedulers on that state with warm scores, in
 * turns. The difference is the lookahead's work (the best-n pick and the rollouts) and nothing else.
 */
export function planCost(
  engine: Awaited<ReturnType<typeof openEngine>>,
  nodes: readonly NodeSpec[],
  pods: readonly Pod[],
  base: FleetPolicy,
  lookahead: Lookahead,
  seed: number,
  arrived: number,
  count = 400,
  reps = 5,
): PlanCost {
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  const state = ClusterState.create(engine.kernels, { nodes: fleetClusterNodes(nodes) });
  const plain = new PodScheduler(engine.kernels, state.nodeView(), base, typicalPods(pods), ranks, pods, seed);
  const capacity = nodes.reduce((a, n) => a + n.gpus * 1000, 0);
  let i = 0;
  for (let milli = 0; i < order.length && milli < arrived * capacity; i++) {
    const pod = order[i]!; // i < order.length
    milli += pod.gpus * pod.milli;
    const at = plain.planWithDraws(pod, 0, 0);
    if (at !== null) state.commit(at);
  }
  const look = new PodScheduler(engine.kernels, state.nodeView(), { ...base, lookahead }, typicalPods(pods), ranks, pods, seed);
  const next = order.slice(i, i + count);
  const time = (s: PodScheduler) => {
    const start = process.cpuUsage();
    for (const pod of next) s.planWithDraws(pod, 0, 0);
    const cpu = process.cpuUsage(start);
    return cpu.user + cpu.system;
  };
  time(plain);
  time(look);
  const before = look.lookaheadDecisions();
  let plainUs = 0;
  let lookUs = 0;
  for (let r = 0; r < reps; r++) {
    plainUs += time(plain);
    lookUs += time(look);
  }
  const looked = (look.lookaheadDecisions() - before) / reps;
  plain.close();
  look.close();
  const plans = next.length;
  return { arrived, plans, baseUs: plainUs / reps / plans, lookUs: lookUs / reps / plans, looked: looked / plans, perDecisionUs: looked > 0 ? (lookUs - plainUs) / reps / looked : 0 };
}

/** `δ:M:K:scope:n` as a Lookahead. */
export function parseLook(text: string): Lookahead {
  const [delta, m, k, scope, n] = text.split(':');
  return { delta: Number(delta), continuations: Number(m), depth: Number(k), scope: (scope ?? 'all') as LookaheadScope, candidates: Number(n ?? 2) };
}

if (isMain(import.meta.url)) {
  const root = openbRoot(import.meta.url);
  const seedsText = argValue('seeds') ?? '42..46';
  const seeds = parseSeeds('--seeds', seedsText, 10000);
  const base = policyByName(argValue('base') ?? 'fgd-lp');
  const looks = (argValue('look') ?? '0:16:16:all:4').split(',');
  const backends = (argValue('backends') ?? 'wasm,ts').split(',') as ('wasm' | 'ts')[];
  const out = argValue('out') ?? resultsPath('fleet-rollout-results.json');
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(root, 'data/openb/openb_pod_list_default.csv'), 'utf8')));
  const machine = machineInfo();
  const cases: { name: string; policy: FleetPolicy; search: PodSearch }[] = [
    { name: 'fgd', policy: policyByName('fgd'), search: 'index' },
    { name: base.name, policy: base, search: 'index' },
    { name: `${base.name} (scan)`, policy: base, search: 'scan' },
    ...looks.map((l) => ({ name: `${base.name}|roll:${l}`, policy: { ...base, lookahead: parseLook(l) }, search: 'index' as PodSearch })),
  ];
  process.stdout.write(`openb default trace, seeds ${seedsText}; machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadavg[0]!.toFixed(2)}\n`);
  process.stdout.write(
    'case, backend: allocation at 100 % (mean ± sd) [per seed], CPU µs per pod attempt (× fgd), decisions looked ahead on, lookahead µs a pod and a decision (less the base policy run)\n',
  );
  const results: Record<string, unknown>[] = [];
  for (const backend of backends) {
    const engine = await openEngine({ backend });
    // One untimed run first, so that no case pays for the JIT's warm-up.
    runPolicy(engine, nodes, pods, cases[0]!.policy, seeds[0]!, 'index');
    const perCase = new Map<string, RolloutRun[]>();
    for (const c of cases)
      perCase.set(
        c.name,
        seeds.map((seed) => runPolicy(engine, nodes, pods, c.policy, seed, c.search)),
      );
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const fgdUs = mean(perCase.get('fgd')!.map((r) => r.cpuUs)); // the first case
    const baseUs = mean(perCase.get(base.name)!.map((r) => r.cpuUs)); // the second case
    for (const c of cases) {
      const runs = perCase.get(c.name)!; // every case ran
      const v = runs.map((r) => r.at100);
      const m = mean(v);
      const sd = Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, v.length - 1));
      const us = mean(runs.map((r) => r.cpuUs));
      const looked = mean(runs.map((r) => r.looked));
      const rollUs = c.policy.lookahead === undefined ? 0 : us - baseUs;
      const perDecision = looked > 0 ? rollUs / looked : 0;
      results.push({ case: c.name, backend, mean: m, sd, perSeed: v, cpuUsPerPod: us, timesFgd: us / fgdUs, looked, rolloutUsPerPod: rollUs, rolloutUsPerDecision: perDecision });
      process.stdout.write(
        `${`${c.name}, ${backend}`.padEnd(34)} ${m.toFixed(2)} ± ${sd.toFixed(2)} [${v.join(' ')}]  ${us.toFixed(1)} µs (${(us / fgdUs).toFixed(2)}×)` +
          (c.policy.lookahead === undefined ? '\n' : `  ${(looked * 100).toFixed(1)} %  ${rollUs.toFixed(1)} µs a pod, ${perDecision.toFixed(1)} µs a decision\n`),
      );
    }
  }
  // The lookahead's cost per decision on fixed states (half and 95 % of the capacity arrived), the same pods planned with and without it.
  process.stdout.write('\nthe same 400 pods planned on one state (seed 42), 5 rounds: CPU µs a plan without and with the lookahead, decisions looked ahead on, lookahead µs a decision\n');
  const costs: Record<string, unknown>[] = [];
  for (const backend of backends) {
    const engine = await openEngine({ backend });
    for (const l of looks) {
      for (const arrived of [0.5, 0.95]) {
        const c = planCost(engine, nodes, pods, base, parseLook(l), seeds[0]!, arrived);
        costs.push({ backend, look: l, ...c });
        process.stdout.write(
          `${`${base.name}|roll:${l}, ${backend}, ${arrived * 100} % arrived`.padEnd(48)} ${c.baseUs.toFixed(1)} → ${c.lookUs.toFixed(1)} µs a plan, ${(c.looked * 100).toFixed(1)} % looked ahead, ${c.perDecisionUs.toFixed(1)} µs a decision\n`,
        );
      }
    }
  }
  writeResults(out, { machine, trace: 'default', seeds, results, costs });
}
