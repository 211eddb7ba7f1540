// The Kubernetes CEL libraries of the DRA environment, one table per library. The quantity rows
// follow upstream's TestQuantity (kubernetes/kubernetes
// staging/src/k8s.io/apiserver/pkg/cel/library/quantity_test.go, Apache-2.0); the others follow
// the libraries' documented examples (semverlib.go, lists.go, cel-go ext/sets.go, ext/strings.go).
import { describe, expect, it } from 'vitest';
import { type CelDevice, type CelFeatures, compileSelector, Quantity } from '../../src/dra/testing.js';

const device: CelDevice = {
  driver: 'gpu.example.com',
  attributes: {
    'gpu.example.com': {
      model: { string: 'A100' },
      memoryGiB: { int: 80n },
      mig: { bool: true },
      driverVersion: { version: '535.104.5' },
      numaNodes: { ints: [0n, 1n] },
      profiles: { strings: ['1g.10gb', '3g.40gb'] },
      firmware: { versions: ['1.2.3', '1.10.0'] },
    },
    'resource.kubernetes.io': { pcieRoot: { string: 'pci0000:00' } },
  },
  capacity: { 'gpu.example.com': { memory: Quantity.parse('80Gi'), cores: Quantity.parse('108') } },
  allowMultipleAllocations: true,
};
const LISTS: CelFeatures = { listTypeAttributes: true, consumableCapacity: true };

/** Evaluates a bool expression on the device above (with list attributes on). */
const holds = (expression: string, features: CelFeatures = LISTS): boolean => compileSelector(expression, features).evaluate(device);

/** Every row must be true; a wrong implementation turns at least one false or into an error. */
function allTrue(rows: string[], features: CelFeatures = LISTS): void {
  for (const row of rows) expect(holds(row, features), row).toBe(true);
}

describe('quantity library', () => {
  it('parses, compares and does arithmetic as upstream TestQuantity', () => {
    allTrue([
      'quantity("12Mi") == quantity("12582912")',
      'isQuantity("20") && isQuantity("20M") && isQuantity("20Mi")',
      '!isQuantity("20Mo") && !isQuantity("10Mm")',
      'quantity("200M") == quantity("200M")',
      'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      'quantity("200M") != quantity("0.3G")',
      'quantity("50M").isLessThan(quantity("50Mi"))',
      'quantity("50M").isLessThan(quantity("100M"))',
      '!quantity("100M").isLessThan(quantity("50M"))',
      'quantity("50Mi").isGreaterThan(quantity("50M"))',
      'quantity("150Mi").isGreaterThan(quantity("100Mi"))',
      '!quantity("50M").isGreaterThan(quantity("100M"))',
      'quantity("200M").compareTo(quantity("0.2G")) == 0',
      'quantity("50M").compareTo(quantity("50Mi")) == -1',
      'quantity("50Mi").compareTo(quantity("50M")) == 1',
      'quantity("50k").add(quantity("20")) == quantity("50.02k")',
      '!quantity("50k").add(20).isLessThan(quantity("50020"))',
      'quantity("50k").sub(quantity("20")) == quantity("49.98k")',
      'quantity("50k").sub(20) == quantity("49980")',
      'quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980',
      'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20',
      'quantity("50k").asInteger() == 50000',
      '!quantity("9999999999999999999999999999999999999G").isInteger()',
      'quantity("50").isInteger()',
      'quantity("50.703k").asApproximateFloat() == 50703.0',
      'quantity("-1").sign() == -1 && sign(quantity("0")) == 0 && quantity("1m").sign() == 1',
    ]);
  });

  it('reads device capacity as quantities', () => {
    allTrue([
      'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
      'device.capacity["gpu.example.com"].memory == quantity("81920Mi")',
      'device.capacity["gpu.example.com"].cores.asInteger() == 108',
      'device.capacity["gpu.example.com"].memory.isGreaterThan(device.capacity["gpu.example.com"].cores)',
      'device.capacity["other.example.com"].size() == 0',
    ]);
    expect(holds('device.capacity["gpu.example.com"].memory.isLessThan(quantity("1Gi"))')).toBe(false);
  });

  it('fails at run time with upstream messages', () => {
    expect(() => holds('quantity("10Mo") == quantity("1")')).toThrow(/quantities must match the regular expression/);
    expect(() => holds('quantity("10Mm") == quantity("1")')).toThrow("unable to parse quantity's suffix");
    expect(() => holds('quantity("9999999999999999999999999999999999999G").asInteger() == 1')).toThrow('cannot convert value to integer');
  });

  it('rejects a quantity function applied to the wrong type at compile time', () => {
    expect(() => compileSelector('isQuantity([1, 2, 3])')).toThrow(/found no matching overload for 'isQuantity/);
    expect(() => compileSelector('quantity("1").foo')).toThrow(/undefined field 'foo'|compilation failed/);
  });
});

describe('semver library', () => {
  it('parses, normalizes and orders versions as blang/semver', () => {
    allTrue([
      'isSemver("1.0.0") && !isSemver("hello") && !isSemver("v1.0") && isSemver("v1.0", true)',
      'semver("1.0", true) == semver("1.0.0") && semver("01.01.01", true) == semver("1.1.1")',
      'semver("1.2.3").compareTo(semver("1.2.3")) == 0',
      'semver("1.2.3").compareTo(semver("2.0.0")) == -1',
      'semver("1.2.3").compareTo(semver("0.1.2")) == 1',
      'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3',
      'semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))',
      'semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))',
      'semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))',
      'semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))',
      'semver("1.0.0+build.1") == semver("1.0.0+build.2")',
      'semver("1.10.0").isGreaterThan(semver("1.9.9"))',
      '!isSemver("1.2") && !isSemver("01.2.3") && !isSemver("1.2.3-") && !isSemver("1.2.3-01") && !isSemver("1.2.3+a..b")',
    ]);
  });

  it('reads version attributes as semver values', () => {
    allTrue([
      'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("535.0.0"))',
      'device.attributes["gpu.example.com"].driverVersion == semver("535.104.5")',
      'device.attributes["gpu.example.com"].firmware.exists(v, v.isGreaterThan(semver("1.9.0")))',
    ]);
  });

  it('rejects a device whose version attribute is not semver', () => {
    const bad: CelDevice = { ...device, attributes: { 'gpu.example.com': { driverVersion: { version: 'v1' } } } };
    expect(() => compileSelector('true').evaluate(bad)).toThrow(/^attribute driverVersion: parse semantic version: /);
  });
});

describe('lists, sets, strings and regex libraries', () => {
  it('implements the Kubernetes lists library', () => {
    allTrue([
      '[1, 2, 3].isSorted() && ["a", "b", "b", "c"].isSorted() && ![2.0, 1.0].isSorted() && [1].isSorted()',
      '[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0',
      '[1, 3].min() == 1 && [1, 3].max() == 3 && ["b", "a"].min() == "a" && [true, false].max()',
      '[1, 2, 2, 3].indexOf(2) == 1 && ["a", "b", "b", "c"].lastIndexOf("b") == 2 && [1.0].indexOf(1.1) == -1',
      'device.attributes["gpu.example.com"].numaNodes.sum() == 1',
    ]);
    expect(() => holds('[1].filter(x, x > 1).min() == 1')).toThrow('min called on empty list');
  });

  it('implements cel-go ext sets', () => {
    allTrue([
      'sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1, 2], [3])',
      'sets.equivalent([1, 2, 2], [2, 1]) && !sets.equivalent([1], [1, 2])',
      'sets.intersects([1, 2], [2, 5]) && !sets.intersects([1], [2])',
      'sets.contains(device.attributes["gpu.example.com"].profiles, ["3g.40gb"])',
    ]);
  });

  it('implements the ext strings functions', () => {
    allTrue([
      '"AbC".lowerAscii() == "abc" && "AbC".upperAscii() == "ABC"',
      '"a,b,c".split(",") == ["a", "b", "c"] && "a,b,c".split(",", 2) == ["a", "b,c"]',
      '["a", "b"].join("-") == "a-b" && ["a", "b"].join() == "ab"',
      '"hello".replace("l", "L") == "heLLo" && "hello".replace("l", "L", 1) == "heLlo"',
      '"hello".substring(1, 3) == "el" && "hello".charAt(1) == "e" && "hello".charAt(5) == ""',
      '"  x ".trim() == "x" && "hello".indexOf("l") == 2 && "hello".lastIndexOf("l") == 3',
      '"A100".startsWith("A") && "A100".endsWith("00") && "A100".contains("10")',
      'strings.quote("a\\"b") == "\\"a\\\\\\"b\\""',
      'device.attributes["gpu.example.com"].model.lowerAscii() == "a100"',
    ]);
  });

  it('implements the regex library', () => {
    allTrue([
      '"abc123".find("[0-9]+") == "123" && "abc".find("[0-9]+") == ""',
      '"a1b22c333".findAll("[0-9]+") == ["1", "22", "333"] && "a1b22c333".findAll("[0-9]+", 2) == ["1", "22"]',
      '"A100".matches("^A[0-9]+$")',
    ]);
  });

  it('binds names and supports optional values', () => {
    allTrue([
      'cel.bind(gpu, device.attributes["gpu.example.com"], gpu.model == "A100" && gpu.mig)',
      'device.attributes["gpu.example.com"].?vendor.orValue("none") == "none"',
      'device.attributes["gpu.example.com"].?model.hasValue()',
    ]);
  });
});

describe('device attributes', () => {
  it('exposes each attribute type and lists only with listTypeAttributes', () => {
    allTrue([
      'device.driver == "gpu.example.com"',
      'device.attributes["gpu.example.com"].memoryGiB >= 40',
      'device.attributes["gpu.example.com"].mig',
      'device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:00"',
      'device.attributes["gpu.example.com"].numaNodes.exists(n, n == 1)',
      'device.attributes["gpu.example.com"].profiles.includes("1g.10gb")',
      'device.attributes["gpu.example.com"].model.includes("A100")',
      '"model" in device.attributes["gpu.example.com"] && !("model" in device.attributes["absent.example.com"])',
      'device.attributes["absent.example.com"].size() == 0',
      'device.allowMultipleAllocations',
    ]);
    expect(() => compileSelector('device.attributes["gpu.example.com"].profiles.includes("x")')).toThrow(/found no matching overload|compilation failed/);
    expect(() => compileSelector('device.driver == "gpu.example.com"').evaluate(device)).toThrow('attribute numaNodes: unsupported attribute value');
  });

  it('exposes allowMultipleAllocations only with consumableCapacity, false when absent', () => {
    expect(() => compileSelector('device.allowMultipleAllocations')).toThrow("undefined field 'allowMultipleAllocations'");
    const single: CelDevice = { driver: 'd', attributes: {}, capacity: {} };
    expect(compileSelector('device.allowMultipleAllocations', { consumableCapacity: true }).evaluate(single)).toBe(false);
  });

  it('treats a missing domain as an empty map and a missing name as an error', () => {
    expect(() => holds('device.attributes["absent.example.com"].model == "x"')).toThrow('no such key: model');
    expect(() => holds('device.attributes["gpu.example.com"].vendor == "x"')).toThrow('no such key: vendor');
    // An error on one side of || or && does not matter when the other side decides, as in CEL.
    expect(holds('device.attributes["gpu.example.com"].vendor == "x" || true')).toBe(true);
    expect(holds('false && device.attributes["gpu.example.com"].vendor == "x"')).toBe(false);
  });

  it('uses the driver as the domain of unqualified names (the caller splits them)', () => {
    const d: CelDevice = { driver: 'd.example.com', attributes: { 'd.example.com': { type: { string: 'X' } } }, capacity: {} };
    expect(compileSelector('device.attributes["d.example.com"].type == "X"').evaluate(d)).toBe(true);
  });
});
