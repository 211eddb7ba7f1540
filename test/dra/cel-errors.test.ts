// Compile and runtime errors of DRA selectors carry upstream's wording and the expression; the
// cost bound rejects runaway expressions at compile time; SelectorCache compiles each expression
// once per feature set.

import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/dra/cel/cost.js';
import { CelCompileError, type CelDevice, CelRuntimeError, compileSelector, prepareDevice, SelectorCache } from '../../src/dra/testing.js';

const device: CelDevice = { driver: 'driver-a', attributes: { 'driver-a': { model: { string: 'm' } } }, capacity: {} };

function compileError(expression: string): CelCompileError {
  try {
    compileSelector(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(CelCompileError);
    expect((error as CelCompileError).expression).toBe(expression);
    return error as CelCompileError;
  }
  throw new Error(`${expression} compiled`);
}

describe('compile errors', () => {
  it('words an unknown identifier as cel-go does, with location and snippet', () => {
    expect(compileError('noSuchVar').message).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n | noSuchVar\n | ^");
    expect(compileError('device.driver == x').message).toContain("<input>:1:18: undeclared reference to 'x'");
  });

  it('reports an unknown field of device, a syntax error and a non-bool result', () => {
    expect(compileError('device.model == "x"').message).toContain("undefined field 'model'");
    expect(compileError('device.driver ==').message).toMatch(/^compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
    expect(compileError('device.driver').message).toBe('must evaluate to bool or the unknown type, not string');
    expect(compileError('1 + 1').message).toContain('must evaluate to bool');
    expect(compileError('device.attributes["a"].b.size()').message).toBe('must evaluate to bool or the unknown type, not int');
  });

  it('accepts an attribute (the unknown type) as the whole expression, checking bool at run time', () => {
    const selector = compileSelector('device.attributes["driver-a"].model');
    expect(() => selector.evaluate(device)).toThrow(CelRuntimeError);
    expect(() => selector.evaluate(device)).toThrow('CEL result of type string could not be converted to bool');
    const flag: CelDevice = { driver: 'driver-a', attributes: { 'driver-a': { model: { bool: true } } }, capacity: {} };
    expect(selector.evaluate(flag)).toBe(true);
  });

  it('puts the location on the right line of a multi-line expression', () => {
    expect(compileError('device.driver == "a" &&\n  nope').message).toContain("<input>:2:3: undeclared reference to 'nope'");
  });
});

describe('overload errors, worded as cel-go words them', () => {
  it('names the operator function and the operand types at the operator', () => {
    expect(compileError('quantity("1") >= quantity("2")').message).toBe(
      'compilation failed: ERROR: <input>:1:15: found no matching overload for \'_>=_\' applied to \'(kubernetes.Quantity, kubernetes.Quantity)\'\n | quantity("1") >= quantity("2")\n | ..............^',
    );
    expect(compileError('114 + "514" == 1').message).toContain("<input>:1:5: found no matching overload for '_+_' applied to '(int, string)'");
    expect(compileError('device.attributes["a"].b.size() > "x"').message).toContain("found no matching overload for '_>_' applied to '(int, string)'");
    expect(compileError('[1] + ["a"] == []').message).toContain("found no matching overload for '_+_' applied to '(list(int), list(string))'");
  });

  it('names a function with its receiver and arguments at the call, and an unknown function as undeclared', () => {
    expect(compileError('size(1) == 1').message).toContain("<input>:1:5: found no matching overload for 'size' applied to '(int)'");
    expect(compileError('device.driver.contains(1)').message).toContain("<input>:1:23: found no matching overload for 'contains' applied to 'string.(int)'");
    expect(compileError('quantity("1").isGreaterThan(1)').message).toContain("found no matching overload for 'isGreaterThan' applied to 'kubernetes.Quantity.(int)'");
    expect(compileError('nope(1)').message).toContain("<input>:1:5: undeclared reference to 'nope' (in container '')");
    expect(compileError('device.driver.nope()').message).toContain("undeclared reference to 'nope' (in container '')");
  });

  it('says "no such overload" when an attribute of the wrong type meets an operator or a function at run time', () => {
    const typed: CelDevice = { driver: 'driver-a', attributes: { 'driver-a': { model: { string: 'm' }, count: { int: 3n } } }, capacity: {} };
    const cases: Array<[string, string]> = [
      ['device.attributes["driver-a"].model >= 3', 'no such overload'],
      ['device.attributes["driver-a"].count + "x" == "y"', 'no such overload'],
      ['device.attributes["driver-a"].model * 2 == 1', 'no such overload: _*_'],
      ['-device.attributes["driver-a"].model == 1', 'no such overload: -_'],
      ['device.attributes["driver-a"].count.contains("a")', 'no such overload: contains(int, string)'],
    ];
    for (const [expression, message] of cases) {
      expect(() => compileSelector(expression).evaluate(typed), expression).toThrow(CelRuntimeError);
      expect(() => compileSelector(expression).evaluate(typed), expression).toThrow(new RegExp(`^${message.replace(/[()*+-]/g, '\\$&')}$`));
    }
    // Equality of different types is false in CEL, not an error.
    expect(compileSelector('device.attributes["driver-a"].model == 3').evaluate(typed)).toBe(false);
  });
});

describe('runtime errors', () => {
  it('names the missing key, the unusable attribute and the failing function', () => {
    const cases: Array<[string, CelDevice, string]> = [
      ['device.attributes["driver-a"].other == "x"', device, 'no such key: other'],
      ['device.driver == "driver-a"', { ...device, attributes: { 'driver-a': { broken: {} } } }, 'attribute broken: unsupported attribute value'],
      ['device.driver == "driver-a"', { ...device, attributes: { 'x.example.com': { list: { strings: ['a'] } } } }, 'attribute x.example.com/list: unsupported attribute value'],
      ['quantity(device.driver).sign() == 1', device, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
      ['quantity("1" + device.attributes["driver-a"].model + "m").sign() == 1', device, "unable to parse quantity's suffix"],
    ];
    for (const [expression, d, message] of cases) {
      let caught: unknown;
      try {
        compileSelector(expression).evaluate(d);
      } catch (error) {
        caught = error;
      }
      expect(caught, expression).toBeInstanceOf(CelRuntimeError);
      expect((caught as CelRuntimeError).message, expression).toBe(message);
      expect((caught as CelRuntimeError).expression).toBe(expression);
    }
  });
});

describe('prepared devices', () => {
  it('evaluates like the device itself, and reports a conversion error at evaluation with the expression', () => {
    const selector = compileSelector('device.attributes["driver-a"].model == "m"');
    expect(selector.evaluate(prepareDevice(device))).toBe(true);
    const broken = prepareDevice({ ...device, attributes: { 'driver-a': { model: {} } } });
    expect(() => selector.evaluate(broken)).toThrow(CelRuntimeError);
    expect(() => selector.evaluate(broken)).toThrow('attribute model: unsupported attribute value');
  });

  it('refuses a device prepared for other features', () => {
    const selector = compileSelector('device.driver == "driver-a"', { consumableCapacity: true });
    expect(() => selector.evaluate(prepareDevice(device))).toThrow(/prepared for features/);
    expect(selector.evaluate(prepareDevice(device, { consumableCapacity: true }))).toBe(true);
  });
});

describe('cost bound', () => {
  const nested = (depth: number, length: number): string => {
    const list = `[${Array.from({ length }, (_, i) => i).join(', ')}]`;
    let body = 'true';
    for (let i = depth; i > 0; i--) body = `${list}.all(x${i}, ${body})`;
    return body;
  };

  it('estimates comprehensions as range size times body', () => {
    const env = new Environment({ unlistedVariablesAreDyn: true });
    const one = estimateCost(env.parse(nested(1, 100)).ast);
    const two = estimateCost(env.parse(nested(2, 100)).ast);
    expect(one).toBeGreaterThanOrEqual(100);
    expect(two).toBeGreaterThanOrEqual(100 * 100);
    expect(estimateCost(env.parse('device.driver == "a"').ast)).toBeLessThan(10);
  });

  it('rejects at compile time what would run away, and keeps what upstream selectors do', () => {
    expect(compileError(nested(3, 200)).message).toMatch(/^too complex, exceeds cost limit \(estimated worst-case cost .*, limit 1000000\)$/);
    expect(() => compileSelector(nested(2, 50))).not.toThrow();
    expect(() => compileSelector('device.attributes["driver-a"].model.split(",").exists(p, p == "m")')).not.toThrow();
    expect(() => compileSelector(nested(2, 50), {}, { costLimit: 100 })).toThrow(/exceeds cost limit .*limit 100\)/);
  });
});

describe('SelectorCache', () => {
  it('compiles each expression once per feature set and keeps compile errors', () => {
    const cache = new SelectorCache();
    const a = cache.get('device.driver == "driver-a"');
    expect(cache.get('device.driver == "driver-a"')).toBe(a);
    expect(cache.get('device.driver == "driver-a"', { consumableCapacity: true })).not.toBe(a);
    expect(cache.size).toBe(2);
    expect(() => cache.get('nope')).toThrow(CelCompileError);
    expect(() => cache.get('nope')).toThrow("undeclared reference to 'nope'");
    expect(cache.size).toBe(3);
    expect(a.evaluate(device)).toBe(true);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('drops the oldest expression past its bound', () => {
    const cache = new SelectorCache({ maxEntries: 2 });
    const first = cache.get('true');
    cache.get('false');
    cache.get('1 == 1');
    expect(cache.size).toBe(2);
    expect(cache.get('true')).not.toBe(first);
  });
});
