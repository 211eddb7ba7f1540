// gpualloc/fleet: the fleet simulator (the FGD protocol over a trace) and the openb trace readers,
// on an engine from gpualloc/placement (no DRA in the bundle). Explicit named exports only.
import type { PlacementEngine } from '../engine.js';
import { readInput } from '../shared/validate.js';
import { type SimulateAsyncOptions, type SimulateRequest, type SimulationRun, simulateFleet as simulate, simulateFleetAsync as simulateAsync } from '../simulation/index.js';

/** engine.simulateFleet as a function of any engine (PlacementEngine or Engine): blocks until the run ends. */
export function simulateFleet(engine: PlacementEngine, request: SimulateRequest, progress?: (done: number, total: number) => void): SimulationRun {
  return simulate(engine.kernels, readInput('request', request, false) as SimulateRequest, progress);
}

/** engine.simulateFleetAsync as a function of any engine: slices of at most 20 ms, `{ signal, onProgress }`. */
export function simulateFleetAsync(engine: PlacementEngine, request: SimulateRequest, options: SimulateAsyncOptions = {}): Promise<SimulationRun> {
  try {
    return simulateAsync(engine.kernels, readInput('request', request, false) as SimulateRequest, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

export type { FleetNode, FleetPod, FleetPolicyName, PodSearch } from '../fleet/index.js';
export { DEFAULT_POLICY as DEFAULT_FLEET_POLICY, POLICIES as FLEET_POLICIES, parseNodeCsv, parsePodCsv, scaleTrace } from '../fleet/index.js';
export type { FleetEvent, SimulateAsyncOptions, SimulateRequest, SimulationRun } from '../simulation/index.js';
export { SIMULATION_SLICE_MS } from '../simulation/index.js';
