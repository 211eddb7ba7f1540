// Interchangeable devices: two candidates no rule of this call can tell apart — same pool, slice
// placement, capacity, counters, taints, binding and node fields, allocated state, and the same
// values of every attribute that a selector, a constraint or the objective reads — form one class.
// A search takes from a class only its first free member, so symmetric allocations are tried once.
// An attribute counts as read when its name appears in a selector; a selector that could reach
// attributes by a computed name (a non-literal index, a whole-map comparison or a map macro) makes
// every attribute count.
import type { AllocationModel } from '../model/index.js';
import type { AttributeValue } from '../objects/index.js';
import { deviceFieldKeys, keyOf, type SymmetryKeys } from './device-keys.js';
import { TOPOLOGY_ATTRIBUTES } from './topology-setup.js';

/** The classes: each candidate's class, and each class's members in first-fit order. */
export interface SymmetryClasses {
  classOf: Int32Array;
  members: number[][];
}

const COMPUTED_ACCESS = [/\b(exists|exists_one|all|map|filter|size)\b/, /\[\s*[^"'\s]/, /attributes\s*\[\s*("[^"]*"|'[^']*')\s*\]\s*(?![.[])/];

/**
 * The names a CEL selector may read: its identifiers and string literals (an attribute read as
 * `device.attributes['gpu.nvidia.com'].uuid` names `gpu.nvidia.com` and `uuid`), or undefined when it
 * could reach attributes by a computed name (a non-literal index, a whole-map comparison, a map macro).
 */
export function namesRead(expression: string): string[] | undefined {
  if (COMPUTED_ACCESS.some((re) => re.test(expression))) return undefined;
  const names: string[] = [];
  for (const m of expression.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([A-Za-z_][A-Za-z0-9_]*)/g)) names.push(m[1] ?? m[2] ?? m[3]!); // one of the three groups matched
  return names;
}

/** Which attribute keys (as published: qualified or bare) can matter in this call, and a name for that set (`names`: the set-up's namesRead of each expression). */
function readAttributes(model: AllocationModel, known?: Map<string, string[] | undefined>): { read: (key: string) => boolean; key: string; names: ReadonlySet<string> | undefined } {
  const names = new Set<string>();
  for (const level of Object.values(TOPOLOGY_ATTRIBUTES)) for (const n of [...level.standard, ...level.local]) names.add(n);
  for (const claim of model.claims) {
    for (const c of claim.claim.constraints) {
      const a = c.matchAttribute ?? c.distinctAttribute;
      if (a !== undefined) names.add(a).add(a.slice(a.indexOf('/') + 1));
    }
    for (const group of claim.groups) {
      for (const request of group.alternatives) {
        for (const s of [...request.deviceClass.selectors, ...request.body.selectors]) {
          const expression = s.cel?.expression ?? '';
          let read = known?.get(expression);
          if (read === undefined && !known?.has(expression)) {
            read = namesRead(expression);
            known?.set(expression, read);
          }
          if (read === undefined) return { read: () => true, key: '*', names: undefined };
          for (const n of read) names.add(n);
        }
      }
    }
  }
  return { read: (key) => names.has(key) || names.has(key.slice(key.lastIndexOf('/') + 1)), key: [...names].sort().join('\u0000'), names };
}

/** Most sets of attribute names (and of calls) whose keys a SymmetryKeys keeps: a stream of a few dozen claim shapes keeps every one. */
const KEPT_READ_SETS = 32;

/** Each candidate's class by its fields and the attributes `read` accepts (-1 for shares: each is its own class). */
function staticClasses(model: AllocationModel, fieldKeys: readonly string[], read: (key: string) => boolean): Int32Array {
  const ids = new Map<string, number>();
  // Per attribute map, what is read of it as text: a map that devices read together share is written once.
  const shownOf = new Map<Readonly<Record<string, AttributeValue>>, string>();
  return Int32Array.from(model.candidates, (c) => {
    if (c.shared) return -1;
    const attributes = c.device.attributes;
    let shown = shownOf.get(attributes);
    if (shown === undefined) {
      shown = shownText(attributes, read);
      shownOf.set(attributes, shown);
    }
    const key = `${fieldKeys[c.index]}\u0000${shown}`;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  });
}

/** The attributes `read` accepts, in the map's order, as text: each key and value after its length, so equal text means equal attributes read. */
function shownText(attributes: Readonly<Record<string, AttributeValue>>, read: (key: string) => boolean): string {
  let text = '';
  for (const k of Object.keys(attributes)) {
    if (!read(k)) continue;
    const v = valueText(attributes[k] as AttributeValue);
    text += `${k.length}:${k}${v.length}:${v}`;
  }
  return text;
}

/** One attribute value as text: a scalar by its type's letter and value, anything else as JSON. */
function valueText(value: AttributeValue): string {
  const v = value as Record<string, unknown>;
  const fields = Object.keys(v);
  if (fields.length === 1) {
    const x = v[fields[0]!];
    if (fields[0] === 'string' && typeof x === 'string') return `s${x}`;
    if (fields[0] === 'version' && typeof x === 'string') return `v${x}`;
    if (fields[0] === 'int' && typeof x === 'bigint') return `i${x}`;
    if (fields[0] === 'bool' && typeof x === 'boolean') return `b${x}`;
  }
  return `j${keyOf(value)}`;
}

/** What readAttributes reads of the model's claims, as text: their constraints' attributes and their selectors, in order, each after its length (so that no two differ in text alone). */
function callKey(model: AllocationModel): string {
  let key = '';
  const add = (text: string): void => {
    key += `${text.length}:${text}`;
  };
  for (const claim of model.claims) {
    key += 'c';
    for (const c of claim.claim.constraints) add(c.matchAttribute ?? c.distinctAttribute ?? '');
    for (const group of claim.groups) {
      for (const request of group.alternatives) {
        key += 'r';
        for (const s of request.deviceClass.selectors) add(s.cel?.expression ?? '');
        key += 's';
        for (const s of request.body.selectors) add(s.cel?.expression ?? '');
      }
    }
  }
  return key;
}

/** The attribute keys the candidates publish that `read` accepts, as one text (the keys made once per set-up). */
function shownKeys(kept: SymmetryKeys, model: AllocationModel, read: (key: string) => boolean): string {
  if (kept.attributeKeys === undefined) {
    const all = new Set<string>();
    for (const c of model.candidates) for (const k of Object.keys(c.device.attributes)) all.add(k);
    kept.attributeKeys = [...all].sort();
  }
  let key = '';
  for (const k of kept.attributeKeys) if (read(k)) key += `${k}\u0000`;
  return key;
}

/** Each candidate's class without its allocated state, for the model's claims; `shared`: the same for every node the set-up serves (kept in it). */
function staticsFor(model: AllocationModel, kept: SymmetryKeys | undefined): { statics: Int32Array; shared: boolean } {
  const { read, key: readKey, names } = readAttributes(model, kept?.namesRead);
  // Keys over attributes that differ between the nodes the set-up serves are this call's alone.
  const varies = kept?.varies;
  const own = varies !== undefined && (names === undefined || [...names].some(varies));
  // Kept per set of the published attribute keys read (sets of names that read the same keys, as
  // selectors naming different profiles do, make the same classes). The candidates of every node the
  // set-up serves publish the same keys but identity attributes, which a call that is kept never reads.
  const shownKey = kept === undefined || own ? readKey : shownKeys(kept, model, read);
  let statics = own ? undefined : kept?.byRead.get(shownKey);
  if (statics === undefined) {
    statics = staticClasses(model, kept?.fieldKeys ?? deviceFieldKeys(model), read);
    if (kept !== undefined && !own) {
      if (kept.byRead.size >= KEPT_READ_SETS) kept.byRead.delete(kept.byRead.keys().next().value as string);
      kept.byRead.set(shownKey, statics);
    }
  }
  return { statics, shared: kept !== undefined && !own };
}

/**
 * Groups the model's candidates into classes of interchangeable devices (`kept`: the set-up's keys,
 * when the caller keeps one). `byState`: the classes already made on this node state, per static
 * classes kept in `kept` (an AllocatedBase's, which the caller keeps until the node's allocated
 * state changes): looked up there first, and added. `held`: per candidate, 1 where other claims hold
 * it (the same base's), when the caller knows.
 */
export function symmetryClasses(model: AllocationModel, kept?: SymmetryKeys, byState?: Map<Int32Array, SymmetryClasses>, held?: Uint8Array): SymmetryClasses {
  // Calls whose claims read the same (the same selectors and constraint attributes) get the same static classes: found by that text first.
  const byCall = kept === undefined ? undefined : (kept.byCall ??= new Map());
  const call = byCall === undefined ? undefined : callKey(model);
  let statics = call === undefined ? undefined : byCall?.get(call);
  // Only static classes the set-up keeps (shared by the calls that read the same) are looked up by state.
  let shared = statics !== undefined;
  if (statics === undefined) {
    const found = staticsFor(model, kept);
    statics = found.statics;
    shared = found.shared;
    // A call with keys of its own (it reads an attribute that varies between nodes) is not kept.
    if (byCall !== undefined && call !== undefined && found.shared) {
      if (byCall.size >= KEPT_READ_SETS) byCall.delete(byCall.keys().next().value as string);
      byCall.set(call, statics);
    }
  }
  const known = shared ? byState?.get(statics) : undefined;
  if (known !== undefined) return known;
  const classes = dynamicClasses(model, statics, held);
  if (shared && byState !== undefined) {
    if (byState.size >= KEPT_READ_SETS) byState.delete(byState.keys().next().value as Int32Array);
    byState.set(statics, classes);
  }
  return classes;
}

/** The static classes split by allocated state (`held`: per candidate, 1 where other claims hold it, when the caller knows). */
function dynamicClasses(model: AllocationModel, statics: Int32Array, held: Uint8Array | undefined): SymmetryClasses {
  let most = -1;
  for (const s of statics) if (s > most) most = s;
  // A static class splits: free members and those other claims hold (ids[2 × static + held], -1 until met).
  const ids = new Int32Array(2 * (most + 1)).fill(-1);
  const members: number[][] = [];
  const classOf = new Int32Array(model.candidates.length);
  for (const c of model.candidates) {
    const s = statics[c.index]!; // one entry per candidate
    let id = members.length;
    if (s >= 0) {
      const key = 2 * s + ((held === undefined ? model.allocatedElsewhere(c.id) : held[c.index] === 1) ? 1 : 0);
      if (ids[key]! >= 0) id = ids[key]!;
      else ids[key] = id;
    }
    if (id === members.length) members.push([]);
    members[id]!.push(c.index); // id ≤ members.length, and a new class was just pushed
    classOf[c.index] = id;
  }
  return { classOf, members };
}
