// The dra room's internals that tests drive directly (not part of the public API, not re-exported
// by src/index.ts): building a node's model, the first-fit search, the scored search's objective,
// quantities and CEL selectors.
export { AllocationModel, addClaims, gatherPools, type RequestModel } from './model/index.js';
export { firstFit, evaluateObjective, compareObjective } from './allocator/index.js';
export { Quantity, QuantityError, type QuantityFormat } from './objects/index.js';
export { compileSelector, prepareDevice, SelectorCache, CelCompileError, CelRuntimeError } from './cel/index.js';
export type { CelAttributeValue, CelDevice, CelFeatures, CompiledSelector } from './cel/index.js';
