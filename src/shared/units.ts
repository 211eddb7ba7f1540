// Byte sizes: parse "140GiB", "80GB", "512MiB", Kubernetes' "80Gi" and "80G", "1234" and print them back.
import { AllocationError } from './errors.js';
import { describeValue, fail } from './validate.js';

/** Units spelled as people write them, in any case: bytes, decimal (1000 apart) and binary (1024 apart). */
const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * Kubernetes quantity suffixes (resource.Quantity, k8s.io/apimachinery suffix.go), the one table:
 * decimal suffixes by their power of ten, binary ones by their power of two, spelled exactly as
 * Kubernetes spells them (case matters there: `m` is a thousandth, `K` is nothing). The DRA
 * Quantity reads all of them; parseBytes takes the byte-sized ones, k to T and Ki to Ti.
 */
export const KUBERNETES_SUFFIXES: { readonly decimal: Readonly<Record<string, number>>; readonly binary: Readonly<Record<string, number>> } = {
  decimal: { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 },
  binary: { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 },
};

/** The Kubernetes suffixes parseBytes takes, with their factors: binary Ki, Mi, Gi, Ti; decimal k, M, G, T. */
const KUBERNETES_UNITS: Record<string, number> = Object.fromEntries([
  ...Object.entries(KUBERNETES_SUFFIXES.binary)
    .filter(([, p]) => p <= 40)
    .map(([s, p]) => [s, 2 ** p]),
  ...Object.entries(KUBERNETES_SUFFIXES.decimal)
    .filter(([, e]) => e >= 3 && e <= 12)
    .map(([s, e]) => [s, 10 ** e]),
]);

/** Every unit parseBytes takes, for messages. */
const UNIT_LIST = "B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, or Kubernetes' k, M, G, T, Ki, Mi, Gi or Ti";

/** The factor of a unit as typed, or undefined. */
function _factor(unit: string): number | undefined {
  if (unit === '') return 1;
  if (Object.prototype.hasOwnProperty.call(KUBERNETES_UNITS, unit)) return KUBERNETES_UNITS[unit];
  const lower = unit.toLowerCase();
  return Object.prototype.hasOwnProperty.call(UNITS, lower) ? UNITS[lower] : undefined;
}

/** What an unknown unit may have meant: a Kubernetes suffix in another case (`g` → G or Gi, `m` → M or Mi, not milli). */
function _unitHint(unit: string): string {
  const near = Object.entries(KUBERNETES_UNITS).filter(([k]) => k.toLowerCase() === unit.toLowerCase() || k.toLowerCase() === `${unit.toLowerCase()}i`);
  if (near.length === 0) return `use ${UNIT_LIST}`;
  const said = near.map(([k, f]) => `${k} (${f >= 1000 && f % 1000 === 0 ? `10^${Math.round(Math.log10(f))}` : `2^${Math.log2(f)}`} bytes)`).join(' or ');
  return `Kubernetes spells it ${said}, with that case; or use ${UNIT_LIST.split(', or')[0]}`;
}

/**
 * Parses a byte size: a plain integer, or a number with a unit: B, KB, MB, GB, TB (decimal) or KiB,
 * MiB, GiB, TiB (binary), in any case; or a Kubernetes quantity suffix, case as Kubernetes reads it:
 * k, M, G, T (decimal: 80G is 80 GB) or Ki, Mi, Gi, Ti (binary: 80Gi is 80 GiB).
 */
export function parseBytes(text: string, field = 'size'): number {
  // Never coerce a non-string (String(x) runs the caller's toString); show values bounded.
  const m = typeof text === 'string' && text.length <= 100 ? /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$/.exec(text) : null;
  if (m === null) fail('INVALID_ARGUMENT', field, 'a size such as 80GiB, 512MiB or 1073741824', text);
  const unit = m[2]!; // the pattern's groups are not optional
  const factor = _factor(unit);
  if (factor === undefined)
    throw AllocationError.at('INVALID_ARGUMENT', field, `unknown unit ${JSON.stringify(unit)} in ${describeValue(text)} (${_unitHint(unit)})`, { received: describeValue(text) });
  const value = Math.round(Number(m[1]!) * factor);
  if (!Number.isSafeInteger(value)) throw AllocationError.at('LIMIT_EXCEEDED', field, `${describeValue(text)} is more bytes than can be represented exactly`, { received: describeValue(text) });
  return value;
}

/** Unit names of formatBytes, binary and decimal. */
const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const DECIMAL_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** Which units a size is written in: binary (KiB, MiB, GiB, TiB; 1024 apart) or decimal (KB, MB, GB, TB; 1000 apart). */
export type ByteUnits = 'binary' | 'decimal';

/** The units a size was typed in: decimal for KB/MB/GB/TB and Kubernetes' k/M/G/T, else binary (GiB, Gi, bytes). */
export function unitsOf(text: string): ByteUnits {
  const m = /([a-zA-Z]*)\s*$/.exec(text);
  const unit = m?.[1] ?? '';
  return ['kb', 'mb', 'gb', 'tb'].includes(unit.toLowerCase()) || ['k', 'M', 'G', 'T'].includes(unit) ? 'decimal' : 'binary';
}

/**
 * Formats bytes in binary units (default: 85899345920 → "80 GiB", 1536 → "1.5 KiB") or in decimal
 * ones (140000000000 → "140 GB"), so sizes print the way they were typed.
 */
export function formatBytes(bytes: number, units: ByteUnits = 'binary'): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  const names = units === 'decimal' ? DECIMAL_UNITS : BINARY_UNITS;
  const step = units === 'decimal' ? 1000 : 1024;
  let u = 0;
  while (v >= step && u < names.length - 1) {
    v /= step;
    u++;
  }
  let text: string;
  if (u === 0) text = String(v);
  else if (v >= 100) text = v.toFixed(0);
  else {
    // One decimal from 10, two below; trailing zeros of the decimals dropped, then a bare point.
    text = v.toFixed(v >= 10 ? 1 : 2);
    let end = text.length;
    if (v < 10 && text.charCodeAt(end - 1) === 48) end--;
    if (text.charCodeAt(end - 1) === 48) end--;
    if (text.charCodeAt(end - 1) === 46) end--;
    text = end === text.length ? text : text.slice(0, end);
  }
  return `${sign}${text} ${names[u]}`;
}

const _BINARY_FACTOR: Record<string, number> = { KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40, PiB: 2 ** 50 };

/**
 * A message whose sizes formatBytes wrote in binary units (`has 80 GiB`), with those sizes said
 * again in `units` (`has 85.9 GB`). The sizes in the text are already rounded, so the result is
 * as exact as they are (three significant digits); binary units return the text unchanged.
 */
export function sayBytesIn(text: string, units: ByteUnits): string {
  if (units === 'binary') return text;
  // The pattern names only _BINARY_FACTOR's keys.
  return text.replace(/(\d+(?:\.\d+)?) (KiB|MiB|GiB|TiB|PiB)\b/g, (_, n: string, unit: string) => formatBytes(Math.round(Number(n) * _BINARY_FACTOR[unit]!), units));
}
