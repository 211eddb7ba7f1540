/**
 * Error wording: the evaluator's errors rewritten in cel-go's words where upstream's callers and
 * tests look for them ("undeclared reference to 'x'", "undefined field 'y'", "no such key: z"),
 * with cel-go's location line (`ERROR: <input>:1:5: ...`) and source snippet.
 */
import { Quantity } from '../objects/index.js';
import { Semver } from './semver.js';

interface LibraryError {
  code?: string;
  summary?: string;
  message?: string;
  range?: { start: number; end: number };
  name?: string;
}

/** Line and 1-based column of a source offset. */
function position(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = source.indexOf('\n', offset);
  return { line, column: offset - lineStart + 1, text: source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd) };
}

function compileSummary(error: LibraryError): string {
  const summary = error.summary ?? error.message ?? String(error);
  switch (error.code) {
    case 'unknown_variable': {
      const name = /^Unknown variable: (.*)$/.exec(summary)?.[1] ?? summary;
      return `undeclared reference to '${name}' (in container '')`;
    }
    case 'no_such_key': {
      const field = /^No such key: (.*)$/.exec(summary)?.[1];
      return field === undefined ? summary : `undefined field '${field}'`;
    }
    default:
      return error.name === 'ParseError' ? `Syntax error: ${summary}` : summary;
  }
}

/** cel-go's compile error text: `compilation failed: ERROR: <input>:L:C: message` and the source line with a caret. */
export function compileMessage(expression: string, error: unknown): string {
  const e = (error ?? {}) as LibraryError;
  const summary = compileSummary(e);
  const offset = Math.min(Math.max(e.range?.start ?? 0, 0), expression.length);
  const { line, column, text } = position(expression, offset);
  return `compilation failed: ERROR: <input>:${line}:${column}: ${summary}\n | ${text}\n | ${'.'.repeat(column - 1)}^`;
}

/** cel-go's runtime error text for an evaluator error (`no such key: model`) or a library function's error. */
export function runtimeMessage(error: unknown): string {
  const e = error as LibraryError;
  const summary = e?.summary ?? e?.message ?? String(error);
  const key = /^No such key: (.*)$/s.exec(summary);
  return key ? `no such key: ${key[1]}` : summary;
}

/** The CEL type name of a runtime value, for upstream's "CEL result of type X" message. */
export function runtimeTypeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'string') return 'string';
  if (value instanceof Quantity) return 'kubernetes.Quantity';
  if (value instanceof Semver) return 'kubernetes.Semver';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map) return 'map';
  if (value instanceof Uint8Array) return 'bytes';
  return typeof value;
}
