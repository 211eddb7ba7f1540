// ResourceSlice (resource.k8s.io/v1) and the core v1 NodeSelector it embeds.

import { fail } from '../../shared/validate.js';
import { Quantity } from './quantity.js';
import type { At } from './read-core.js';
import { bool, child, cloneJson, field, int, list, map, name, oneOf, quantity, quantityMap, record, str, strings } from './read-core.js';
import type { AttributeValue, CounterSet, Device, DeviceCapacity, DeviceCounterConsumption, DeviceTaint, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ResourceSlice } from './types.js';

const ZERO = Quantity.parse('0');
const SLICE_SPEC = ['driver', 'pool', 'nodeName', 'nodeSelector', 'allNodes', 'perDeviceNodeSelection', 'devices', 'sharedCounters'] as const;
const POOL = ['name', 'generation', 'resourceSliceCount'] as const;
const DEVICE = [
  'name',
  'attributes',
  'capacity',
  'consumesCounters',
  'nodeName',
  'nodeSelector',
  'allNodes',
  'taints',
  'bindsToNode',
  'bindingConditions',
  'bindingFailureConditions',
  'allowMultipleAllocations',
  'nodeAllocatableResourceMappings',
] as const;
const ATTRIBUTE = ['int', 'bool', 'string', 'version', 'ints', 'bools', 'strings', 'versions'] as const;
const CAPACITY = ['value', 'requestPolicy'] as const;
const POLICY = ['default', 'validValues', 'validRange'] as const;
const RANGE = ['min', 'max', 'step'] as const;
const COUNTER_SET = ['name', 'counters'] as const;
const CONSUMPTION = ['counterSet', 'counters'] as const;
const COUNTER = ['value'] as const;
const TAINT = ['key', 'value', 'effect', 'timeAdded'] as const;
const SELECTOR = ['nodeSelectorTerms'] as const;
const TERM = ['matchExpressions', 'matchFields'] as const;
const REQUIREMENT = ['key', 'operator', 'values'] as const;
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const;

/**
 * Maps (attributes, capacity) kept once per content: the same names with the same kept values, in
 * the same order, are one frozen map. A map is described entry by entry (`entry`) between `start`
 * and `finish`; its entries' numbers make a hash, and a map found under it is compared number by
 * number, so nothing is built for a map seen before.
 */
class MapTable<T> {
  private readonly buckets = new Map<number, Array<{ ids: number[]; map: Record<string, T> }>>();
  private readonly ids: number[] = [];
  private hash = 0;
  private shared = true;

  start(): void {
    this.ids.length = 0;
    this.hash = 0;
    this.shared = true;
  }

  /** One entry: its name's number and its value's (undefined: a value not kept, so the map is not shared). */
  entry(name: number, value: number | undefined): void {
    if (value === undefined) this.shared = false;
    if (!this.shared || value === undefined) return;
    this.ids.push(name, value);
    this.hash = Math.imul(Math.imul(this.hash ^ name, 0x01000193) ^ value, 0x01000193);
  }

  /** The map kept for the entries described, or `map` (frozen) as the first of its content. */
  finish(map: Record<string, T>): Record<string, T> {
    if (!this.shared) return map;
    const ids = this.ids;
    let bucket = this.buckets.get(this.hash);
    if (bucket === undefined) this.buckets.set(this.hash, (bucket = []));
    for (const kept of bucket) {
      if (kept.ids.length !== ids.length) continue;
      let i = 0;
      while (i < ids.length && kept.ids[i] === ids[i]) i++;
      if (i === ids.length) return kept.map;
    }
    bucket.push({ ids: ids.slice(), map: Object.freeze(map) });
    return map;
  }
}

/**
 * What the devices of one read call share: equal attribute values, attribute maps, capacity maps and
 * quantities (by the text they were read from) are one frozen value, and empty lists are one frozen
 * list, so a cluster of identical nodes holds one copy of what its devices have in common. Every
 * device is still read and checked in full; the table only decides which equal value it keeps. Made
 * per read call (readResourceSlices, readDraObjects …) and dropped with it.
 */
export class SliceShare {
  /** Kept values by number: attribute values and capacities. */
  private readonly kept: Array<AttributeValue | DeviceCapacity> = [];
  private readonly strings = new Map<string, number>();
  private readonly versions = new Map<string, number>();
  private readonly ints = new Map<bigint, number>();
  /** Booleans, and the attribute of no type (`{}`) as 'empty'. */
  private readonly others = new Map<boolean | 'empty', number>();
  private readonly names = new Map<string, number>();
  private readonly quantities = new Map<string, Quantity>();
  private readonly capacities = new Map<Quantity, number>();
  readonly attributeMaps = new MapTable<AttributeValue>();
  readonly capacityMaps = new MapTable<DeviceCapacity>();

  /** A quantity field (quantity() with `required`), the same Quantity for the same text. */
  quantity(at: At, value: unknown): Quantity {
    if (typeof value !== 'string' && typeof value !== 'number') return quantity(at, value, true);
    const text = String(value);
    let q = this.quantities.get(text);
    if (q === undefined) {
      q = quantity(at, value, true);
      this.quantities.set(text, q);
    }
    return q;
  }

  /** A name's number. */
  name(name: string): number {
    let id = this.names.get(name);
    if (id === undefined) this.names.set(name, (id = this.names.size));
    return id;
  }

  /** A scalar attribute value read by readAttribute, as the one frozen value of its type and text, and its number; undefined for a list (not kept). */
  value(read: AttributeValue): number | undefined {
    if ('string' in read) return this.keep(this.strings, read.string, read);
    if ('version' in read) return this.keep(this.versions, read.version, read);
    if ('int' in read) return this.keep(this.ints, read.int, read);
    if ('bool' in read) return this.keep(this.others, read.bool, read);
    return Object.keys(read).length === 0 ? this.keep(this.others, 'empty', read) : undefined;
  }

  private keep<K>(table: Map<K, number>, key: K, read: AttributeValue): number {
    let id = table.get(key);
    if (id === undefined) {
      id = this.kept.length;
      this.kept.push(Object.freeze(read));
      table.set(key, id);
    }
    return id;
  }

  /** A plain `{ value }` capacity, as the one frozen record of its Quantity, and its number. */
  capacity(q: Quantity): number {
    let id = this.capacities.get(q);
    if (id === undefined) {
      id = this.kept.length;
      this.kept.push(Object.freeze({ value: q }));
      this.capacities.set(q, id);
    }
    return id;
  }

  /** The value kept under a number. */
  keptValue<T extends AttributeValue | DeviceCapacity>(id: number): T {
    return this.kept[id] as T;
  }
}

/** The empty list devices share (frozen). */
const NONE: readonly never[] = Object.freeze([]);

/** Reads a ResourceSlice's spec (the caller read apiVersion, kind and metadata). */
export function readSliceSpec(at: At, sliceName: string, value: unknown, share = new SliceShare()): ResourceSlice {
  const spec = record(at, value, SLICE_SPEC);
  const poolAt = child(at, 'pool');
  const pool = record(poolAt, field(spec, 'pool') ?? fail('INVALID_ARGUMENT', poolAt, 'an object (required)', undefined), POOL);
  const slice: ResourceSlice = {
    name: sliceName,
    driver: name(child(at, 'driver'), field(spec, 'driver')),
    pool: {
      name: name(child(poolAt, 'name'), field(pool, 'name')),
      generation: int(child(poolAt, 'generation'), field(pool, 'generation'), false, 0) ?? 0,
      resourceSliceCount: int(child(poolAt, 'resourceSliceCount'), field(pool, 'resourceSliceCount'), false, 0) ?? 0,
    },
    devices: list(child(at, 'devices'), field(spec, 'devices'), (a, v) => readDevice(a, v, share)),
    sharedCounters: list(child(at, 'sharedCounters'), field(spec, 'sharedCounters'), (a, v) => readCounterSet(a, v, share)),
  };
  const nodeName = str(child(at, 'nodeName'), field(spec, 'nodeName'));
  if (nodeName !== undefined && nodeName !== '') slice.nodeName = nodeName;
  const selector = field(spec, 'nodeSelector');
  if (selector !== undefined && selector !== null) slice.nodeSelector = readNodeSelector(child(at, 'nodeSelector'), selector);
  const allNodes = bool(child(at, 'allNodes'), field(spec, 'allNodes'));
  if (allNodes !== undefined) slice.allNodes = allNodes;
  const perDevice = bool(child(at, 'perDeviceNodeSelection'), field(spec, 'perDeviceNodeSelection'));
  if (perDevice !== undefined) slice.perDeviceNodeSelection = perDevice;
  return slice;
}

/**
 * One device of a slice's spec.devices, read strictly (errors name the field path under `at`).
 * Devices read with one `share` share equal attribute maps, capacity maps and empty lists (frozen).
 */
export function readDevice(at: At, value: unknown, share = new SliceShare()): Device {
  const obj = record(at, value, DEVICE);
  let attributes: Record<string, AttributeValue> = Object.create(null) as Record<string, AttributeValue>;
  const attrs = field(obj, 'attributes');
  share.attributeMaps.start();
  if (attrs !== undefined && attrs !== null) {
    const attrsAt = child(at, 'attributes');
    const raw = map(attrsAt, attrs);
    for (const name of Object.keys(raw)) {
      const read = readAttribute(child(attrsAt, name), raw[name]);
      const id = share.value(read);
      attributes[name] = id === undefined ? read : share.keptValue(id);
      share.attributeMaps.entry(share.name(name), id);
    }
  }
  attributes = share.attributeMaps.finish(attributes);
  let capacity: Record<string, DeviceCapacity> = Object.create(null) as Record<string, DeviceCapacity>;
  const caps = field(obj, 'capacity');
  share.capacityMaps.start();
  if (caps !== undefined && caps !== null) {
    const capAt = child(at, 'capacity');
    const raw = map(capAt, caps);
    for (const name of Object.keys(raw)) {
      const read = readCapacity(child(capAt, name), raw[name], share);
      const id = read.requestPolicy === undefined ? share.capacity(read.value) : undefined;
      capacity[name] = id === undefined ? read : share.keptValue(id);
      share.capacityMaps.entry(share.name(name), id);
    }
  }
  capacity = share.capacityMaps.finish(capacity);
  // Optional fields are looked at only when present (most devices have few): no location is made for an absent one.
  const present = (key: string): unknown => {
    const v = field(obj, key);
    return v === null ? undefined : v;
  };
  const consumes = present('consumesCounters');
  const taints = present('taints');
  const conditions = present('bindingConditions');
  const failures = present('bindingFailureConditions');
  const device: Device = {
    name: name(child(at, 'name'), field(obj, 'name')),
    attributes,
    capacity,
    consumesCounters: consumes === undefined ? (NONE as never[]) : list(child(at, 'consumesCounters'), consumes, (a, v) => readConsumption(a, v, share)),
    taints: taints === undefined ? (NONE as never[]) : list(child(at, 'taints'), taints, readTaint),
    bindingConditions: conditions === undefined ? (NONE as never[]) : strings(child(at, 'bindingConditions'), conditions),
    bindingFailureConditions: failures === undefined ? (NONE as never[]) : strings(child(at, 'bindingFailureConditions'), failures),
  };
  const nodeNameValue = present('nodeName');
  if (nodeNameValue !== undefined) {
    const nodeName = str(child(at, 'nodeName'), nodeNameValue);
    if (nodeName !== undefined && nodeName !== '') device.nodeName = nodeName;
  }
  const selector = present('nodeSelector');
  if (selector !== undefined) device.nodeSelector = readNodeSelector(child(at, 'nodeSelector'), selector);
  for (const key of ['allNodes', 'bindsToNode', 'allowMultipleAllocations'] as const) {
    const value = present(key);
    if (value === undefined) continue;
    const flag = bool(child(at, key), value);
    if (flag !== undefined) device[key] = flag;
  }
  const mappings = field(obj, 'nodeAllocatableResourceMappings');
  if (mappings !== undefined && mappings !== null)
    device.nodeAllocatableResourceMappings = cloneJson(child(at, 'nodeAllocatableResourceMappings'), map(child(at, 'nodeAllocatableResourceMappings'), mappings)) as Record<string, unknown>;
  return device;
}

function readAttribute(at: At, value: unknown): AttributeValue {
  const obj = record(at, value, ATTRIBUTE);
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && obj[k] !== null);
  if (keys.length === 0) return {};
  if (keys.length > 1) fail('INVALID_ARGUMENT', at, 'exactly one of int, bool, string, version, ints, bools, strings, versions', obj);
  const key = keys[0]!; // exactly one, checked above
  const v = obj[key];
  const here = child(at, key);
  switch (key) {
    case 'int':
      return { int: readInt64(here, v) };
    case 'bool':
      return { bool: bool(here, v) as boolean };
    case 'string':
      return { string: str(here, v, true) };
    case 'version':
      return { version: str(here, v, true) };
    case 'ints':
      return { ints: list(here, v, readInt64) };
    case 'bools':
      return { bools: list(here, v, (a, b) => bool(a, b) ?? fail('INVALID_ARGUMENT', a, 'a boolean', b)) };
    case 'strings':
      return { strings: strings(here, v) };
    default:
      return { versions: strings(here, v) };
  }
}

/** An int64 attribute: a JSON integer (exact up to 2^53) or a decimal string. */
function readInt64(at: At, value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) {
    const n = BigInt(value);
    if (n >= -(1n << 63n) && n < 1n << 63n) return n;
  }
  return fail('INVALID_ARGUMENT', at, 'a 64-bit integer', value);
}

/** One capacity (its quantity the share's for its text). */
function readCapacity(at: At, value: unknown, share: SliceShare): DeviceCapacity {
  const obj = record(at, value, CAPACITY);
  const out: DeviceCapacity = { value: share.quantity(child(at, 'value'), field(obj, 'value')) };
  const policy = field(obj, 'requestPolicy');
  if (policy !== undefined && policy !== null) {
    const pAt = child(at, 'requestPolicy');
    const p = record(pAt, policy, POLICY);
    out.requestPolicy = {};
    const def = quantity(child(pAt, 'default'), field(p, 'default'));
    if (def !== undefined) out.requestPolicy.default = def;
    const values = field(p, 'validValues');
    if (values !== undefined && values !== null) out.requestPolicy.validValues = list(child(pAt, 'validValues'), values, (a, v) => quantity(a, v, true));
    const range = field(p, 'validRange');
    if (range !== undefined && range !== null) {
      const rAt = child(pAt, 'validRange');
      const r = record(rAt, range, RANGE);
      out.requestPolicy.validRange = { min: quantity(child(rAt, 'min'), field(r, 'min'), true) };
      const max = quantity(child(rAt, 'max'), field(r, 'max'));
      if (max !== undefined) out.requestPolicy.validRange.max = max;
      const step = quantity(child(rAt, 'step'), field(r, 'step'));
      if (step !== undefined) {
        if (step.compare(ZERO) <= 0) fail('INVALID_ARGUMENT', child(rAt, 'step'), 'a positive quantity', field(r, 'step'));
        out.requestPolicy.validRange.step = step;
      }
    }
  }
  return out;
}

/** A counter map: `{ name: { value: quantity } }`. */
function readCounters(at: At, value: unknown, share: SliceShare) {
  return quantityMap(at, value, (a, v) => share.quantity(child(a, 'value'), field(record(a, v, COUNTER), 'value')));
}

function readCounterSet(at: At, value: unknown, share: SliceShare): CounterSet {
  const obj = record(at, value, COUNTER_SET);
  return { name: name(child(at, 'name'), field(obj, 'name')), counters: readCounters(child(at, 'counters'), field(obj, 'counters'), share) };
}

function readConsumption(at: At, value: unknown, share: SliceShare): DeviceCounterConsumption {
  const obj = record(at, value, CONSUMPTION);
  return { counterSet: name(child(at, 'counterSet'), field(obj, 'counterSet')), counters: readCounters(child(at, 'counters'), field(obj, 'counters'), share) };
}

function readTaint(at: At, value: unknown): DeviceTaint {
  const obj = record(at, value, TAINT);
  const taint: DeviceTaint = { key: name(child(at, 'key'), field(obj, 'key')), effect: str(child(at, 'effect'), field(obj, 'effect'), true) };
  const v = str(child(at, 'value'), field(obj, 'value'));
  if (v !== undefined) taint.value = v;
  const added = str(child(at, 'timeAdded'), field(obj, 'timeAdded'));
  if (added !== undefined) taint.timeAdded = added;
  return taint;
}

/** Reads a core v1 NodeSelector. */
export function readNodeSelector(at: At, value: unknown): NodeSelector {
  const obj = record(at, value, SELECTOR);
  return { nodeSelectorTerms: list(child(at, 'nodeSelectorTerms'), field(obj, 'nodeSelectorTerms'), readTerm) };
}

function readTerm(at: At, value: unknown): NodeSelectorTerm {
  const obj = record(at, value, TERM);
  const term: NodeSelectorTerm = {};
  const expressions = list(child(at, 'matchExpressions'), field(obj, 'matchExpressions'), readRequirement);
  if (expressions.length > 0) term.matchExpressions = expressions;
  const fields = list(child(at, 'matchFields'), field(obj, 'matchFields'), readRequirement);
  if (fields.length > 0) term.matchFields = fields;
  return term;
}

function readRequirement(at: At, value: unknown): NodeSelectorRequirement {
  const obj = record(at, value, REQUIREMENT);
  const requirement: NodeSelectorRequirement = {
    key: str(child(at, 'key'), field(obj, 'key'), true),
    operator: oneOf(child(at, 'operator'), field(obj, 'operator'), OPERATORS),
  };
  const values = strings(child(at, 'values'), field(obj, 'values'));
  if (values.length > 0) requirement.values = values;
  return requirement;
}
