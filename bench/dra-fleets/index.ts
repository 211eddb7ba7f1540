// Driver-faithful DRA fleets and claim streams for the placement-quality benchmark (the front).
export { A100_80GB, H100_80GB, DGX_H100_LAYOUT, DGX_A100_LAYOUT, HGX_H100_LAYOUT, NVIDIA_CLASSES, NVIDIA_DRIVER, ALL_BALANCED, wholeGpuNode, staticMigNode, dynamicMigNode, migDeviceName, placeLayout } from './nvidia.js';
export { EXAMPLE_CLASS, EXAMPLE_DRIVER, NIC_CLASS, DRANET_DRIVER, exampleNode, nicNode } from './others.js';
export { FLEETS, buildFleet } from './fleets.js';
export { rng, shapeClaim, shapeMix, fleetGpus, seededStream, openbShapes, openbStream } from './streams.js';

export type { GpuModel, MigProfile, MachineLayout, MigLayout } from './nvidia.js';
export type { Fleet, FleetName, GpuEntry, NodeKind } from './fleets.js';
export type { StreamClaim, ShapeWeight } from './streams.js';
