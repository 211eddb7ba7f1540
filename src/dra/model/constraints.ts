// Claim constraints: matchAttribute (all devices share a value; with list-type attributes, a
// non-empty common intersection) and distinctAttribute (all values differ; with lists, pairwise
// disjoint). Each keeps a stack so remove() restores exactly the state before the matching add(),
// whatever the order of backtracking, and counts every device of every request it covers,
// including several devices of the same request.
import { type AttributeValue, type Device, draError } from '../objects/index.js';

/** The request (or subrequest) a device is being added for. */
export interface ConstraintRequest {
  /** The request's name (the parent's for a subrequest). */
  base: string;
  /** The subrequest's name, when the request has alternatives. */
  sub?: string;
}

/** A constraint of one claim, checked incrementally as devices are added and removed. */
export interface Constraint {
  /** Adds the device if it keeps the constraint satisfied; throws for an attribute of unknown type. */
  add(request: ConstraintRequest, device: Device, driver: string, deviceId: string): boolean;
  /** Undoes the matching successful add (calls come in reverse order of the adds). */
  remove(request: ConstraintRequest): void;
}

type Kind = 'int' | 'bool' | 'string' | 'version';

/** An attribute value as a typed set of canonical strings (a scalar is a one-element set). */
interface ValueSet {
  kind: Kind;
  values: Set<string>;
  list: boolean;
}

/** The attribute `fqName` (`domain/name`) of a device: exact key first, then the bare name in the driver's domain. */
export function lookupAttribute(device: Device, driver: string, fqName: string): AttributeValue | undefined {
  if (Object.prototype.hasOwnProperty.call(device.attributes, fqName)) return device.attributes[fqName];
  const slash = fqName.indexOf('/');
  if (slash < 0 || fqName.slice(0, slash) !== driver) return undefined;
  const bare = fqName.slice(slash + 1);
  return Object.prototype.hasOwnProperty.call(device.attributes, bare) ? device.attributes[bare] : undefined;
}

/** Semver equality ignores build metadata. */
function buildless(v: string): string {
  const plus = v.indexOf('+');
  return plus < 0 ? v : v.slice(0, plus);
}

// Versions compare as strings (upstream: semver's minimal form makes that exact), except where
// upstream compares semver values: distinctAttribute between scalars without list-type attributes.
function asSet(value: AttributeValue, where: string, semverEquality = false): ValueSet {
  const v = value as Record<string, unknown>;
  const versionKey = semverEquality ? buildless : (x: string) => x;
  if ('int' in v) return { kind: 'int', values: new Set([String(v.int)]), list: false };
  if ('bool' in v) return { kind: 'bool', values: new Set([String(v.bool)]), list: false };
  if ('string' in v) return { kind: 'string', values: new Set([v.string as string]), list: false };
  if ('version' in v) return { kind: 'version', values: new Set([versionKey(v.version as string)]), list: false };
  if ('ints' in v) return { kind: 'int', values: new Set((v.ints as bigint[]).map(String)), list: true };
  if ('bools' in v) return { kind: 'bool', values: new Set((v.bools as boolean[]).map(String)), list: true };
  if ('strings' in v) return { kind: 'string', values: new Set(v.strings as string[]), list: true };
  if ('versions' in v) return { kind: 'version', values: new Set((v.versions as string[]).map(versionKey)), list: true };
  throw draError('DRA_REJECTED', `${where}: unsupported attribute value (empty or of unknown type)`);
}

function intersect(a: ValueSet, b: ValueSet): ValueSet | undefined {
  if (a.kind !== b.kind) return undefined;
  const values = new Set<string>();
  for (const x of a.values) if (b.values.has(x)) values.add(x);
  return values.size === 0 ? undefined : { kind: a.kind, values, list: true };
}

abstract class AttributeConstraint implements Constraint {
  constructor(
    protected readonly requests: ReadonlySet<string>,
    protected readonly attribute: string,
    protected readonly listTypes: boolean,
    private readonly label: string,
  ) {}

  /** Whether the constraint covers the request (no request names: every request). */
  protected covers(r: ConstraintRequest): boolean {
    if (this.requests.size === 0) return true;
    return this.requests.has(r.base) || (r.sub !== undefined && this.requests.has(`${r.base}/${r.sub}`));
  }

  /** The device's value, undefined when it lacks the attribute. */
  protected valueOf(device: Device, driver: string, deviceId: string, semverEquality = false): ValueSet | undefined {
    const value = lookupAttribute(device, driver, this.attribute);
    if (value === undefined) return undefined;
    return asSet(value, `${this.label}: device ${deviceId}: attribute ${this.attribute}`, semverEquality);
  }

  abstract add(request: ConstraintRequest, device: Device, driver: string, deviceId: string): boolean;
  abstract remove(request: ConstraintRequest): void;
}

/** matchAttribute. */
export class MatchAttribute extends AttributeConstraint {
  // stack[i]: the common values after i + 1 devices (a scalar match keeps the first value).
  private readonly stack: ValueSet[] = [];

  add(request: ConstraintRequest, device: Device, driver: string, deviceId: string): boolean {
    if (!this.covers(request)) return true;
    const value = this.valueOf(device, driver, deviceId);
    if (value === undefined) return false;
    if (this.stack.length === 0) {
      this.stack.push(value);
      return true;
    }
    const current = this.stack[this.stack.length - 1]!;
    if (this.listTypes) {
      const narrowed = intersect(current, value);
      if (narrowed === undefined) return false;
      this.stack.push(narrowed);
      return true;
    }
    // Without list-type attributes only scalars of the same type and value match (a list never does).
    if (current.list || value.list || current.kind !== value.kind || [...current.values][0] !== [...value.values][0]) return false;
    this.stack.push(current);
    return true;
  }

  remove(request: ConstraintRequest): void {
    if (this.covers(request)) this.stack.pop();
  }
}

/** distinctAttribute. */
export class DistinctAttribute extends AttributeConstraint {
  private readonly taken: ValueSet[] = [];

  add(request: ConstraintRequest, device: Device, driver: string, deviceId: string): boolean {
    if (!this.covers(request)) return true;
    const value = this.valueOf(device, driver, deviceId, !this.listTypes);
    if (value === undefined) return false;
    for (const other of this.taken) {
      if (this.listTypes) {
        if (intersect(other, value) !== undefined) return false;
      } else {
        // Without list-type attributes a list value is of no known type: it never passes.
        if (value.list || other.list) return false;
        if (other.kind === value.kind && [...other.values][0] === [...value.values][0]) return false;
      }
    }
    this.taken.push(value);
    return true;
  }

  remove(request: ConstraintRequest): void {
    if (this.covers(request)) this.taken.pop();
  }
}
