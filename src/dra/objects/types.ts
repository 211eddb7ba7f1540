// The Kubernetes objects the allocator reads (resource.k8s.io/v1 and core v1 Node), as typed values.
// Field names follow the API; quantities are parsed (Quantity), int attributes are bigint, and
// every optional field is `undefined` when unset (an empty list and an unset one are the same).
import type { Quantity } from './quantity.js';

/** One typed attribute value; `{}` is an attribute of empty or unknown type (kept, never matches). */
export type AttributeValue =
  | { int: bigint }
  | { bool: boolean }
  | { string: string }
  | { version: string }
  | { ints: bigint[] }
  | { bools: boolean[] }
  | { strings: string[] }
  | { versions: string[] }
  | Record<string, never>;

/** NodeSelectorRequirement (core v1). */
export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

/** NodeSelectorTerm (core v1): requirements ANDed; an empty term matches no node. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** NodeSelector (core v1): terms ORed. */
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** What the allocator needs of a Node: its name and labels. */
export interface Node {
  name: string;
  labels: Record<string, string>;
}

/** CapacityRequestPolicyRange: min, optional max and step. */
export interface CapacityRequestPolicyRange {
  min: Quantity;
  max?: Quantity;
  step?: Quantity;
}

/** CapacityRequestPolicy: how a consumable capacity rounds and bounds requests. */
export interface CapacityRequestPolicy {
  default?: Quantity;
  validValues?: Quantity[];
  validRange?: CapacityRequestPolicyRange;
}

/** DeviceCapacity: a capacity value with its optional request policy. */
export interface DeviceCapacity {
  value: Quantity;
  requestPolicy?: CapacityRequestPolicy;
}

/** DeviceCounterConsumption: counters taken from one counter set of the pool. */
export interface DeviceCounterConsumption {
  counterSet: string;
  counters: Record<string, Quantity>;
}

/** DeviceTaint. */
export interface DeviceTaint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/**
 * Device (resource.k8s.io/v1). Attribute and capacity keys are as published (qualified or bare).
 * Devices read in one call share equal attribute maps, plain capacity maps and empty lists; those
 * shared values are frozen (read-only).
 */
export interface Device {
  name: string;
  attributes: Record<string, AttributeValue>;
  capacity: Record<string, DeviceCapacity>;
  consumesCounters: DeviceCounterConsumption[];
  nodeName?: string;
  nodeSelector?: NodeSelector;
  allNodes?: boolean;
  taints: DeviceTaint[];
  bindsToNode?: boolean;
  bindingConditions: string[];
  bindingFailureConditions: string[];
  allowMultipleAllocations?: boolean;
  nodeAllocatableResourceMappings?: Record<string, unknown>;
}

/** CounterSet: named counters shared by the devices of a pool. */
export interface CounterSet {
  name: string;
  counters: Record<string, Quantity>;
}

/** ResourceSlice (resource.k8s.io/v1). */
export interface ResourceSlice {
  name: string;
  driver: string;
  pool: { name: string; generation: number; resourceSliceCount: number };
  nodeName?: string;
  nodeSelector?: NodeSelector;
  allNodes?: boolean;
  perDeviceNodeSelection?: boolean;
  devices: Device[];
  sharedCounters: CounterSet[];
}

/** OpaqueDeviceConfiguration: driver-specific parameters, kept as the embedded JSON. */
export interface OpaqueDeviceConfiguration {
  driver: string;
  parameters: unknown;
}

/** A device configuration (DeviceClassConfiguration / DeviceClaimConfiguration without requests). */
export interface DeviceConfiguration {
  opaque?: OpaqueDeviceConfiguration;
}

/** DeviceClass (resource.k8s.io/v1). */
export interface DeviceClass {
  name: string;
  selectors: DeviceSelector[];
  config: DeviceConfiguration[];
  extendedResourceName?: string;
}

/** DeviceSelector: `cel` unset means a selector type this reader does not know (upstream errors on it). */
export interface DeviceSelector {
  cel?: { expression: string };
}

/** DeviceToleration. */
export interface DeviceToleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** The fields shared by ExactDeviceRequest and DeviceSubRequest. */
export interface DeviceRequestBody {
  deviceClassName: string;
  selectors: DeviceSelector[];
  /** As written; `undefined` means ExactCount. Unknown modes are kept so the allocator can report them. */
  allocationMode?: string;
  /** As written; the allocator uses 1 for ExactCount when unset. */
  count?: number;
  tolerations: DeviceToleration[];
  capacity?: { requests: Record<string, Quantity> };
}

/** ExactDeviceRequest. */
export interface ExactDeviceRequest extends DeviceRequestBody {
  adminAccess?: boolean;
}

/** DeviceSubRequest (one alternative of firstAvailable). */
export interface DeviceSubRequest extends DeviceRequestBody {
  name: string;
}

/** DeviceRequest: exactly one of `exactly` and `firstAvailable` is set (upstream errors otherwise). */
export interface DeviceRequest {
  name: string;
  exactly?: ExactDeviceRequest;
  firstAvailable: DeviceSubRequest[];
}

/** DeviceConstraint: `matchAttribute` or `distinctAttribute`; neither means an unknown type. */
export interface DeviceConstraint {
  requests: string[];
  matchAttribute?: string;
  distinctAttribute?: string;
}

/** DeviceClaimConfiguration. */
export interface DeviceClaimConfiguration extends DeviceConfiguration {
  requests: string[];
}

/** ResourceClaim (resource.k8s.io/v1); its status is not read. */
export interface ResourceClaim {
  name: string;
  namespace?: string;
  uid?: string;
  requests: DeviceRequest[];
  constraints: DeviceConstraint[];
  config: DeviceClaimConfiguration[];
}

/** DeviceRequestAllocationResult as the API serializes it (quantities as canonical strings). */
export interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
  bindingConditions?: string[];
  bindingFailureConditions?: string[];
  shareID?: string;
  consumedCapacity?: Record<string, string>;
}

/** DeviceAllocationConfiguration as the API serializes it. */
export interface DeviceAllocationConfiguration {
  source: 'FromClass' | 'FromClaim';
  requests?: string[];
  opaque?: OpaqueDeviceConfiguration;
}

/** AllocationResult as the API serializes it (the `status.allocation` of a claim). */
export interface AllocationResult {
  devices: { results: DeviceRequestAllocationResult[]; config?: DeviceAllocationConfiguration[] };
  nodeSelector?: NodeSelector;
}
