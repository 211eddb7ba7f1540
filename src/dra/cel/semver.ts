/**
 * Semantic versions as Kubernetes' CEL `semver` library reads them: strict SemVer 2.0.0 parsing and
 * ordering of github.com/blang/semver/v4 (`Parse`, `Compare`), and the library's `normalize` option.
 */

const UINT64_MAX = (1n << 64n) - 1n;
const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

/** A malformed version; the message is blang/semver's wording. */
export class SemverError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SemverError';
  }
}

type PreRelease = { numeric: true; value: bigint } | { numeric: false; value: string };

const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === '0';

function parseNumber(part: string, what: string): bigint {
  if (!NUMBERS.test(part)) throw new SemverError(`Invalid character(s) found in ${what} number ${JSON.stringify(part)}`);
  const name = what[0]!.toUpperCase() + what.slice(1);
  if (hasLeadingZeroes(part)) throw new SemverError(`${name} number must not contain leading zeroes ${JSON.stringify(part)}`);
  if (part === '') throw new SemverError(`strconv.ParseUint: parsing "": invalid syntax`);
  const value = BigInt(part);
  if (value > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${JSON.stringify(part)}: value out of range`);
  return value;
}

function parsePreRelease(part: string): PreRelease {
  if (part === '') throw new SemverError('Prerelease is empty');
  if (NUMBERS.test(part)) {
    if (hasLeadingZeroes(part)) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(part)}`);
    const value = BigInt(part);
    if (value > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${JSON.stringify(part)}: value out of range`);
    return { numeric: true, value };
  }
  if (!ALPHANUM.test(part)) throw new SemverError(`Invalid character(s) found in prerelease ${JSON.stringify(part)}`);
  return { numeric: false, value: part };
}

function comparePreRelease(a: PreRelease, b: PreRelease): number {
  if (a.numeric && b.numeric) return a.value === b.value ? 0 : a.value < b.value ? -1 : 1;
  if (a.numeric) return -1;
  if (b.numeric) return 1;
  return a.value === b.value ? 0 : a.value < b.value ? -1 : 1;
}

/** A parsed semantic version (CEL type `kubernetes.Semver`). Immutable. */
export class Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  private readonly pre: readonly PreRelease[];
  private readonly text: string;

  private constructor(major: bigint, minor: bigint, patch: bigint, pre: PreRelease[], text: string) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.pre = pre;
    this.text = text;
  }

  /** blang/semver `Parse`: strict SemVer 2.0.0 (no "v", all three numbers); throws SemverError. */
  static parse(text: string): Semver {
    if (text.length === 0) throw new SemverError('Version string empty');
    const parts = splitN(text, '.', 3);
    if (parts.length !== 3) throw new SemverError('No Major.Minor.Patch elements found');
    const major = parseNumber(parts[0]!, 'major');
    const minor = parseNumber(parts[1]!, 'minor');
    let patchText = parts[2]!;
    let build: string[] = [];
    let pre: string[] = [];
    const buildAt = patchText.indexOf('+');
    if (buildAt !== -1) {
      build = patchText.slice(buildAt + 1).split('.');
      patchText = patchText.slice(0, buildAt);
    }
    const preAt = patchText.indexOf('-');
    if (preAt !== -1) {
      pre = patchText.slice(preAt + 1).split('.');
      patchText = patchText.slice(0, preAt);
    }
    const patch = parseNumber(patchText, 'patch');
    const preRelease = pre.map(parsePreRelease);
    for (const part of build) {
      if (part === '') throw new SemverError('Build meta data is empty');
      if (!ALPHANUM.test(part)) throw new SemverError(`Invalid character(s) found in build meta data ${JSON.stringify(part)}`);
    }
    return new Semver(major, minor, patch, preRelease, text);
  }

  /**
   * The library's `normalizeAndParse`: drops a leading "v", strips leading zeros, fills a missing
   * minor or patch with 0, then parses strictly.
   */
  static parseNormalized(text: string): Semver {
    const parts = splitN(text.startsWith('v') ? text.slice(1) : text, '.', 3).map((part) => {
      if (part.length <= 1) return part;
      const trimmed = part.replace(/^0+/, '');
      return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
    });
    if (parts.length < 3) {
      if (/[+-]/.test(parts[parts.length - 1]!)) throw new SemverError('short version cannot contain PreRelease/Build meta data');
      while (parts.length < 3) parts.push('0');
    }
    return Semver.parse(parts.join('.'));
  }

  /** blang/semver `Compare`: -1, 0 or 1; build metadata does not count. */
  compare(other: Semver): -1 | 0 | 1 {
    for (const [a, b] of [
      [this.major, other.major],
      [this.minor, other.minor],
      [this.patch, other.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre.length === 0 && other.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (other.pre.length === 0) return -1;
    let i = 0;
    for (; i < this.pre.length && i < other.pre.length; i++) {
      const c = comparePreRelease(this.pre[i]!, other.pre[i]!);
      if (c !== 0) return c < 0 ? -1 : 1;
    }
    if (i === this.pre.length && i === other.pre.length) return 0;
    return i === this.pre.length ? -1 : 1;
  }

  /** The version as written (build metadata included). */
  toString(): string {
    return this.text;
  }
}

/** Go's strings.SplitN(s, sep, n) for n > 0. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at === -1) break;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  out.push(rest);
  return out;
}
