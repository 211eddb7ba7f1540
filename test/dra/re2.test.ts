// RE2 semantics for CEL's regular expressions: linear time, Go's syntax and its error wording.
import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { pointMatchesAtRe2, RegexSyntaxError, regexFind, regexFindAll, regexMatches, registerRe2 } from '../../src/dra/testing.js';

describe('RE2 regular expressions', () => {
  it('answers a pathological pattern on a 40-character string at once (JavaScript backtracks for minutes)', () => {
    const started = performance.now();
    expect(regexMatches(`${'a'.repeat(40)}!`, '^(a+)+$')).toBe(false);
    expect(regexMatches('a'.repeat(40), '^(a+)+$')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('is unanchored like Go MatchString; find and findAll as the Kubernetes regex library', () => {
    expect(regexMatches('gpu-0-mig-1g10gb-19-0', 'mig-1g')).toBe(true);
    expect(regexFind('abc 123 def 456', '[0-9]+')).toBe('123');
    expect(regexFind('abc', '[0-9]+')).toBe('');
    expect(regexFindAll('a1b22c333', '[0-9]+', -1n)).toEqual(['1', '22', '333']);
    expect(regexFindAll('a1b22c333', '[0-9]+', 2n)).toEqual(['1', '22']);
    expect(regexFindAll('a1b22c333', '[0-9]+', 0n)).toEqual([]);
  });

  it("refuses what RE2 refuses, in Go's words", () => {
    expect(() => regexMatches('x', '(?=x)')).toThrow(RegexSyntaxError);
    expect(() => regexMatches('x', 'a(')).toThrow('error parsing regexp: missing closing ): `a(`');
    expect(() => regexMatches('aa', '(a)\\1')).toThrow(/error parsing regexp/);
  });

  it('points s.matches(re) of a CEL expression at RE2, also inside macros', () => {
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
    registerRe2(env);
    const program = env.parse(`'${'a'.repeat(30)}!'.matches('^(a+)+$') || ['x1', 'y2'].exists(s, s.matches('^y[0-9]$'))`);
    expect(pointMatchesAtRe2(program.ast, env)).toBe(2);
    expect(program.check().valid).toBe(true);
    const started = performance.now();
    expect(program({})).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
