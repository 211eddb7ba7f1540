/**
 * CEL's regular expressions with RE2 semantics, as cel-go has them (Go's regexp package: RE2 syntax,
 * linear time in the input, no backreferences or lookaround). `matches`, `find` and `findAll` run
 * on re2js, a port of RE2/J; a pattern Go refuses is refused with Go's wording ("error parsing
 * regexp: missing closing ): `a(`"). The CEL library of this package has `matches` as a method of
 * string with JavaScript's backtracking RegExp and no way to replace an overload, so selectors are
 * compiled with every `s.matches(re)` call pointed at the global `matches(s, re)` (cel-go has both
 * forms) registered here.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** Most compiled patterns kept; past it the oldest is dropped (cel-go compiles a constant pattern once per program). */
export const MAX_COMPILED_PATTERNS = 1000;

/** A pattern RE2 refuses, worded as Go's regexp.Compile words it. */
export class RegexSyntaxError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RegexSyntaxError';
  }
}

const compiled = new Map<string, RE2JS>();

/** The compiled pattern (kept for the next call with the same text). */
export function compilePattern(pattern: string): RE2JS {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    throw new RegexSyntaxError((error as Error).message, { cause: error });
  }
  if (compiled.size >= MAX_COMPILED_PATTERNS) compiled.delete(compiled.keys().next().value!);
  compiled.set(pattern, re);
  return re;
}

/** `s.matches(re)`: whether the pattern matches anywhere in `s` (not anchored, as Go's MatchString). */
export function regexMatches(s: string, pattern: string): boolean {
  return compilePattern(pattern).matcher(s).find();
}

/** `s.find(re)`: the leftmost match, or "" (the Kubernetes regex library). */
export function regexFind(s: string, pattern: string): string {
  const m = compilePattern(pattern).matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

/** `s.findAll(re, limit)`: the matches left to right, at most `limit` of them (negative: all). */
export function regexFindAll(s: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const m = compilePattern(pattern).matcher(s);
  const out: string[] = [];
  while ((limit < 0n || BigInt(out.length) < limit) && m.find()) out.push(m.group() ?? '');
  return out;
}

/** Registers the global `matches(string, string): bool` on `env` (the method form is rewritten to it; see pointMatchesAtRe2). */
export function registerRe2(env: Environment): void {
  env.registerFunction('matches(string, string): bool', regexMatches);
}

interface AstLike {
  op: string;
  args: unknown;
  pos: number;
  start: number;
  end: number;
  setMeta(key: string, value: unknown): unknown;
}

function isNode(value: unknown): value is AstLike {
  return value !== null && typeof value === 'object' && typeof (value as { op?: unknown }).op === 'string' && 'args' in value;
}

/**
 * Points every `x.matches(y)` of a parsed expression at the global `matches(x, y)` of `env` (an
 * alternate node, which the checker and the evaluator then use): a walk of the tree, before the
 * expression is checked. Returns how many calls were pointed.
 */
export function pointMatchesAtRe2(ast: unknown, env: Environment): number {
  let count = 0;
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (isNode(value)) {
      const args = value.args;
      if (value.op === 'rcall' && Array.isArray(args) && args[0] === 'matches' && Array.isArray(args[2]) && args[2].length === 1) {
        const call = env.parse('matches(a, b)').ast as unknown as AstLike;
        const callArgs = call.args as [string, unknown[]];
        callArgs[1][0] = args[1];
        callArgs[1][1] = args[2][0];
        call.pos = value.pos;
        call.start = value.start;
        call.end = value.end;
        value.setMeta('alternate', call);
        count++;
      }
      stack.push(args);
    } else {
      // Comprehension arguments are a record of nodes.
      for (const key of Object.keys(value)) stack.push((value as Record<string, unknown>)[key]);
    }
  }
  return count;
}
