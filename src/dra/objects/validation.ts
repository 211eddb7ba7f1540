// What the API server refuses in a DRA object (kubernetes pkg/apis/resource/validation/validation.go
// and the limits of k8s.io/api/resource/v1): device, request and counter names that are not DNS
// labels, pool names that are not DNS subdomains, attribute and capacity names that are not
// qualified names (an optional DNS-subdomain domain and a C identifier), constraint attributes that
// are not fully qualified, and the documented size limits. Each problem is said as the API server
// says it (`spec.devices[0].name: Invalid value: "gpu-0-mig-1g.10gb-0": a lowercase RFC 1123 label …`).
// Checks raw v1 objects (after conversion), so that the readers never accept what a cluster refuses.

/** The limits of resource.k8s.io/v1 this module checks, by the constant's upstream name. */
export const DRA_API_LIMITS = {
  /** ResourceSliceMaxDevices. */
  ResourceSliceMaxDevices: 128,
  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  ResourceSliceMaxAttributesAndCapacitiesPerDevice: 32,
  /** DeviceAttributeMaxValueLength: string and version attribute values. */
  DeviceAttributeMaxValueLength: 64,
  /** DeviceMaxIDLength: the identifier part of an attribute or capacity name. */
  DeviceMaxIDLength: 32,
  /** DeviceMaxDomainLength: the domain part of a qualified name. */
  DeviceMaxDomainLength: 63,
  /** DeviceRequestsMaxSize. */
  DeviceRequestsMaxSize: 32,
  /** DeviceConstraintsMaxSize. */
  DeviceConstraintsMaxSize: 32,
  /** DeviceSelectorsMaxSize (per request and per class). */
  DeviceSelectorsMaxSize: 32,
  /** FirstAvailableDeviceRequestMaxSize. */
  FirstAvailableDeviceRequestMaxSize: 8,
  /** CELSelectorExpressionMaxLength. */
  CELSelectorExpressionMaxLength: 10 * 1024,
  /** PoolNameMaxLength. */
  PoolNameMaxLength: 253,
  /** DriverNameMaxLength. */
  DriverNameMaxLength: 63,
} as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const IDENTIFIER_MESSAGE =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const quote = (v: unknown): string => JSON.stringify(typeof v === 'string' && v.length > 100 ? `${v.slice(0, 100)}…` : v);

/** Collects field errors in the API server's words. */
class Problems {
  readonly list: string[] = [];
  invalid(path: string, value: unknown, why: string): void {
    this.list.push(`${path}: Invalid value: ${quote(value)}: ${why}`);
  }
  tooMany(path: string, count: number, max: number): void {
    this.list.push(`${path}: Too many: ${count}: must have at most ${max} items`);
  }
  label(path: string, value: unknown): void {
    if (typeof value !== 'string') return;
    if (value.length > 63) this.invalid(path, value, 'must be no more than 63 characters');
    else if (!DNS_LABEL.test(value)) this.invalid(path, value, LABEL_MESSAGE);
  }
  subdomain(path: string, value: unknown, max = 253): void {
    if (typeof value !== 'string' || value === '') return;
    if (value.length > max) this.invalid(path, value, `must be no more than ${max} characters`);
    else if (!DNS_SUBDOMAIN.test(value)) this.invalid(path, value, SUBDOMAIN_MESSAGE);
  }
  /** A QualifiedName of an attribute or capacity: `[domain/]identifier`. */
  qualified(path: string, name: string, requireDomain = false): void {
    const slash = name.indexOf('/');
    const domain = slash < 0 ? undefined : name.slice(0, slash);
    const id = slash < 0 ? name : name.slice(slash + 1);
    if (domain === undefined && requireDomain) this.list.push(`${path}: Required value: must include a domain`);
    if (domain !== undefined) {
      if (domain.length > DRA_API_LIMITS.DeviceMaxDomainLength) this.invalid(path, domain, `must be no more than ${DRA_API_LIMITS.DeviceMaxDomainLength} characters`);
      else if (!DNS_SUBDOMAIN.test(domain)) this.invalid(path, domain, SUBDOMAIN_MESSAGE);
    }
    if (id.length > DRA_API_LIMITS.DeviceMaxIDLength) this.invalid(path, id, `must be no more than ${DRA_API_LIMITS.DeviceMaxIDLength} characters`);
    else if (!C_IDENTIFIER.test(id)) this.invalid(path, id, IDENTIFIER_MESSAGE);
  }
}

/** The pool name: DNS subdomains separated by slashes, at most 253 characters. */
function poolName(p: Problems, path: string, value: unknown): void {
  if (typeof value !== 'string') return;
  if (value.length > DRA_API_LIMITS.PoolNameMaxLength) return p.invalid(path, value, `must be no more than ${DRA_API_LIMITS.PoolNameMaxLength} characters`);
  for (const part of value.split('/')) if (!DNS_SUBDOMAIN.test(part)) return p.invalid(path, value, SUBDOMAIN_MESSAGE);
}

function selectors(p: Problems, path: string, value: unknown): void {
  const list = listOf(value);
  if (list.length > DRA_API_LIMITS.DeviceSelectorsMaxSize) p.tooMany(path, list.length, DRA_API_LIMITS.DeviceSelectorsMaxSize);
  list.forEach((s, i) => {
    const expression = isObject(s) && isObject(s.cel) ? s.cel.expression : undefined;
    if (typeof expression === 'string' && expression.length > DRA_API_LIMITS.CELSelectorExpressionMaxLength) {
      p.list.push(`${path}[${i}].cel.expression: Too long: may not be more than ${DRA_API_LIMITS.CELSelectorExpressionMaxLength} bytes`);
    }
  });
}

/** The API server's errors for a v1 ResourceSlice spec (empty: valid). */
export function validateSliceSpec(spec: unknown): string[] {
  const p = new Problems();
  if (!isObject(spec)) return p.list;
  p.subdomain('spec.driver', spec.driver, DRA_API_LIMITS.DriverNameMaxLength);
  if (isObject(spec.pool)) poolName(p, 'spec.pool.name', spec.pool.name);
  const devices = listOf(spec.devices);
  if (devices.length > DRA_API_LIMITS.ResourceSliceMaxDevices) p.tooMany('spec.devices', devices.length, DRA_API_LIMITS.ResourceSliceMaxDevices);
  const seen = new Set<string>();
  devices.forEach((d, i) => {
    if (!isObject(d)) return;
    const at = `spec.devices[${i}]`;
    p.label(`${at}.name`, d.name);
    if (typeof d.name === 'string') {
      if (seen.has(d.name)) p.list.push(`${at}.name: Duplicate value: ${quote(d.name)}`);
      seen.add(d.name);
    }
    const attributes = isObject(d.attributes) ? d.attributes : {};
    const capacity = isObject(d.capacity) ? d.capacity : {};
    const total = Object.keys(attributes).length + Object.keys(capacity).length;
    if (total > DRA_API_LIMITS.ResourceSliceMaxAttributesAndCapacitiesPerDevice) {
      p.list.push(`${at}: Too many: ${total}: must have at most ${DRA_API_LIMITS.ResourceSliceMaxAttributesAndCapacitiesPerDevice} attributes and capacities combined`);
    }
    for (const [name, value] of Object.entries(attributes)) {
      p.qualified(`${at}.attributes[${quote(name)}]`, name);
      if (isObject(value)) {
        for (const key of ['string', 'version'] as const) {
          const v = value[key];
          if (typeof v === 'string' && v.length > DRA_API_LIMITS.DeviceAttributeMaxValueLength)
            p.list.push(`${at}.attributes[${quote(name)}].${key}: Too long: may not be more than ${DRA_API_LIMITS.DeviceAttributeMaxValueLength} bytes`);
        }
      }
    }
    for (const name of Object.keys(capacity)) p.qualified(`${at}.capacity[${quote(name)}]`, name);
    listOf(d.consumesCounters).forEach((c, j) => {
      if (!isObject(c)) return;
      p.label(`${at}.consumesCounters[${j}].counterSet`, c.counterSet);
      for (const name of Object.keys(isObject(c.counters) ? c.counters : {})) p.label(`${at}.consumesCounters[${j}].counters[${quote(name)}]`, name);
    });
  });
  listOf(spec.sharedCounters).forEach((s, i) => {
    if (!isObject(s)) return;
    p.label(`spec.sharedCounters[${i}].name`, s.name);
    for (const name of Object.keys(isObject(s.counters) ? s.counters : {})) p.label(`spec.sharedCounters[${i}].counters[${quote(name)}]`, name);
  });
  return p.list;
}

function requestBody(p: Problems, at: string, body: Json): void {
  p.subdomain(`${at}.deviceClassName`, body.deviceClassName);
  selectors(p, `${at}.selectors`, body.selectors);
  if ((body.allocationMode === undefined || body.allocationMode === 'ExactCount') && body.count !== undefined && (typeof body.count !== 'number' || body.count <= 0)) {
    p.invalid(`${at}.count`, body.count, 'must be greater than zero');
  }
}

/** The API server's errors for a v1 ResourceClaim spec (a template's spec.spec too). */
export function validateClaimSpec(spec: unknown, base = 'spec'): string[] {
  const p = new Problems();
  const devices = isObject(spec) && isObject(spec.devices) ? spec.devices : undefined;
  if (devices === undefined) return p.list;
  const requests = listOf(devices.requests);
  if (requests.length > DRA_API_LIMITS.DeviceRequestsMaxSize) p.tooMany(`${base}.devices.requests`, requests.length, DRA_API_LIMITS.DeviceRequestsMaxSize);
  requests.forEach((r, i) => {
    if (!isObject(r)) return;
    const at = `${base}.devices.requests[${i}]`;
    p.label(`${at}.name`, r.name);
    if (isObject(r.exactly)) requestBody(p, `${at}.exactly`, r.exactly);
    const subs = listOf(r.firstAvailable);
    if (subs.length > DRA_API_LIMITS.FirstAvailableDeviceRequestMaxSize) p.tooMany(`${at}.firstAvailable`, subs.length, DRA_API_LIMITS.FirstAvailableDeviceRequestMaxSize);
    subs.forEach((s, j) => {
      if (!isObject(s)) return;
      p.label(`${at}.firstAvailable[${j}].name`, s.name);
      requestBody(p, `${at}.firstAvailable[${j}]`, s);
    });
  });
  const constraints = listOf(devices.constraints);
  if (constraints.length > DRA_API_LIMITS.DeviceConstraintsMaxSize) p.tooMany(`${base}.devices.constraints`, constraints.length, DRA_API_LIMITS.DeviceConstraintsMaxSize);
  constraints.forEach((c, i) => {
    if (!isObject(c)) return;
    for (const key of ['matchAttribute', 'distinctAttribute'] as const) {
      if (typeof c[key] === 'string' && c[key] !== '') p.qualified(`${base}.devices.constraints[${i}].${key}`, c[key] as string, true);
    }
  });
  return p.list;
}

/** The API server's errors for a v1 DeviceClass spec. */
export function validateClassSpec(spec: unknown): string[] {
  const p = new Problems();
  if (isObject(spec)) selectors(p, 'spec.selectors', spec.selectors);
  return p.list;
}

/** `ResourceSlice.resource.k8s.io "name" is invalid: …` as the API server answers. */
export function invalidMessage(kind: string, name: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 5).join(', ');
  return `${kind}.resource.k8s.io ${JSON.stringify(name)} is invalid: ${problems.length > 1 ? `[${shown}${problems.length > 5 ? `, and ${problems.length - 5} more` : ''}]` : shown}`;
}
