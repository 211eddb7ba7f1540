// ResourceClaim and DeviceClass specs (resource.k8s.io/v1).

import { fail } from '../../shared/validate.js';
import type { At } from './read-core.js';
import { bool, child, cloneJson, field, int, list, name, oneOf, quantity, quantityMap, record, str, strings } from './read-core.js';
import type {
  DeviceClaimConfiguration,
  DeviceClass,
  DeviceConfiguration,
  DeviceConstraint,
  DeviceRequest,
  DeviceRequestBody,
  DeviceSelector,
  DeviceSubRequest,
  DeviceToleration,
  ExactDeviceRequest,
  ResourceClaim,
} from './types.js';

const CLASS_SPEC = ['selectors', 'config', 'extendedResourceName'] as const;
const CLASS_CONFIG = ['opaque'] as const;
const CLAIM_SPEC = ['devices'] as const;
const DEVICE_CLAIM = ['requests', 'constraints', 'config'] as const;
const REQUEST = ['name', 'exactly', 'firstAvailable'] as const;
const BODY = ['deviceClassName', 'selectors', 'allocationMode', 'count', 'tolerations', 'capacity'] as const;
const EXACT = [...BODY, 'adminAccess'] as const;
const SUB = ['name', ...BODY] as const;
const SELECTOR = ['cel'] as const;
const CEL = ['expression'] as const;
const TOLERATION = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'] as const;
const CAPACITY = ['requests'] as const;
const CONSTRAINT = ['requests', 'matchAttribute', 'distinctAttribute'] as const;
const CLAIM_CONFIG = ['requests', 'opaque'] as const;
const OPAQUE = ['driver', 'parameters'] as const;

/** Reads a DeviceClass's spec. */
export function readClassSpec(at: At, className: string, value: unknown): DeviceClass {
  const spec = value === undefined || value === null ? {} : record(at, value, CLASS_SPEC);
  const cls: DeviceClass = {
    name: className,
    selectors: list(child(at, 'selectors'), field(spec, 'selectors'), readSelector),
    config: list(child(at, 'config'), field(spec, 'config'), (a, v) => readConfig(a, record(a, v, CLASS_CONFIG))),
  };
  const ext = str(child(at, 'extendedResourceName'), field(spec, 'extendedResourceName'));
  if (ext !== undefined) cls.extendedResourceName = ext;
  return cls;
}

/** Reads a ResourceClaim's spec. */
export function readClaimSpec(at: At, claim: Pick<ResourceClaim, 'name' | 'namespace' | 'uid'>, value: unknown): ResourceClaim {
  const spec = value === undefined || value === null ? {} : record(at, value, CLAIM_SPEC);
  const devAt = child(at, 'devices');
  const raw = field(spec, 'devices');
  const devices = raw === undefined || raw === null ? {} : record(devAt, raw, DEVICE_CLAIM);
  const requests = list(child(devAt, 'requests'), field(devices, 'requests'), readRequest);
  const constraints = list(child(devAt, 'constraints'), field(devices, 'constraints'), readConstraint);
  const config = list(child(devAt, 'config'), field(devices, 'config'), (a, v) => {
    const obj = record(a, v, CLAIM_CONFIG);
    return { requests: strings(child(a, 'requests'), field(obj, 'requests')), ...readConfig(a, obj) } satisfies DeviceClaimConfiguration;
  });
  // Written field by field, not as `{ ...claim, … }`: V8 makes a new hidden class for every object spread into a literal with fields after it, which costs microseconds per claim.
  const out = { name: claim.name } as ResourceClaim;
  if (claim.namespace !== undefined) out.namespace = claim.namespace;
  if (claim.uid !== undefined) out.uid = claim.uid;
  out.requests = requests;
  out.constraints = constraints;
  out.config = config;
  return out;
}

function readConfig(at: At, obj: Record<string, unknown>): DeviceConfiguration {
  const opaque = field(obj, 'opaque');
  if (opaque === undefined || opaque === null) return {};
  const oAt = child(at, 'opaque');
  const o = record(oAt, opaque, OPAQUE);
  const params = field(o, 'parameters');
  return { opaque: { driver: name(child(oAt, 'driver'), field(o, 'driver')), parameters: params === undefined ? undefined : cloneJson(child(oAt, 'parameters'), params) } };
}

function readSelector(at: At, value: unknown): DeviceSelector {
  const obj = record(at, value, SELECTOR);
  const cel = field(obj, 'cel');
  if (cel === undefined || cel === null) return {};
  const cAt = child(at, 'cel');
  return { cel: { expression: str(child(cAt, 'expression'), field(record(cAt, cel, CEL), 'expression'), true) } };
}

function readToleration(at: At, value: unknown): DeviceToleration {
  const obj = record(at, value, TOLERATION);
  const out: DeviceToleration = {};
  const key = str(child(at, 'key'), field(obj, 'key'));
  if (key !== undefined && key !== '') out.key = key;
  const op = field(obj, 'operator');
  if (op !== undefined && op !== null && op !== '') out.operator = oneOf(child(at, 'operator'), op, ['Exists', 'Equal'] as const);
  const v = str(child(at, 'value'), field(obj, 'value'));
  if (v !== undefined && v !== '') out.value = v;
  const effect = str(child(at, 'effect'), field(obj, 'effect'));
  if (effect !== undefined && effect !== '') out.effect = effect;
  const seconds = int(child(at, 'tolerationSeconds'), field(obj, 'tolerationSeconds'));
  if (seconds !== undefined) out.tolerationSeconds = seconds;
  return out;
}

function readBody(at: At, obj: Record<string, unknown>): DeviceRequestBody {
  const body: DeviceRequestBody = {
    deviceClassName: str(child(at, 'deviceClassName'), field(obj, 'deviceClassName')) ?? '',
    selectors: list(child(at, 'selectors'), field(obj, 'selectors'), readSelector),
    tolerations: list(child(at, 'tolerations'), field(obj, 'tolerations'), readToleration),
  };
  // Unknown modes are kept: upstream reports them ("unsupported count mode") when it allocates.
  const mode = str(child(at, 'allocationMode'), field(obj, 'allocationMode'));
  if (mode !== undefined && mode !== '') body.allocationMode = mode;
  const count = int(child(at, 'count'), field(obj, 'count'), false, 0);
  if (count !== undefined) body.count = count;
  const capacity = field(obj, 'capacity');
  if (capacity !== undefined && capacity !== null) {
    const cAt = child(at, 'capacity');
    const c = record(cAt, capacity, CAPACITY);
    body.capacity = { requests: quantityMap(child(cAt, 'requests'), field(c, 'requests'), (a, v) => quantity(a, v, true)) };
  }
  return body;
}

function readRequest(at: At, value: unknown): DeviceRequest {
  const obj = record(at, value, REQUEST);
  const request: DeviceRequest = {
    name: name(child(at, 'name'), field(obj, 'name')),
    firstAvailable: list(child(at, 'firstAvailable'), field(obj, 'firstAvailable'), (a, v): DeviceSubRequest => {
      const sub = record(a, v, SUB);
      return { name: name(child(a, 'name'), field(sub, 'name')), ...readBody(a, sub) };
    }),
  };
  const exactly = field(obj, 'exactly');
  if (exactly !== undefined && exactly !== null) {
    const eAt = child(at, 'exactly');
    const e = record(eAt, exactly, EXACT);
    const exact: ExactDeviceRequest = readBody(eAt, e);
    const admin = bool(child(eAt, 'adminAccess'), field(e, 'adminAccess'));
    if (admin !== undefined) exact.adminAccess = admin;
    request.exactly = exact;
  }
  if (request.exactly !== undefined && request.firstAvailable.length > 0) fail('INVALID_ARGUMENT', at, 'exactly one of exactly and firstAvailable', 'both');
  return request;
}

function readConstraint(at: At, value: unknown): DeviceConstraint {
  const obj = record(at, value, CONSTRAINT);
  const constraint: DeviceConstraint = { requests: strings(child(at, 'requests'), field(obj, 'requests')) };
  const match = str(child(at, 'matchAttribute'), field(obj, 'matchAttribute'));
  if (match !== undefined && match !== '') constraint.matchAttribute = match;
  const distinct = str(child(at, 'distinctAttribute'), field(obj, 'distinctAttribute'));
  if (distinct !== undefined && distinct !== '') constraint.distinctAttribute = distinct;
  if (constraint.matchAttribute !== undefined && constraint.distinctAttribute !== undefined) fail('INVALID_ARGUMENT', at, 'at most one of matchAttribute and distinctAttribute', 'both');
  return constraint;
}
