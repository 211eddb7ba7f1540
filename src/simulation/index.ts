// The fleet simulator's public entry: validate a simulation request and replay it, by the FGD
// paper's protocol, on a cluster state with a pod scheduler; blocking (simulateFleet) or in slices
// that leave the event loop its turns and stop on an AbortSignal (simulateFleetAsync).
import type { ClusterKernels } from '../cluster/state.js';
import { DEFAULT_POLICY, type FleetNode, type FleetPod, type FleetPolicyName, type NodeSpec, type Pod, type PodSearch, podSearch, policyByName, validateNodes, validatePods } from '../fleet/index.js';
import { AllocationError } from '../shared/errors.js';
import { keysOf, own, rejectUnknownKeys, requireBoolean, requireInteger, requireObject } from '../shared/validate.js';
import { type SimulateOptions, type SimulationRun, simulateRun, simulateSteps } from './simulate.js';

/** A simulation request: one run of the FGD protocol. */
export type SimulateRequest = {
  nodes: readonly FleetNode[];
  pods: readonly FleetPod[];
  /** Policy name (default: ours, 'fgd-node'). */
  policy?: FleetPolicyName;
  /** Seed of the shuffle, the tuning draws and the node ranks (default 42). */
  seed?: number;
  /** Target workload as a multiple of the GPU capacity (default 1.3). */
  tune?: number;
  /** Return every pod attempt. */
  events?: boolean;
  /** Return the fragmentation curve. */
  fragmentation?: boolean;
  /** 'index' (default): pods placed through the pod index where the policy allows; 'scan': every node scored for every pod. The same run either way. */
  search?: PodSearch;
};

const KEYS = keysOf<SimulateRequest>()(['nodes', 'pods', 'policy', 'seed', 'tune', 'events', 'fragmentation', 'search']);

/** Options of simulateFleetAsync. */
export type SimulateAsyncOptions = {
  /** Stops the run: the promise rejects with the signal's reason (an AbortError DOMException by default). */
  signal?: AbortSignal;
  /** Called after every pod attempt with the attempts done and their total (tuned clones included). */
  onProgress?: (done: number, total: number) => void;
};

const ASYNC_KEYS = keysOf<SimulateAsyncOptions>()(['signal', 'onProgress']);

/** The longest the async simulation runs before giving the event loop a turn, in milliseconds. */
export const SIMULATION_SLICE_MS = 20;

/** Validates and runs one simulation (blocking until it ends; simulateFleetAsync leaves the event loop turns). */
export function simulateFleet(kernels: ClusterKernels, request: SimulateRequest, progress?: (done: number, total: number) => void): SimulationRun {
  if (progress !== undefined && typeof progress !== 'function') throw AllocationError.at('INVALID_ARGUMENT', 'progress', `expected a function, got ${typeof progress}`);
  const { nodes, pods, options } = readRequest(request);
  return simulateRun(kernels, nodes, pods, { ...options, ...(progress === undefined ? {} : { progress }) });
}

/**
 * Validates and runs one simulation without holding the event loop: it runs in slices of at most
 * SIMULATION_SLICE_MS and yields between them (timers, I/O and other requests get their turns), and
 * stops at the next pod once `signal` aborts, rejecting with the signal's reason. The same run as
 * simulateFleet's.
 */
export async function simulateFleetAsync(kernels: ClusterKernels, request: SimulateRequest, options: SimulateAsyncOptions = {}): Promise<SimulationRun> {
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, ASYNC_KEYS);
  const signal = own(o, 'signal');
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof (signal as AbortSignal).throwIfAborted === 'function'))
    throw AllocationError.at('INVALID_ARGUMENT', 'options.signal', 'expected an AbortSignal');
  const onProgress = own(o, 'onProgress');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw AllocationError.at('INVALID_ARGUMENT', 'options.onProgress', `expected a function, got ${typeof onProgress}`);
  const abort = signal as AbortSignal | undefined;
  abort?.throwIfAborted();
  const { nodes, pods, options: run } = readRequest(request);
  const steps = simulateSteps(kernels, nodes, pods, { ...run, ...(onProgress === undefined ? {} : { progress: onProgress as (done: number, total: number) => void }) });
  try {
    for (;;) {
      const sliceEnd = performance.now() + SIMULATION_SLICE_MS;
      for (;;) {
        const next = steps.next();
        if (next.done === true) return next.value;
        if (performance.now() >= sliceEnd) break;
      }
      await turn();
      abort?.throwIfAborted();
    }
  } finally {
    steps.return(undefined as never); // closes the run's scheduler when it stopped early
  }
}

/** Gives the event loop a turn: timers, I/O and other tasks run before this resolves. */
function turn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

function readRequest(request: SimulateRequest): { nodes: NodeSpec[]; pods: Pod[]; options: SimulateOptions } {
  const r = requireObject('request', request);
  rejectUnknownKeys('request', r, KEYS);
  const nodes = validateNodes('request.nodes', own(r, 'nodes'));
  const pods = validatePods('request.pods', own(r, 'pods'));
  const policy = policyByName(own(r, 'policy') ?? DEFAULT_POLICY, 'request.policy').name;
  const seed = own(r, 'seed') === undefined ? 42 : requireInteger('request.seed', own(r, 'seed'), 0, 0xffffffff);
  const tune = own(r, 'tune') ?? 1.3;
  if (typeof tune !== 'number' || !(tune > 0 && tune <= 100)) throw AllocationError.at('INVALID_ARGUMENT', 'request.tune', `expected a number in (0, 100], got ${String(tune)}`);
  const events = own(r, 'events') === undefined ? false : requireBoolean('request.events', own(r, 'events'));
  const fragmentation = own(r, 'fragmentation') === undefined ? false : requireBoolean('request.fragmentation', own(r, 'fragmentation'));
  const search = podSearch('request.search', own(r, 'search'));
  return { nodes, pods, options: { policy, seed, tune, events, fragmentation, search } };
}

export type { FleetEvent, SimulateOptions, SimulationRun } from './simulate.js';
export { fleetClusterNodes, prepareWorkload, simulateRun, simulateSteps, simulationNodeValues } from './simulate.js';
