// The allocator features (upstream `internal.Features`), named in lowerCamel as the shared test table
// names them, and the Kubernetes feature gates behind each.

/** One allocator feature. */
export type DraFeature = 'adminAccess' | 'consumableCapacity' | 'deviceBindingAndStatus' | 'deviceTaints' | 'listTypeAttributes' | 'partitionableDevices' | 'prioritizedList';

/** Which features are on; every feature not listed (or `false`) is off. */
export type DraFeatures = Partial<Record<DraFeature, boolean>>;

/** Every feature, with the Kubernetes feature gate(s) that turn it on. */
export const DRA_FEATURE_GATES: Readonly<Record<DraFeature, string>> = {
  adminAccess: 'DRAAdminAccess',
  consumableCapacity: 'DRAConsumableCapacity',
  deviceBindingAndStatus: 'DRADeviceBindingConditions + DRAResourceClaimDeviceStatus',
  deviceTaints: 'DRADeviceTaints',
  listTypeAttributes: 'DRAListTypeAttributes',
  partitionableDevices: 'DRAPartitionableDevices',
  prioritizedList: 'DRAPrioritizedList',
};

/**
 * The features on when a request names none: the gates Kubernetes v1.36 enables by default, as its
 * versioned feature-gate table (pkg/features/kube_features.go) has them: DRAAdminAccess GA,
 * DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints and DRAPartitionableDevices
 * beta and on, DRAResourceClaimDeviceStatus beta and on, DRAPrioritizedList GA;
 * DRAListTypeAttributes alpha and off.
 */
export const DEFAULT_DRA_FEATURES: Readonly<Required<DraFeatures>> = {
  adminAccess: true,
  consumableCapacity: true,
  deviceBindingAndStatus: true,
  deviceTaints: true,
  listTypeAttributes: false,
  partitionableDevices: true,
  prioritizedList: true,
};

/** A feature gate's maturity in Kubernetes v1.36 (for a feature with two gates, the less mature one). */
export type DraFeatureStage = 'alpha' | 'beta' | 'GA';

/** Each feature's stage in Kubernetes v1.36 (pkg/features/kube_features.go), the release DEFAULT_DRA_FEATURES follows. */
export const DRA_FEATURE_STAGES: Readonly<Record<DraFeature, DraFeatureStage>> = {
  adminAccess: 'GA',
  consumableCapacity: 'beta',
  deviceBindingAndStatus: 'beta',
  deviceTaints: 'beta',
  listTypeAttributes: 'alpha',
  partitionableDevices: 'beta',
  prioritizedList: 'GA',
};

/** The resolved feature set the allocator runs with. */
export type ResolvedFeatures = Readonly<Required<DraFeatures>>;
