// The dra room's internals that tests drive directly (not part of the public API, not re-exported
// by src/index.ts): building a node's model, the first-fit search, the scored search's objective,
// quantities, CEL selectors and RE2, the documents reader, version conversion and the unknown-field policy.
export { AllocationModel, addClaims, gatherPools, type RequestModel } from './model/index.js';
export { firstFit, evaluateObjective, compareObjective } from './allocator/index.js';
export { Quantity, QuantityError, readDocuments, toServedVersion, type QuantityFormat } from './objects/index.js';
export { compileSelector, prepareDevice, SelectorCache, CelCompileError, CelRuntimeError } from './cel/index.js';
export type { CelAttributeValue, CelDevice, CelFeatures, CompiledSelector } from './cel/index.js';
export { objectsOf, pruneSpec } from './objects/index.js';
export { pointMatchesAtRe2, regexFind, regexFindAll, regexMatches, registerRe2, RegexSyntaxError } from './cel/index.js';
