// The objects sub-room's front: Kubernetes DRA objects (resource.k8s.io/v1) as types, their strict
// readers (unknown fields are errors, each failure names the object, the field path and the value),
// resource quantities, dumps of a cluster's objects, and the room's bounded errors.

export { applyTaintRules, type ClusterDump, type ClusterDumpOptions, type DumpPlace, emptyDump, readClusterDump, type TaintRuleSelects } from './cluster-dump.js';
export { type DraDocuments, MAX_YAML_ALIASES, objectsOf, type PlacedObject, readDocuments } from './documents.js';
export { allocationPatch, claimsOfDump, type DraDump, type DumpClaim, type HeldDevices, splitDraDump } from './dump.js';
export { draError, fromLibrary } from './errors.js';
export { KUBERNETES_VERSION, pruneSpec, type UnknownField } from './known-fields.js';
export type { Amounts, ClaimTemplate, NodeInfo, NodeTaint, PodClaimRef, PodInfo, TaintRule, Toleration } from './pods.js';
export { amountOf, readClaimTemplate, readNodeInfo, readPod, readTaintRule } from './pods.js';
export { Quantity, QuantityError, type QuantityFormat } from './quantity.js';
export { type At, child, quantity, record } from './read-core.js';
export { POD_GROUP_API_VERSION, type PodGroupInfo, readPodGroup } from './read-pod-group.js';
export { readDevice } from './read-slice.js';
export { type DraKind, type DraObjects, RESOURCE_API_VERSION, readDeviceClasses, readDraObjects, readNodes, readResourceClaims, readResourceSlices } from './readers.js';
export type * from './types.js';
export { DRA_API_LIMITS, invalidMessage, validateClaimSpec, validateClassSpec, validateSliceSpec } from './validation.js';
export { RESOURCE_GROUP, resourceVersionOf, SERVED_VERSIONS, toServedVersion } from './versions.js';
