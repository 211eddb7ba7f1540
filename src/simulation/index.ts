// The fleet simulator's public entry: validate a simulation request and replay it, by the FGD
// paper's protocol, on a cluster state with a pod scheduler.
import type { ClusterKernels } from '../cluster/state.js';
import { DEFAULT_POLICY, type FleetNode, type FleetPod, type PodSearch, podSearch, policyByName, validateNodes, validatePods } from '../fleet/index.js';
import { AllocationError } from '../shared/errors.js';
import { own, rejectUnknownKeys, requireBoolean, requireInteger, requireObject } from '../shared/validate.js';
import { type SimulationRun, simulateRun } from './simulate.js';

/** A simulation request: one run of the FGD protocol. */
export type SimulateRequest = {
  nodes: FleetNode[];
  pods: FleetPod[];
  /** Policy name (default: ours, 'fgd-close'). */
  policy?: string;
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

const KEYS = ['nodes', 'pods', 'policy', 'seed', 'tune', 'events', 'fragmentation', 'search'];

/** Validates and runs one simulation. */
export function simulateFleet(kernels: ClusterKernels, request: SimulateRequest, progress?: (done: number, total: number) => void): SimulationRun {
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
  return simulateRun(kernels, nodes, pods, { policy, seed, tune, events, fragmentation, search, progress });
}

export type { FleetEvent, SimulateOptions, SimulationRun } from './simulate.js';
export { fleetClusterNodes, simulateRun } from './simulate.js';
