// The runtime cost limit of a selector, as cel-go's CostTracker applies upstream's
// CELSelectorExpressionMaxCost: an evaluation past it stops with cel-go's "operation cancelled:
// actual cost limit exceeded", in bounded time, whatever the expression builds; one under it
// answers as before, and the next evaluation starts from zero.
import { describe, expect, it } from 'vitest';
import { type CelDevice, CelRuntimeError, COST_LIMIT_EXCEEDED, compileSelector, DEFAULT_COST_LIMIT } from '../../src/dra/testing.js';

const device: CelDevice = { driver: 'driver-a', attributes: { 'driver-a': { model: { string: 'm' } } }, capacity: {} };
const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
const nested = (depth: number, length: number): string => {
  let body = 'true';
  for (let i = depth; i > 0; i--) body = `${list(length)}.all(x${i}, ${body})`;
  return body;
};
const NO_ESTIMATE = { disableCostEstimation: true };

function runtimeError(expression: string, options: Parameters<typeof compileSelector>[2] = NO_ESTIMATE): CelRuntimeError {
  const selector = compileSelector(expression, {}, options);
  try {
    selector.evaluate(device);
  } catch (error) {
    expect(error).toBeInstanceOf(CelRuntimeError);
    return error as CelRuntimeError;
  }
  throw new Error(`${expression} evaluated within the limit`);
}

describe('runtime cost limit', () => {
  it('is upstream CELSelectorExpressionMaxCost', () => {
    expect(DEFAULT_COST_LIMIT).toBe(1_000_000);
    expect(COST_LIMIT_EXCEEDED).toBe('operation cancelled: actual cost limit exceeded');
  });

  it('stops nested comprehensions past the limit with cel-go wording, in bounded time', () => {
    const started = process.hrtime.bigint();
    // 200^3 steps: eight million, past the limit after about a million.
    expect(runtimeError(nested(3, 200)).message).toBe('operation cancelled: actual cost limit exceeded');
    // exists keeps going past a failing step; the evaluation fails all the same.
    expect(runtimeError(`${list(200)}.exists(a, ${list(200)}.exists(b, ${list(200)}.exists(c, c < 0)))`).message).toBe(COST_LIMIT_EXCEEDED);
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(30);
  });

  it('charges for the values a program builds, so doubling strings and lists cannot run away', () => {
    let body = 'v != ""';
    for (let i = 0; i < 40; i++) body = `cel.bind(v, v + v, ${body})`;
    expect(runtimeError(`cel.bind(v, "aaaa", ${body})`).message).toBe(COST_LIMIT_EXCEEDED);
    let lists = 'v.size() > 0';
    for (let i = 0; i < 40; i++) lists = `cel.bind(v, v + v, ${lists})`;
    expect(runtimeError(`cel.bind(v, [1], ${lists})`, { disableCostEstimation: true, costLimit: 10_000 }).message).toBe(COST_LIMIT_EXCEEDED);
  });

  it('answers under the limit, reports the cost, and starts each evaluation from zero', () => {
    const selector = compileSelector(nested(2, 100), {}, NO_ESTIMATE);
    expect(selector.evaluate(device)).toBe(true);
    const cost = selector.lastCost;
    expect(cost).toBeGreaterThan(100 * 100);
    expect(cost).toBeLessThan(DEFAULT_COST_LIMIT);
    expect(selector.evaluate(device)).toBe(true);
    expect(selector.lastCost).toBe(cost);
    const small = compileSelector('device.driver == "driver-a"');
    expect(small.evaluate(device)).toBe(true);
    expect(small.lastCost).toBeGreaterThan(0);
    expect(small.lastCost).toBeLessThan(10);
  });

  it('takes a caller limit, as upstream Options.CostLimit', () => {
    const selector = compileSelector(nested(2, 20), {}, { costLimit: 100, disableCostEstimation: true });
    expect(() => selector.evaluate(device)).toThrow(COST_LIMIT_EXCEEDED);
    expect(compileSelector(nested(2, 20), {}, { costLimit: 10_000 }).evaluate(device)).toBe(true);
  });
});
