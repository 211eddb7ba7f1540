// Byte sizes: parse "140GiB", "80GB", "512MiB", "1234" and print them back.
import { AllocationError } from './errors.js';
import { describeValue } from './validate.js';

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12,
  kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
  k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40,
};

/** Parses a byte size: a plain integer, or a number with a B/KB/MB/GB/TB (decimal) or KiB/MiB/GiB/TiB (binary) suffix. */
export function parseBytes(text: string, field = 'size'): number {
  // Never coerce a non-string (String(x) runs the caller's toString); show values bounded.
  const m = typeof text === 'string' && text.length <= 100 ? /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$/.exec(text) : null;
  if (m === null) throw new AllocationError('INVALID_ARGUMENT', `${field}: expected a size such as 80GiB, 512MiB or 1073741824, got ${describeValue(text)}`, { field });
  const unit = m[2].toLowerCase();
  const factor = unit === '' ? 1 : UNITS[unit];
  if (factor === undefined) throw new AllocationError('INVALID_ARGUMENT', `${field}: unknown unit ${JSON.stringify(m[2])} in ${describeValue(text)} (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)`, { field });
  const value = Math.round(Number(m[1]) * factor);
  if (!Number.isSafeInteger(value)) throw new AllocationError('LIMIT_EXCEEDED', `${field}: ${describeValue(text)} is more bytes than can be represented exactly`, { field });
  return value;
}

/** Binary unit names of formatBytes. */
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Formats bytes with a binary unit: 85899345920 → "80 GiB", 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
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
  return `${sign}${text} ${BYTE_UNITS[u]}`;
}
