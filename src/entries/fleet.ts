// gpualloc/fleet: the fleet simulator (the FGD protocol over a trace) and the openb trace readers,
// on an engine from gpualloc/placement (no DRA in the bundle). Explicit named exports only.
import type { PlacementEngine } from '../engine.js';
import { simulateFleet as simulate, simulateFleetAsync as simulateAsync, type SimulateAsyncOptions, type SimulateRequest, type SimulationRun } from '../simulation/index.js';
import { readInput } from '../shared/validate.js';

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

export { POLICIES as FLEET_POLICIES, DEFAULT_POLICY as DEFAULT_FLEET_POLICY, parseNodeCsv, parsePodCsv, scaleTrace } from '../fleet/index.js';
export { SIMULATION_SLICE_MS } from '../simulation/index.js';
export type { SimulateRequest, SimulateAsyncOptions, SimulationRun, FleetEvent } from '../simulation/index.js';
export type { FleetNode, FleetPod, PodSearch, FleetPolicyName } from '../fleet/index.js';
