// Driver-faithful DRA fleets and claim streams for the placement-quality benchmark (the front).

export type { Fleet, FleetName, GpuEntry, NodeKind } from './fleets.js';
export { buildFleet, FLEETS } from './fleets.js';
export type { GpuModel, MachineLayout, MigLayout, MigProfile } from './nvidia.js';
export {
  A100_80GB,
  ALL_BALANCED,
  DGX_A100_LAYOUT,
  DGX_H100_LAYOUT,
  dynamicMigNode,
  H100_80GB,
  HGX_H100_LAYOUT,
  migDeviceName,
  NVIDIA_CLASSES,
  NVIDIA_DRIVER,
  placeLayout,
  staticMigNode,
  wholeGpuNode,
} from './nvidia.js';
export { DRANET_DRIVER, EXAMPLE_CLASS, EXAMPLE_DRIVER, exampleNode, NIC_CLASS, nicNode } from './others.js';
export type { ShapeWeight, StreamClaim } from './streams.js';
export { fleetGpus, openbShapes, openbStream, rng, seededStream, shapeClaim, shapeMix } from './streams.js';
