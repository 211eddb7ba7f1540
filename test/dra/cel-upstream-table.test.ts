// Every CEL expression of upstream's allocator test table (data/dra/upstream-allocator-cases.json,
// kubernetes/dynamic-resource-allocation TestAllocator, Apache-2.0) compiles under the case's
// feature gates, or fails as the case expects; and every device an expected allocation picks
// matches its class and request selectors.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CelAttributeValue, CelCompileError, type CelDevice, type CelFeatures, CelRuntimeError, compileSelector, prepareDevice, Quantity } from '../../src/dra/testing.js';

// biome-ignore lint/suspicious/noExplicitAny: the upstream table's JSON, read field by field
type Json = any;
// The repository's copy; before the allocator's branch brings it, the shared original.
const inRepo = new URL('../../data/dra/upstream-allocator-cases.json', import.meta.url);
const tablePath = existsSync(inRepo) ? inRepo : new URL('../../../shared/dra/upstream-allocator-cases.json', import.meta.url);
const table = JSON.parse(readFileSync(tablePath, 'utf8')) as Json;
const cases: Json[] = [...table.cases, ...table.lexicographical];

const featuresOf = (c: Json): CelFeatures => ({
  consumableCapacity: c.features?.consumableCapacity === true,
  listTypeAttributes: c.features?.listTypeAttributes === true,
});

const expressions = (selectors: Json[] | undefined): string[] => (selectors ?? []).filter((s) => s.cel !== undefined).map((s) => s.cel.expression as string);

/** Every selector expression of a case: its classes' and its requests' (and subrequests'). */
function caseExpressions(c: Json): string[] {
  const out = c.classes.flatMap((k: Json) => expressions(k.spec?.selectors));
  for (const claim of c.claims) {
    for (const request of claim.spec?.devices?.requests ?? []) {
      out.push(...expressions(request.exactly?.selectors));
      for (const sub of request.firstAvailable ?? []) out.push(...expressions(sub.selectors));
    }
  }
  return out;
}

/** The attribute value as the CEL interface takes it (JSON numbers become bigints). */
function attribute(value: Json): CelAttributeValue {
  if (value.int !== undefined) return { int: BigInt(value.int) };
  if (value.ints !== undefined) return { ints: value.ints.map((x: number) => BigInt(x)) };
  return value as CelAttributeValue;
}

/** A slice's device as a selector sees it: qualified names split into domain and name. */
function celDevice(driver: string, device: Json): CelDevice {
  const split = (name: string): [string, string] => {
    const at = name.indexOf('/');
    return at === -1 ? [driver, name] : [name.slice(0, at), name.slice(at + 1)];
  };
  const attributes: CelDevice['attributes'] = {};
  for (const [name, value] of Object.entries(device.attributes ?? {})) {
    const [domain, id] = split(name);
    (attributes[domain] ??= {})[id] = attribute(value);
  }
  const capacity: CelDevice['capacity'] = {};
  for (const [name, value] of Object.entries(device.capacity ?? {})) {
    const [domain, id] = split(name);
    (capacity[domain] ??= {})[id] = Quantity.parse((value as Json).value);
  }
  return { driver, attributes, capacity, allowMultipleAllocations: device.allowMultipleAllocations === true };
}

function findDevice(c: Json, driver: string, pool: string, name: string): Json {
  for (const slice of c.slices) {
    if (slice.spec.driver !== driver || slice.spec.pool.name !== pool) continue;
    const device = (slice.spec.devices ?? []).find((d: Json) => d.name === name);
    if (device !== undefined) return device;
  }
  throw new Error(`${c.name}: no device ${driver}/${pool}/${name}`);
}

/** The selectors (class + request) that the device allocated for `requestName` must satisfy. */
function selectorsFor(c: Json, claim: Json, requestName: string): string[] {
  const [main, sub] = requestName.split('/');
  const request = claim.spec.devices.requests.find((r: Json) => r.name === main);
  const spec = sub === undefined ? request.exactly : request.firstAvailable.find((s: Json) => s.name === sub);
  const deviceClass = c.classes.find((k: Json) => k.metadata.name === spec.deviceClassName);
  return [...expressions(deviceClass?.spec?.selectors), ...expressions(spec.selectors)];
}

describe('CEL selectors of the upstream allocator table', () => {
  it('has the expected table', () => {
    expect(cases.length).toBe(223);
  });

  it('compiles every expression, or fails with "undeclared reference" where the case expects it', () => {
    let compiled = 0;
    let rejected = 0;
    for (const c of cases) {
      const expectsUndeclared = typeof c.expect.errorContains === 'string' && c.expect.errorContains.includes('undeclared reference');
      for (const expression of caseExpressions(c)) {
        if (expression === 'noSuchVar') {
          expect(expectsUndeclared, c.name).toBe(true);
          expect(() => compileSelector(expression, featuresOf(c)), c.name).toThrow(CelCompileError);
          expect(() => compileSelector(expression, featuresOf(c)), c.name).toThrow(/undeclared reference to 'noSuchVar'/);
          rejected++;
        } else {
          expect(() => compileSelector(expression, featuresOf(c)), `${c.name}: ${expression}`).not.toThrow();
          compiled++;
        }
      }
    }
    expect(rejected).toBe(3);
    expect(compiled).toBe(297);
  });

  it('matches every device an expected allocation picks with its class and request selectors', () => {
    let checked = 0;
    for (const c of cases) {
      if (c.expect.results === undefined) continue;
      c.expect.results.forEach((result: Json, i: number) => {
        for (const picked of result.devices?.results ?? []) {
          const device = celDevice(picked.driver, findDevice(c, picked.driver, picked.pool, picked.device));
          const prepared = prepareDevice(device, featuresOf(c));
          for (const expression of selectorsFor(c, c.claims[i], picked.request)) {
            const selector = compileSelector(expression, featuresOf(c));
            expect(selector.evaluate(device), `${c.name}: ${picked.device} ${expression}`).toBe(true);
            expect(selector.evaluate(prepared), `${c.name}: ${picked.device} ${expression} (prepared)`).toBe(true);
            checked++;
          }
        }
      });
    }
    expect(checked).toBe(333);
  });

  it('says false for devices the table selectors exclude, and "no such key" for a missing attribute', () => {
    const driverA = compileSelector('device.driver == "driver-a"');
    const onB: CelDevice = { driver: 'driver-b', attributes: {}, capacity: {} };
    expect(driverA.evaluate(onB)).toBe(false);
    const typeX = compileSelector('device.attributes["driver-a"].type == "X"');
    expect(typeX.evaluate({ driver: 'driver-a', attributes: { 'driver-a': { type: { string: 'Y' } } }, capacity: {} })).toBe(false);
    expect(() => typeX.evaluate({ driver: 'driver-a', attributes: {}, capacity: {} })).toThrow('no such key: type');
  });

  it('fails with "unsupported attribute value" on the devices of the cases that expect it', () => {
    let failed = 0;
    for (const c of cases) {
      if (c.expect.errorContains !== 'unsupported attribute value') continue;
      for (const slice of c.slices) {
        for (const device of slice.spec.devices ?? []) {
          const hasUnknown = Object.values(device.attributes ?? {}).some((v) => Object.keys(v as object).length === 0);
          if (!hasUnknown) continue;
          const selector = compileSelector('device.driver == "driver-a"', featuresOf(c));
          expect(() => selector.evaluate(celDevice(slice.spec.driver, device)), c.name).toThrow(CelRuntimeError);
          expect(() => selector.evaluate(celDevice(slice.spec.driver, device)), c.name).toThrow(/^attribute \S+: unsupported attribute value$/);
          failed++;
        }
      }
    }
    expect(failed).toBe(5);
  });
});
