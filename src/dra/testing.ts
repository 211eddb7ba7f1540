// The dra room's internals that tests drive directly (not part of the public API, not re-exported
// by src/index.ts): building a node's model, the first-fit search, the scored search's objective,
// the fragmentation term's look-ahead, quantities, CEL selectors and RE2, the documents reader, version conversion and the unknown-field policy.

export { compareObjective, evaluateObjective, firstFit, LOOKAHEAD_STEPS, PLACEMENT_SCALE, selectionOf, TopologySetup, workloadShapes } from './allocator/index.js';
export type { CelAttributeValue, CelDevice, CelFeatures, CompiledSelector } from './cel/index.js';
export {
  CelCompileError,
  CelRuntimeError,
  COST_LIMIT_EXCEEDED,
  compileSelector,
  DEFAULT_COST_LIMIT,
  pointMatchesAtRe2,
  prepareDevice,
  RegexSyntaxError,
  regexFind,
  regexFindAll,
  regexMatches,
  registerRe2,
  SelectorCache,
} from './cel/index.js';
export { AllocationModel, addClaims, gatherPools, type RequestModel } from './model/index.js';
export { objectsOf, pruneSpec, Quantity, QuantityError, type QuantityFormat, readDocuments, toServedVersion } from './objects/index.js';
