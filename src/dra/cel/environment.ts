/**
 * Upstream's DRA CEL environment (k8s.io/dynamic-resource-allocation/cel/compile.go) on
 * @marcbachmann/cel-js: the `device` variable of type `kubernetes.DRADevice` with the fields the
 * feature gates allow, the Kubernetes libraries, and the conversion of one device into the values
 * an expression sees.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { AttributeValue, Quantity } from '../objects/index.js';
import { QUANTITY_TYPE, registerIncludes, registerKubernetesLibraries } from './libraries.js';
import { registerRe2 } from './re2.js';
import { Semver } from './semver.js';

/** Feature gates that change the CEL environment (upstream `cel.Features`). */
export interface CelFeatures {
  /** DRAConsumableCapacity: adds `device.allowMultipleAllocations`. */
  consumableCapacity?: boolean;
  /** DRAListTypeAttributes: list-valued attributes become CEL lists, attributes are `dyn`, adds `includes`. */
  listTypeAttributes?: boolean;
}

/** One attribute value, as the API has it (`{}` is an empty or unknown attribute): the objects room's type. */
export type CelAttributeValue = AttributeValue;

/** One device as a selector sees it. */
export interface CelDevice {
  /** The driver name (`device.driver`). */
  driver: string;
  /** domain -> name -> value, already split by the caller (unqualified names use the driver as domain). */
  attributes: Record<string, Record<string, CelAttributeValue>>;
  /** domain -> name -> quantity. */
  capacity: Record<string, Record<string, Quantity>>;
  /** `device.allowMultipleAllocations`, exposed only with the consumableCapacity feature; absent is false. */
  allowMultipleAllocations?: boolean;
}

/** A device that the selector cannot see, with upstream's reason (`unsupported attribute value`, a bad version). */
export class DeviceValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceValueError';
  }
}

/** The runtime value of `device` (CEL type kubernetes.DRADevice). */
class DeviceValue {
  constructor(
    readonly driver: string,
    readonly attributes: Map<string, Map<string, unknown>>,
    readonly capacity: Map<string, Map<string, Quantity>>,
    readonly allowMultipleAllocations: boolean,
  ) {}
}

const EMPTY_DOMAIN: ReadonlyMap<string, unknown> = new Map<string, unknown>();

/**
 * The outer attribute and capacity maps: looking up a domain the device does not have gives an
 * empty map, as upstream's `mapper.Find` does, so `device.attributes["x"].y` fails with
 * "no such key: y" and `has(device.attributes["x"].y)` is false. Its `constructor` is Map so the
 * evaluator treats it as a CEL map.
 */
class DomainMap<V> extends Map<string, V> {
  override get(key: string): V | undefined {
    return super.has(key) ? super.get(key) : (EMPTY_DOMAIN as V);
  }
}
Object.defineProperty(DomainMap.prototype, 'constructor', { value: Map });

function parseVersion(text: string): Semver {
  try {
    return Semver.parse(text);
  } catch (error) {
    throw new DeviceValueError(`parse semantic version: ${(error as Error).message}`);
  }
}

/** compile.go `getAttributeValue`: the CEL value of one attribute, or the reason there is none. */
function attributeValue(value: CelAttributeValue, lists: boolean): unknown {
  const v = value as Partial<Record<'int' | 'bool' | 'string' | 'version' | 'ints' | 'bools' | 'strings' | 'versions', unknown>>;
  if (lists) {
    if (v.ints !== undefined) return v.ints;
    if (v.bools !== undefined) return v.bools;
    if (v.strings !== undefined) return v.strings;
    if (v.versions !== undefined) return (v.versions as string[]).map(parseVersion);
  }
  if (v.int !== undefined) return v.int;
  if (v.bool !== undefined) return v.bool;
  if (v.string !== undefined) return v.string;
  if (v.version !== undefined) return parseVersion(v.version as string);
  throw new DeviceValueError('unsupported attribute value');
}

/** The `device` value of one evaluation; throws DeviceValueError naming the attribute it cannot convert. */
export function deviceValue(device: CelDevice, features: CelFeatures): DeviceValue {
  const lists = features.listTypeAttributes === true;
  const attributes = new DomainMap<Map<string, unknown>>();
  for (const [domain, byName] of Object.entries(device.attributes)) {
    const inner = new Map<string, unknown>();
    for (const [name, value] of Object.entries(byName)) {
      try {
        inner.set(name, attributeValue(value, lists));
      } catch (error) {
        const qualified = domain === device.driver ? name : `${domain}/${name}`;
        throw new DeviceValueError(`attribute ${qualified}: ${(error as Error).message}`);
      }
    }
    attributes.set(domain, inner);
  }
  const capacity = new DomainMap<Map<string, Quantity>>();
  for (const [domain, byName] of Object.entries(device.capacity)) capacity.set(domain, new Map(Object.entries(byName)));
  return new DeviceValue(device.driver, attributes, capacity, device.allowMultipleAllocations === true);
}

/**
 * A device converted once into its CEL value for one feature set, to evaluate many selectors
 * against (see prepareDevice in index.ts). Holds the conversion error instead where there is one.
 */
export class PreparedDevice {
  /** @internal */
  constructor(
    /** The feature set it was converted for (featureKey). */
    readonly features: string,
    /** @internal */
    readonly value: DeviceValue | undefined,
    /** @internal */
    readonly error: DeviceValueError | undefined,
  ) {}
}

/** Converts a device for `features`, keeping a conversion error for the evaluation to report. */
export function prepare(device: CelDevice, features: CelFeatures): PreparedDevice {
  try {
    return new PreparedDevice(featureKey(features), deviceValue(device, features), undefined);
  } catch (error) {
    if (!(error instanceof DeviceValueError)) throw error;
    return new PreparedDevice(featureKey(features), undefined, error);
  }
}

/** The base environment: language options and every Kubernetes library (frozen once cloned). */
let baseEnvironment: Environment | undefined;

function base(): Environment {
  if (baseEnvironment === undefined) {
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
    registerKubernetesLibraries(env);
    registerRe2(env);
    baseEnvironment = env;
  }
  return baseEnvironment;
}

/**
 * The environment for one feature combination: the base plus `device` (with
 * allowMultipleAllocations when consumableCapacity is on) and `includes` (listTypeAttributes).
 * There are four combinations; each is built once, on first use, and never changes after.
 */
const byFeatures = new Map<string, Environment>();

/** The key of a feature combination (also used by SelectorCache). */
export function featureKey(features: CelFeatures): string {
  return `${features.consumableCapacity === true ? 'C' : '-'}${features.listTypeAttributes === true ? 'L' : '-'}`;
}

export function environmentFor(features: CelFeatures): Environment {
  const key = featureKey(features);
  const known = byFeatures.get(key);
  if (known !== undefined) return known;
  const env = base().clone();
  const fields: Record<string, string> = {
    driver: 'string',
    attributes: `map<string, map<string, dyn>>`,
    capacity: `map<string, map<string, ${QUANTITY_TYPE}>>`,
  };
  if (features.consumableCapacity === true) fields.allowMultipleAllocations = 'bool';
  env.registerType('kubernetes.DRADevice', { ctor: DeviceValue, fields });
  env.registerVariable('device', 'kubernetes.DRADevice');
  if (features.listTypeAttributes === true) registerIncludes(env);
  byFeatures.set(key, env);
  return env;
}
