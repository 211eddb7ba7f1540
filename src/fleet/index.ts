// The fleet room's front: pods with shares, CPU and memory placed by a policy (the pod scheduler and
// its kernels, the policies), the pod and node types, and the openb traces.
export { createPodScheduler, podSearch, PodScheduler } from './scheduler.js';
export type { PodNodeView, PodPlan, PodSchedulerKernels, PodSchedulerOptions, PodSearch } from './scheduler.js';
export type { NodeGpus, NodeView } from './node-view.js';
export type { FleetKernels, FleetMemory } from './kernels.js';
export { POLICIES, DEFAULT_POLICY, policyByName } from './policies/index.js';
export type { FleetPolicy, FleetPolicyName } from './policies/index.js';
export { validateNodes, validatePods } from './types.js';
export type { FleetNode, FleetPod, NodeSpec, Pod } from './types.js';
export { typicalPods } from './typical.js';
export { Prng } from './prng.js';
export { parseNodeCsv, parsePodCsv } from './trace.js';
export { scaleTrace, MAX_SCALE } from './scale.js';
export { parseSeeds } from './seeds.js';
export { formatDuration, RunProgress } from './progress.js';
