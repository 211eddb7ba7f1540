/**
 * The Kubernetes CEL extension functions that upstream's DRA environment declares, registered on
 * a @marcbachmann/cel-js Environment: the quantity and semver libraries (k8s.io/apiserver
 * pkg/cel/library quantity.go, semverlib.go), the Kubernetes lists library (lists.go), the parts
 * of cel-go's ext.Strings (version 2) and ext.Sets the evaluator lacks, the regex library
 * (regex.go) and DRA's own `includes`. Each handler is a plain function of values; the library
 * parses, type-checks and evaluates the expressions.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Quantity } from '../objects/index.js';
import { regexFind, regexFindAll } from './re2.js';
import { Semver } from './semver.js';

/** CEL type names, as upstream declares them. */
export const QUANTITY_TYPE = 'kubernetes.Quantity';
export const SEMVER_TYPE = 'kubernetes.Semver';

/** The value of the `sets` and `strings` namespaces (CEL sees `sets.contains(...)` as a call on it). */
class SetsNamespace {}
class StringsNamespace {}

/** CEL equality of two runtime values (heterogeneous numeric equality as cel-go applies to dyn values). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return typeof a === 'number' || typeof b === 'number' ? Number(a) === Number(b) : a === b;
  }
  if (a instanceof Quantity && b instanceof Quantity) return a.compare(b) === 0;
  if (a instanceof Semver && b instanceof Semver) return a.compare(b) === 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && 'valueOf' in a && 'valueOf' in b) {
    const [va, vb] = [a.valueOf(), b.valueOf()];
    if (va !== a && vb !== b) return celEquals(va, vb); // uint, duration, timestamp wrappers
  }
  return false;
}

/** Code point order of two strings (CEL orders strings as Go does, by UTF-8 bytes). */
function compareStrings(a: string, b: string): number {
  const [ia, ib] = [a[Symbol.iterator](), b[Symbol.iterator]()];
  for (;;) {
    const [x, y] = [ia.next(), ib.next()];
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** The primitive inside the evaluator's uint wrapper (UnsignedInt.valueOf). */
const unwrap = (v: unknown): unknown => (v !== null && typeof v === 'object' ? (v as { valueOf(): unknown }).valueOf() : v);

/** The order of two values of one comparable CEL type (int, uint, double, bool, string, bytes). */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  const [x, y] = [unwrap(a), unwrap(b)];
  if (typeof x === 'bigint' && typeof y === 'bigint') return x === y ? 0 : x < y ? -1 : 1;
  const [nx, ny] = [Number(x), Number(y)];
  return nx === ny ? 0 : nx < ny ? -1 : 1;
}

function extreme(list: unknown[], name: 'min' | 'max'): unknown {
  if (list.length === 0) throw new Error(`${name} called on empty list`);
  let best = list[0];
  for (const item of list.slice(1)) {
    const c = compareValues(best, item);
    if (name === 'min' ? c > 0 : c < 0) best = item;
  }
  return best;
}

const toList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [...(v as Iterable<unknown>)]);

/** `quantity`, `isQuantity` and the Quantity members and operators (library.Quantity). */
function registerQuantity(env: Environment): void {
  const Q = QUANTITY_TYPE;
  env.registerType(Q, { ctor: Quantity, fields: {} });
  env.registerFunction(`quantity(string): ${Q}`, (s: string) => Quantity.parse(s));
  env.registerFunction('isQuantity(string): bool', (s: string) => {
    try {
      Quantity.parse(s);
      return true;
    } catch {
      return false;
    }
  });
  // Declared upstream as a global overload; the receiver form is accepted as well.
  env.registerFunction(`sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.sign()));
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === 1);
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === -1);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compare(b)));
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b, 'DecimalExponent')));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.sub(Quantity.fromInt(b, 'DecimalExponent')));
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => {
    const v = q.asInt64();
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  });
  env.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.compare(b) === 0);
}

/** `semver`, `isSemver` and the Semver members and operators (library.SemverLib, version 1). */
function registerSemver(env: Environment): void {
  const S = SEMVER_TYPE;
  const isValid = (parse: () => Semver): boolean => {
    try {
      parse();
      return true;
    } catch {
      return false;
    }
  };
  env.registerType(S, { ctor: Semver, fields: {} });
  env.registerFunction(`semver(string): ${S}`, (s: string) => Semver.parse(s));
  env.registerFunction(`semver(string, bool): ${S}`, (s: string, n: boolean) => (n ? Semver.parseNormalized(s) : Semver.parse(s)));
  env.registerFunction('isSemver(string): bool', (s: string) => isValid(() => Semver.parse(s)));
  env.registerFunction('isSemver(string, bool): bool', (s: string, n: boolean) => isValid(() => (n ? Semver.parseNormalized(s) : Semver.parse(s))));
  env.registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === 1);
  env.registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === -1);
  env.registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)));
  // blang's uint64 numbers become CEL ints as types.Int(v.Major) does (two's complement wrap).
  env.registerFunction(`${S}.major(): int`, (v: Semver) => BigInt.asIntN(64, v.major));
  env.registerFunction(`${S}.minor(): int`, (v: Semver) => BigInt.asIntN(64, v.minor));
  env.registerFunction(`${S}.patch(): int`, (v: Semver) => BigInt.asIntN(64, v.patch));
  env.registerOperator(`${S} == ${S}`, (a: Semver, b: Semver) => a.compare(b) === 0);
}

/** The Kubernetes lists library: isSorted, sum, min, max, indexOf, lastIndexOf (library.Lists, version 0). */
function registerLists(env: Environment): void {
  for (const t of ['int', 'uint', 'double', 'bool', 'string', 'bytes']) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (list: unknown) => {
      const items = toList(list);
      return items.every((item, i) => i === 0 || compareValues(items[i - 1], item) <= 0);
    });
    env.registerFunction(`list<${t}>.min(): ${t}`, (list: unknown) => extreme(toList(list), 'min'));
    env.registerFunction(`list<${t}>.max(): ${t}`, (list: unknown) => extreme(toList(list), 'max'));
  }
  env.registerFunction('list<int>.sum(): int', (list: unknown) => toList(list).reduce((a: bigint, b) => a + (b as bigint), 0n));
  env.registerFunction('list<double>.sum(): double', (list: unknown) => toList(list).reduce((a: number, b) => a + (b as number), 0));
  env.registerFunction('list<A>.indexOf(A): int', (list: unknown, item: unknown) => BigInt(toList(list).findIndex((x) => celEquals(x, item))));
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: unknown, item: unknown) => {
    const items = toList(list);
    for (let i = items.length - 1; i >= 0; i--) if (celEquals(items[i], item)) return BigInt(i);
    return -1n;
  });
}

/** cel-go ext.Sets: sets.contains, sets.equivalent, sets.intersects. */
function registerSets(env: Environment): void {
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  const has = (list: unknown[], item: unknown): boolean => list.some((x) => celEquals(x, item));
  const contains = (a: unknown, b: unknown): boolean => toList(b).every((x) => has(toList(a), x));
  env.registerFunction('SetsNamespace.contains(list<A>, list<A>): bool', (_: unknown, a: unknown, b: unknown) => contains(a, b));
  env.registerFunction('SetsNamespace.equivalent(list<A>, list<A>): bool', (_: unknown, a: unknown, b: unknown) => contains(a, b) && contains(b, a));
  env.registerFunction('SetsNamespace.intersects(list<A>, list<A>): bool', (_: unknown, a: unknown, b: unknown) => toList(b).some((x) => has(toList(a), x)));
}

/** The ext.Strings (version 2) functions the evaluator does not have built in: charAt, replace, strings.quote. */
function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, index: bigint) => {
    const chars = [...s];
    if (index < 0n || index > BigInt(chars.length)) throw new Error(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  });
  const replace = (s: string, from: string, to: string, n: bigint): string => {
    if (n < 0n) return s.split(from).join(to);
    let out = s;
    let at = 0;
    for (let done = 0n; done < n; done++) {
      const found = out.indexOf(from, at);
      if (found === -1) break;
      out = out.slice(0, found) + to + out.slice(found + from.length);
      at = found + to.length + (from === '' ? 1 : 0);
    }
    return out;
  };
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerFunction('StringsNamespace.quote(string): string', (_: unknown, s: string) => JSON.stringify(s));
}

/** The Kubernetes regex library: find and findAll, with RE2 semantics (re2.ts). */
function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', regexFind);
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => regexFindAll(s, re, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', regexFindAll);
}

/** DRA's `includes` (with list-type attributes): whether a list holds the value, or a value equals it. */
export function registerIncludes(env: Environment): void {
  env.registerFunction('dyn.includes(dyn): bool', (target: unknown, arg: unknown) => (Array.isArray(target) ? target.some((x) => celEquals(x, arg)) : celEquals(target, arg)));
}

/** Registers every library of upstream's base environment that this package implements. */
export function registerKubernetesLibraries(env: Environment): void {
  registerQuantity(env);
  registerSemver(env);
  registerLists(env);
  registerSets(env);
  registerStrings(env);
  registerRegex(env);
}
