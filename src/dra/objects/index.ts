// The objects sub-room's front: Kubernetes DRA objects (resource.k8s.io/v1) as types, their strict
// readers (unknown fields are errors, each failure names the object, the field path and the value),
// resource quantities, dumps of a cluster's objects, and the room's bounded errors.
export { draError, fromLibrary } from './errors.js';
export { Quantity, QuantityError, type QuantityFormat } from './quantity.js';
export { child, quantity, record, type At } from './read-core.js';
export { readDeviceClasses, readResourceSlices, readResourceClaims, readNodes, readDraObjects, RESOURCE_API_VERSION, type DraObjects, type DraKind } from './readers.js';
export { splitDraDump, claimsOfDump, allocationPatch, type DraDump, type DumpClaim, type HeldDevices } from './dump.js';
export { readDocuments, objectsOf, MAX_YAML_ALIASES, type DraDocuments, type PlacedObject } from './documents.js';
export { toServedVersion, resourceVersionOf, SERVED_VERSIONS, RESOURCE_GROUP } from './versions.js';
export { pruneSpec, KUBERNETES_VERSION, type UnknownField } from './known-fields.js';
export { readPod, readNodeInfo, readClaimTemplate, readTaintRule, amountOf } from './pods.js';
export type { Amounts, ClaimTemplate, NodeInfo, NodeTaint, PodClaimRef, PodInfo, TaintRule, Toleration } from './pods.js';
export { validateSliceSpec, validateClaimSpec, validateClassSpec, invalidMessage, DRA_API_LIMITS } from './validation.js';
export { readClusterDump, applyTaintRules, type ClusterDump, type ClusterDumpOptions, type DumpPlace } from './cluster-dump.js';
export type * from './types.js';
