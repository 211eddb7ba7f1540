/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource: quantity.go, suffix.go,
 * amount.go), exactly: the same accepted text, the same value (rounded up to 10^-9), the same
 * format chosen by the suffix, the same canonical text.
 *
 * The value is held as an exact bigint count of nano units (10^-9), which is all the precision a
 * Quantity keeps. Upstream also keeps an internal representation (a scaled int64 or an inf.Dec)
 * that shows through only in `AsInt64` (CEL's `isInteger`/`asInteger`); that one fact is tracked
 * as `int64Scale` so those answers match too.
 */

import { KUBERNETES_SUFFIXES } from '../../shared/units.js';

/** How a quantity prints: `12Mi` (BinarySI), `12M` (DecimalSI) or `12e6` (DecimalExponent). */
export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

const SPLIT_RE_STRING = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** Upstream's parse errors, word for word (ErrFormatWrong, ErrNumeric, ErrSuffix). */
const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE_STRING}'`;
const ERR_NUMERIC = 'unable to parse numeric part of quantity';
const ERR_SUFFIX = "unable to parse quantity's suffix";

/** A malformed quantity; `message` is upstream's wording, `text` the rejected input. */
export class QuantityError extends Error {
  /** The text that failed to parse. */
  readonly text: string;
  constructor(message: string, text: string) {
    super(message);
    this.name = 'QuantityError';
    this.text = text;
  }
}

const NANO = 1_000_000_000n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
/** Upstream caps BinarySI values at 2^63-1 when parsing. */
const BINARY_MAX_NANOS = INT64_MAX * NANO;
/**
 * Largest decimal exponent accepted. Upstream accepts exponents up to 2^31-1 but then has to write
 * the number out; values this large have no use and would cost memory here.
 */
const MAX_EXPONENT = 4096;

interface SuffixMeaning {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const DECIMAL_SUFFIXES = KUBERNETES_SUFFIXES.decimal;
const BINARY_SUFFIXES = KUBERNETES_SUFFIXES.binary;
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
/** Binary suffixes by power of 1024: '', Ki, Mi, Gi, Ti, Pi, Ei. */
const BINARY_BY_POWER = ['', ...Object.keys(BINARY_SUFFIXES).sort((a, b) => BINARY_SUFFIXES[a]! - BINARY_SUFFIXES[b]!)];

/** suffix.go `interpret`: what a suffix means, or undefined when upstream rejects it. */
function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt(s[1:], 10, 64), then bounded to [-MaxInt32, MaxInt32] like upstream.
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const exponent = BigInt(digits);
    if (exponent > 2147483647n || exponent < -2147483647n) return undefined;
    return { base: 10, exponent: Number(exponent), format: 'DecimalExponent' };
  }
  return undefined;
}

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const SUFFIX_CHARS = 'eEinumkKMGTP';

/** quantity.go `parseQuantityString`: the permissive scanner, including its quirks ("." is 0). */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') pos++;
  }
  // strip leading zeros
  for (;;) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] !== '0') break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos) || '0', denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityError(ERR_FORMAT_WRONG, str);
}

/** ceil(a / b) for a >= 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
/** 10^0 … 10^63, read far more often than computed (counter arithmetic normalises scales on every add). */
const POW10: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);
const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/** Rounds `nanos` to a multiple of 10^(9+scale) away from zero and returns the count of 10^scale units. */
function scaledAwayFromZero(nanos: bigint, scale: number): bigint {
  const exp = 9 + scale;
  if (exp <= 0) return nanos * pow10(-exp);
  const unit = pow10(exp);
  const magnitude = ceilDiv(abs(nanos), unit);
  return nanos < 0n ? -magnitude : magnitude;
}

/** int64Amount.Add: the scale upstream's int64 fast path ends with, or null where it overflows. */
function int64AddScale(a: bigint, aScale: number, b: bigint, bScale: number): number | null {
  // a and b are the int64 mantissas (value at 10^scale).
  if (b === 0n) return aScale;
  if (a === 0n) return bScale;
  let sum: bigint;
  let scale: number;
  if (aScale === bScale) {
    sum = a + b;
    scale = aScale;
  } else if (aScale > bScale) {
    const shifted = a * pow10(aScale - bScale);
    if (shifted > INT64_MAX || shifted < INT64_MIN) return null;
    sum = shifted + b;
    scale = bScale;
  } else {
    const shifted = b * pow10(bScale - aScale);
    if (shifted > INT64_MAX || shifted < INT64_MIN) return null;
    sum = a + shifted;
    scale = aScale;
  }
  return sum > INT64_MAX || sum < INT64_MIN ? null : scale;
}

/** A Kubernetes resource quantity: an exact decimal value with a print format. Immutable. */
export class Quantity {
  /** The print format, chosen by the suffix the quantity was parsed from. */
  readonly format: QuantityFormat;
  /** The exact value in units of 10^-9. */
  private readonly nanos: bigint;
  /**
   * The scale of upstream's int64 representation (value = mantissa × 10^scale), or null where
   * upstream holds an inf.Dec. Only `asInt64` depends on it.
   */
  private readonly int64Scale: number | null;

  private constructor(nanos: bigint, format: QuantityFormat, int64Scale: number | null) {
    this.nanos = nanos;
    this.format = format;
    this.int64Scale = int64Scale;
  }

  /** Parses Kubernetes quantity text (`1Gi`, `1500m`, `1e3`); throws QuantityError with upstream's wording. */
  static parse(text: string): Quantity {
    if (typeof text !== 'string' || text.length === 0) throw new QuantityError(ERR_FORMAT_WRONG, String(text));
    if (text === '0') return new Quantity(0n, 'DecimalSI', 0);
    const { positive, value, num, denom, suffix } = scan(text);
    const meaning = interpretSuffix(suffix);
    if (meaning === undefined) throw new QuantityError(ERR_SUFFIX, text);
    const { base, exponent } = meaning;
    let format = meaning.format;
    if (base === 10 && exponent > MAX_EXPONENT) throw new QuantityError(ERR_NUMERIC, text);

    // Does upstream take its int64 fast path (and so hold a scaled int64)?
    const digits = BigInt(num + denom);
    let int64Scale: number | null = null;
    let precision: number;
    if (base === 10) precision = 18 - (num.length + denom.length);
    else precision = exponent >= 0 && denom.length === 0 ? 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 : -1;
    const fastScale = (base === 10 ? exponent : 0) - denom.length;
    if (precision >= 0 && fastScale >= -9 && digits <= INT64_MAX) {
      const mantissa = base === 2 ? digits << BigInt(exponent) : digits;
      if (mantissa <= INT64_MAX) int64Scale = fastScale;
    }
    if (int64Scale === null && !/[0-9]/.test(value)) throw new QuantityError(ERR_NUMERIC, text);

    // Exact magnitude in nanos, rounded up (away from zero) to 10^-9 as upstream does.
    let magnitude: bigint;
    const scale10 = (base === 10 ? exponent : 0) - denom.length + 9;
    const scaled = base === 2 ? digits << BigInt(exponent) : digits;
    if (scale10 >= 0) magnitude = scaled * pow10(scale10);
    else if (-scale10 > scaled.toString().length) magnitude = scaled === 0n ? 0n : 1n;
    else magnitude = ceilDiv(scaled, pow10(-scale10));

    if (int64Scale === null) {
      if (format === 'BinarySI' && magnitude > BINARY_MAX_NANOS) magnitude = BINARY_MAX_NANOS;
      if (format === 'BinarySI' && magnitude > 0n && magnitude < NANO) format = 'DecimalSI';
    }
    return new Quantity(positive ? magnitude : -magnitude, format, int64Scale);
  }

  /** A quantity of the integer `value` (NewQuantity); the format defaults to DecimalSI. */
  static fromInt(value: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    const fits = value <= INT64_MAX && value >= INT64_MIN;
    return new Quantity(value * NANO, format, fits ? 0 : null);
  }

  /** A quantity of `milli`/1000 (NewMilliQuantity); the format defaults to DecimalSI. */
  static fromMilli(milli: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    const fits = milli <= INT64_MAX && milli >= INT64_MIN;
    return new Quantity(milli * 1_000_000n, format, fits ? -3 : null);
  }

  /** The value ×1000, rounded up away from zero (MilliValue); exact bigint, never saturates. */
  milli(): bigint {
    return scaledAwayFromZero(this.nanos, -3);
  }

  /** The value rounded up away from zero to an integer (Value); exact bigint, never saturates. */
  value(): bigint {
    return scaledAwayFromZero(this.nanos, 0);
  }

  /** The exact value as a count of 10^-9 units. */
  nanoValue(): bigint {
    return this.nanos;
  }

  /**
   * Upstream's `AsInt64`: the integer value when upstream holds it as a scaled int64 that converts
   * without loss or overflow, otherwise undefined. CEL's `isInteger`/`asInteger` use it.
   */
  asInt64(): bigint | undefined {
    const scale = this.int64Scale;
    // A negative scale is "not an integer" upstream even when the value is whole ("1000m").
    if (scale === null || scale < 0) return undefined;
    const v = this.nanos / NANO;
    return v > INT64_MAX || v < INT64_MIN ? undefined : v;
  }

  /** Upstream's `AsApproximateFloat64`: mantissa × 10^exponent in float64 (may lose precision). */
  asApproximateFloat(): number {
    if (this.int64Scale !== null) {
      const mantissa = Number(this.nanos / pow10(9 + this.int64Scale));
      return this.int64Scale === 0 ? mantissa : mantissa * Number(`1e${this.int64Scale}`);
    }
    return Number(this.nanos) * 1e-9;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`, by value. */
  compare(other: Quantity): -1 | 0 | 1 {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  /** this + other (Quantity.Add): keeps this format unless this is zero, then takes other's. */
  add(other: Quantity): Quantity {
    const format = this.nanos === 0n ? other.format : this.format;
    let scale: number | null = null;
    if (this.int64Scale !== null && other.int64Scale !== null) {
      scale = int64AddScale(this.mantissa(), this.int64Scale, other.mantissa(), other.int64Scale);
    }
    return new Quantity(this.nanos + other.nanos, format, scale);
  }

  /** this - other (Quantity.Sub): keeps this format unless this is zero, then takes other's. */
  sub(other: Quantity): Quantity {
    const format = this.nanos === 0n ? other.format : this.format;
    let scale: number | null = null;
    if (this.int64Scale !== null && other.int64Scale !== null && other.mantissa() !== INT64_MIN) {
      scale = int64AddScale(this.mantissa(), this.int64Scale, -other.mantissa(), other.int64Scale);
    }
    return new Quantity(this.nanos - other.nanos, format, scale);
  }

  /** True when the value is zero. */
  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** -1, 0 or 1: the sign of the value. */
  sign(): -1 | 0 | 1 {
    return this.nanos < 0n ? -1 : this.nanos > 0n ? 1 : 0;
  }

  /** The canonical text exactly as Kubernetes prints it (CanonicalizeBytes): `1Gi`, `1500m`, `1e3`. */
  toString(): string {
    if (this.nanos === 0n) return '0';
    const sign = this.nanos < 0n ? '-' : '';
    const magnitude = abs(this.nanos);
    let format = this.format;
    if (format === 'BinarySI' && (magnitude < 1024n * NANO || magnitude % NANO !== 0n)) format = 'DecimalSI';
    if (format === 'BinarySI') {
      let amount = magnitude / NANO;
      let power = 0;
      while (amount % 1024n === 0n) {
        amount /= 1024n;
        power++;
      }
      // Past Ei there is no binary suffix: print the exact decimal form instead.
      if (power < BINARY_BY_POWER.length) return `${sign}${amount}${BINARY_BY_POWER[power]}`;
      format = 'DecimalExponent';
    }
    let amount = magnitude;
    let exponent = -9;
    while (amount % 10n === 0n) {
      amount /= 10n;
      exponent++;
    }
    while (exponent % 3 !== 0) {
      amount *= 10n;
      exponent--;
    }
    if (format === 'DecimalSI') {
      // Past E there is no decimal suffix: print in exponent form instead.
      const suffix = DECIMAL_BY_EXPONENT.get(exponent);
      if (suffix !== undefined) return `${sign}${amount}${suffix}`;
    }
    return `${sign}${amount}${exponent === 0 ? '' : `e${exponent}`}`;
  }

  /** The canonical text, so JSON.stringify writes quantities as Kubernetes does. */
  toJSON(): string {
    return this.toString();
  }

  /** The int64 mantissa of upstream's representation (only meaningful when int64Scale is set). */
  private mantissa(): bigint {
    return this.nanos / pow10(9 + (this.int64Scale ?? 0));
  }
}
