// Every served version of the resource.k8s.io objects, converted to v1 as the API server converts
// them (it stores one version and serves the others through the internal type). Followed:
// kubernetes pkg/apis/resource/v1beta1/conversion.go (Convert_v1beta1_DeviceRequest_To_resource_DeviceRequest:
// firstAvailable as is, and the request's own fields into `exactly` when any of them is set, both
// left for validation to refuse; Convert_v1beta1_Device_To_resource_Device: the fields of `basic`
// lifted onto the device; Convert_v1beta1_ResourceSliceSpec_To_resource_ResourceSliceSpec: an
// empty nodeName and a false allNodes are unset) and the generated conversions of v1beta2, whose
// objects have v1's fields. The result is a new object; the input is not changed.
import { own } from '../../shared/validate.js';

/** The API group of the DRA objects. */
export const RESOURCE_GROUP = 'resource.k8s.io';

/** The versions read per kind, newest first; the first is what the readers take. */
export const SERVED_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  DeviceClass: ['v1', 'v1beta2', 'v1beta1'],
  ResourceSlice: ['v1', 'v1beta2', 'v1beta1'],
  ResourceClaim: ['v1', 'v1beta2', 'v1beta1'],
  ResourceClaimTemplate: ['v1', 'v1beta2', 'v1beta1'],
  // DeviceTaintRule is v1alpha3 up to Kubernetes 1.35 and v1beta2 from 1.36.
  DeviceTaintRule: ['v1beta2', 'v1alpha3'],
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A shallow copy without `drop` and with `add` (keys with own data only; `__proto__` is an ordinary key). */
function reshape(obj: Json, drop: readonly string[], add: Json = {}): Json {
  const out: Json = {};
  const put = (key: string, value: unknown): void => void Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(obj)) if (!drop.includes(key)) put(key, obj[key]);
  for (const key of Object.keys(add)) if (add[key] !== undefined) put(key, add[key]);
  return out;
}

const MAIN_REQUEST_FIELDS = ['deviceClassName', 'selectors', 'allocationMode', 'count', 'adminAccess', 'tolerations', 'capacity'] as const;

/** hasAnyMainRequestFieldsSet: a field set to its Go zero value counts as unset. */
function isSet(key: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (key === 'deviceClassName' || key === 'allocationMode') return value !== '';
  if (key === 'count') return value !== 0;
  return true;
}

function v1beta1Request(request: unknown): unknown {
  if (!isObject(request)) return request;
  const main = MAIN_REQUEST_FIELDS.filter((key) => isSet(key, own(request, key)));
  const exactly: Json = {};
  for (const key of main) exactly[key] = own(request, key);
  return reshape(request, MAIN_REQUEST_FIELDS, main.length > 0 ? { exactly } : {});
}

function v1beta1ClaimSpec(spec: unknown): unknown {
  if (!isObject(spec)) return spec;
  const devices = own(spec, 'devices');
  if (!isObject(devices)) return spec;
  const requests = own(devices, 'requests');
  if (!Array.isArray(requests)) return spec;
  return reshape(spec, [], { devices: reshape(devices, [], { requests: requests.map(v1beta1Request) }) });
}

function v1beta1Device(device: unknown): unknown {
  if (!isObject(device)) return device;
  const basic = own(device, 'basic');
  if (!isObject(basic)) return reshape(device, ['basic']);
  return reshape(device, ['basic'], basic);
}

function unsetZeroes(spec: Json): Json {
  const drop: string[] = [];
  if (own(spec, 'nodeName') === '') drop.push('nodeName');
  if (own(spec, 'allNodes') === false) drop.push('allNodes');
  return drop.length === 0 ? spec : reshape(spec, drop);
}

function v1beta1SliceSpec(spec: unknown): unknown {
  if (!isObject(spec)) return spec;
  const devices = own(spec, 'devices');
  return unsetZeroes(Array.isArray(devices) ? reshape(spec, [], { devices: devices.map(v1beta1Device) }) : spec);
}

/**
 * The object as v1 (DeviceTaintRule: as v1beta2): `apiVersion` rewritten and the spec converted.
 * Returns `undefined` for a version of the group that is not served (the caller names it).
 */
export function toServedVersion(kind: string, object: Json): Json | undefined {
  const versions = SERVED_VERSIONS[kind];
  const apiVersion = own(object, 'apiVersion');
  if (versions === undefined || typeof apiVersion !== 'string' || !apiVersion.startsWith(`${RESOURCE_GROUP}/`)) return undefined;
  const version = apiVersion.slice(RESOURCE_GROUP.length + 1);
  if (!versions.includes(version)) return undefined;
  const target = `${RESOURCE_GROUP}/${versions[0]}`;
  if (version === versions[0]) return object;
  const spec = own(object, 'spec');
  if (version !== 'v1beta1') return reshape(object, [], { apiVersion: target, ...(kind === 'ResourceSlice' && isObject(spec) ? { spec: unsetZeroes(spec) } : {}) });
  switch (kind) {
    case 'ResourceSlice':
      return reshape(object, [], { apiVersion: target, spec: v1beta1SliceSpec(spec) });
    case 'ResourceClaim':
      return reshape(object, [], { apiVersion: target, spec: v1beta1ClaimSpec(spec) });
    case 'ResourceClaimTemplate': {
      const inner = isObject(spec) ? own(spec, 'spec') : undefined;
      return reshape(object, [], { apiVersion: target, ...(isObject(spec) && inner !== undefined ? { spec: reshape(spec, [], { spec: v1beta1ClaimSpec(inner) }) } : {}) });
    }
    default:
      return reshape(object, [], { apiVersion: target });
  }
}

/** `resource.k8s.io/v1beta1` and the like: the version part when the group is resource.k8s.io. */
export function resourceVersionOf(apiVersion: unknown): string | undefined {
  return typeof apiVersion === 'string' && apiVersion.startsWith(`${RESOURCE_GROUP}/`) ? apiVersion.slice(RESOURCE_GROUP.length + 1) : undefined;
}
