// The fleet room's front: pods with shares, CPU and memory placed by a policy (the pod scheduler and
// its kernels, the policies), the pod and node types, and the openb traces.

export type { FleetKernels, FleetMemory } from './kernels.js';
export type { NodeGpus, NodeView } from './node-view.js';
export type { FleetPolicy, FleetPolicyName, NodeValues } from './policies/index.js';
export { DEFAULT_POLICY, POLICIES, policyByName } from './policies/index.js';
export { Prng } from './prng.js';
export { formatDuration, RunProgress } from './progress.js';
export { MAX_SCALE, scaleTrace } from './scale.js';
export type { PodNodeView, PodPlan, PodSchedulerKernels, PodSchedulerOptions, PodSearch } from './scheduler.js';
export { createPodScheduler, fgdNodeValues, PodScheduler, podSearch } from './scheduler.js';
export { parseSeeds } from './seeds.js';
export { parseNodeCsv, parsePodCsv } from './trace.js';
export type { FleetNode, FleetPod, NodeSpec, Pod } from './types.js';
export { validateNodes, validatePods } from './types.js';
export { typicalPods } from './typical.js';
