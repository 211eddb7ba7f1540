// The objects sub-room's front: Kubernetes DRA objects (resource.k8s.io/v1) as types, their strict
// readers (unknown fields are errors, each failure names the object, the field path and the value),
// resource quantities, dumps of a cluster's objects, and the room's bounded errors.
export { draError, fromLibrary } from './errors.js';
export { Quantity, QuantityError, type QuantityFormat } from './quantity.js';
export { child, quantity, record, type At } from './read-core.js';
export { readDeviceClasses, readResourceSlices, readResourceClaims, readNodes, readDraObjects, RESOURCE_API_VERSION, type DraObjects, type DraKind } from './readers.js';
export { splitDraDump, claimsOfDump, allocationPatch, type DraDump, type DumpClaim, type HeldDevices } from './dump.js';
export type * from './types.js';
