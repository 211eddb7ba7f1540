// The FGD paper's experiment (hkust-adsl/kubernetes-scheduler-simulator; see the README's fleet
// section): shuffle the pods by seed, tune the workload to `tune` × the GPU capacity with clones named
// `<pod>-tuned-<i>` after every original, give each node a per-seed random tie-break rank, then place
// the pods one at a time with no departures; a pod that fits nowhere is dropped but counts as arrived.
// The fleet is a ClusterState (GPUs of FleetNode.gpuMemory bytes, the node's CPU and memory): each pod
// is planned by an attached PodScheduler and applied by state.commit.

import { type ClusterKernels, type ClusterNode, ClusterState } from '../cluster/state.js';
import { fgdNodeValues, type NodeSpec, type NodeValues, type Pod, PodScheduler, type PodSearch, Prng, policyByName, typicalPods } from '../fleet/index.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';

/** One pod attempt, as `--events` writes it. */
export type FleetEvent = { pod: string; node: string | null; gpus: number[]; milli: number; cpu: number /** The pod's host memory, in MiB. */; memoryMiB: number; arrived: number; used: number };

/** One run's result. */
export type SimulationRun = {
  policy: string;
  seed: number;
  /** GPU capacity of the nodes, milli-GPU. */
  capacityMilli: number;
  /** Pod attempts (tuned clones included). */
  pods: number;
  /** Pods that fit nowhere. */
  failed: number;
  /** Arrived-load percent x (0..130) → GPU allocation ratio in %, binned as the FGD scripts do. */
  allocation: Record<string, number>;
  /** Arrived-load percent x → fragmentation amount in % of the GPU capacity (with `fragmentation`). */
  fragmentation?: Record<string, number>;
  /** Every attempt (with `events`). */
  events?: FleetEvent[];
};

/** Options of one run. */
export type SimulateOptions = {
  policy: string;
  seed: number;
  /** Target workload as a multiple of the GPU capacity (default 1.3). */
  tune?: number;
  /** Keep every attempt in `events`. */
  events?: boolean;
  /** Record the fragmentation curve. */
  fragmentation?: boolean;
  /** The pod index (default) or the scan of every node: the same run (see PodSchedulerOptions.search). */
  search?: PodSearch;
  /** Called after every pod with (done, total). */
  progress?: (done: number, total: number) => void;
  /**
   * fgd-node's node values of these nodes and pods, from simulationNodeValues (the same for every
   * policy and seed: a caller running several seeds of one trace solves the node-level LP once);
   * absent: the run computes them when its policy is fgd-node.
   */
  values?: NodeValues;
};

/** Plain code-unit order of names (Go's sort.Strings). */
function byName(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Round half to even (numpy.rint). */
export function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** numpy.round(x, 2). */
export function round2(x: number): number {
  return rint(x * 100) / 100;
}

/**
 * The FGD scripts' binning (experiments/analysis/merge_alloc_discrete.py): each row's arrived
 * percent rounded half to even, value rounded to 2 decimals; per x = 0..130 the mean of the rows at x,
 * else of the rows at x−1..x+1, else no value.
 */
export function binCurve(arrived: readonly number[], values: readonly number[]): Record<string, number> {
  const sum = new Float64Array(131 + 2);
  const count = new Float64Array(131 + 2);
  for (let i = 0; i < arrived.length; i++) {
    const x = arrived[i]!; // i < arrived.length; values holds one value per arrival
    if (x < 0 || x > 131) continue;
    sum[x]! += values[i]!;
    count[x]!++;
  }
  const out: Record<string, number> = {};
  for (let x = 0; x <= 130; x++) {
    if (count[x]! > 0)
      out[x] = round2(sum[x]! / count[x]!); // x ≤ 131 < sum.length
    else {
      let s = 0;
      let c = 0;
      for (let y = Math.max(0, x - 1); y <= x + 1; y++) {
        s += sum[y]!;
        c += count[y]!;
      }
      if (c > 0) out[x] = round2(s / c);
    }
  }
  return out;
}

/** The tuned, shuffled workload of one seed, and the node ranks (consumes `rng` in the protocol's order). */
export function prepareWorkload(nodes: readonly NodeSpec[], pods: readonly Pod[], tune: number, rng: Prng): { order: Pod[]; ranks: number[] } {
  const sorted = [...pods].sort(byName);
  rng.nextU32(); // the simulator's one rand.Int() after seeding
  const order = [...sorted];
  rng.shuffle(order);
  const capacity = nodes.reduce((a, n) => a + n.gpus * 1000, 0);
  const target = tune * capacity;
  let total = pods.reduce((a, p) => a + p.gpus * p.milli, 0);
  if (total < target && sorted.some((p) => p.milli > 0)) {
    // (A workload without GPU pods would never reach the target: it is left as it is.)
    for (let i = 0; ; i++) {
      if (order.length >= LIMITS.maxFleetPods) throw AllocationError.at('LIMIT_EXCEEDED', 'tune', `tuning would make more than ${LIMITS.maxFleetPods} pods`);
      const p = sorted[rng.int(sorted.length)]!; // int(n) < n
      if (total + p.milli > target) break; // the simulator's stop rule compares the per-GPU milli
      total += p.gpus * p.milli;
      order.push({ ...p, id: `${p.id}-tuned-${i}` });
    }
  } else {
    while (total > target && order.length > 0) {
      const p = order.splice(rng.int(order.length), 1)[0]!; // order is not empty
      total -= p.gpus * p.milli;
    }
  }
  const byNameIdx = nodes.map((_, i) => i).sort((a, b) => byName(nodes[a]!, nodes[b]!));
  const perm = rng.perm(nodes.length);
  const ranks = new Array<number>(nodes.length);
  byNameIdx.forEach((n, k) => (ranks[n] = perm[k]!)); // perm holds nodes.length entries
  return { order, ranks };
}

/** The cluster nodes of a fleet: GPUs 0..gpus−1 of gpuMemory bytes, cpu (milli-CPU), hostMemory (the MiB in bytes), gpuModel, topology. */
export function fleetClusterNodes(nodes: readonly NodeSpec[]): ClusterNode[] {
  return nodes.map((n) => {
    const node: ClusterNode = { id: n.id, gpus: Array.from({ length: n.gpus }, (_, index) => ({ index, memoryTotal: n.gpuMemory })), cpu: n.cpu, hostMemory: n.memory * 1048576 };
    if (n.gpus > 0) node.gpuModel = n.model;
    if (n.aligned !== undefined) node.topology = n.aligned.topology;
    return node;
  });
}

/**
 * fgd-node's node values for runs of `pods` on `nodes` (empty at the start): what each run of fgd-node
 * would compute (the node-level LP of the fleet and the whole workload, tuned clones aside), computed
 * once for a caller that passes them to several runs as SimulateOptions.values.
 */
export function simulationNodeValues(kernels: ClusterKernels, nodes: readonly NodeSpec[], pods: readonly Pod[]): NodeValues | undefined {
  return fgdNodeValues(ClusterState.create(kernels, { nodes: fleetClusterNodes(nodes) }).nodeView(), pods);
}

/** One run of the protocol, to the end. */
export function simulateRun(kernels: ClusterKernels, nodes: readonly NodeSpec[], pods: readonly Pod[], options: SimulateOptions): SimulationRun {
  const steps = simulateSteps(kernels, nodes, pods, options);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * One run of the protocol as steps: yields the number of pods attempted after each pod and returns
 * the run. The sync form drives it to the end; the async form yields to the event loop between pods
 * and stops it (`return()`, which closes the scheduler) when aborted.
 */
export function* simulateSteps(kernels: ClusterKernels, nodes: readonly NodeSpec[], pods: readonly Pod[], options: SimulateOptions): Generator<number, SimulationRun, void> {
  const policy = policyByName(options.policy);
  const tune = options.tune ?? 1.3;
  if (!(tune > 0 && tune <= 100)) throw AllocationError.at('INVALID_ARGUMENT', 'tune', `expected a number in (0, 100], got ${tune}`);
  const rng = new Prng(options.seed);
  const { order, ranks } = prepareWorkload(nodes, pods, tune, rng);
  const typical = typicalPods(pods);
  const state = ClusterState.create(kernels, { nodes: fleetClusterNodes(nodes) });
  const fleet = new PodScheduler(kernels, state.nodeView(), policy, typical, ranks, pods, options.seed, undefined, options.search ?? 'index', pods, options.values);
  const gpus = nodes.reduce((a, n) => a + n.gpus, 0);
  const arrivedBins = new Array<number>(order.length);
  const alloc = new Array<number>(order.length);
  const frag = options.fragmentation ? new Array<number>(order.length) : null;
  const events: FleetEvent[] | null = options.events ? [] : null;
  let arrived = 0;
  let used = 0;
  let failed = 0;
  // The pod's two draws, taken as PodScheduler.plan takes them: only a policy whose GPU choice is random draws.
  const random = policy.gpuChoice === 'random';
  try {
    for (let i = 0; i < order.length; i++) {
      const pod = order[i]!; // i < order.length
      arrived += pod.gpus * pod.milli;
      const u1 = random ? rng.float() : 0;
      const u2 = random ? rng.float() : 0;
      const at = fleet.planWithDraws(pod, u1, u2);
      if (at === null) failed++;
      else {
        state.commit(at); // slot IDs slot-<n>: pod names (a pod `a-tuned-0` beside a clone of `a`) need not be unique slot IDs
        used += pod.gpus * pod.milli;
      }
      arrivedBins[i] = gpus === 0 ? 0 : rint(arrived / gpus / 10);
      alloc[i] = gpus === 0 ? 0 : round2(used / gpus / 10);
      if (frag) frag[i] = fleet.fragmentation();
      if (events) events.push({ pod: pod.id, node: at === null ? null : at.node!, gpus: at === null ? [] : at.gpus, milli: pod.milli, cpu: pod.cpu, memoryMiB: pod.memory, arrived, used });
      options.progress?.(i + 1, order.length);
      yield i + 1;
    }
  } finally {
    fleet.close();
  }
  const run: SimulationRun = { policy: policy.name, seed: options.seed, capacityMilli: gpus * 1000, pods: order.length, failed, allocation: binCurve(arrivedBins, alloc) };
  if (frag)
    run.fragmentation = binCurve(
      arrivedBins,
      frag.map((v) => (gpus === 0 ? 0 : (100 * v) / 1000 / gpus)),
    );
  if (events) run.events = events;
  return run;
}
