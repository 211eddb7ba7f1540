/**
 * Error wording: the evaluator's errors rewritten in cel-go's words where upstream's callers and
 * tests look for them ("undeclared reference to 'x'", "undefined field 'y'", "no such key: z",
 * "found no matching overload for '_>=_' applied to '(int, string)'", "no such overload"), with
 * cel-go's location line (`ERROR: <input>:1:5: ...`, at the operator or the call's parenthesis as
 * cel-go's parser places it) and source snippet.
 */
import { Quantity } from '../objects/index.js';
import { Semver } from './semver.js';

interface LibraryNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  checkedType?: { name: string };
}

interface LibraryError {
  code?: string;
  summary?: string;
  message?: string;
  range?: { start: number; end: number };
  name?: string;
  node?: LibraryNode;
}

/** cel-go's function names of the operators (common/operators). */
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
  '[]': '_[_]',
  '!_': '!_',
  '-_': '-_',
};

/**
 * The runtime types whose cel-go value has the trait an operator dispatches on (common/types/traits):
 * there the operand's own method answers "no such overload"; other operands get "no such overload: _op_".
 */
const OPERATOR_TRAITS: Readonly<Record<string, ReadonlySet<string>>> = {
  '+': new Set(['int', 'uint', 'double', 'string', 'bytes', 'list', 'google.protobuf.Timestamp', 'google.protobuf.Duration']),
  '-': new Set(['int', 'uint', 'double', 'google.protobuf.Timestamp', 'google.protobuf.Duration']),
  '*': new Set(['int', 'uint', 'double']),
  '/': new Set(['int', 'uint', 'double']),
  '%': new Set(['int', 'uint']),
  '<': new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'google.protobuf.Timestamp', 'google.protobuf.Duration']),
  '-_': new Set(['int', 'double', 'google.protobuf.Duration']),
};
for (const op of ['<=', '>', '>=']) (OPERATOR_TRAITS as Record<string, ReadonlySet<string>>)[op] = OPERATOR_TRAITS['<']!;

/** A type as cel-go's checker formats it (FormatCELType): `list(int)`, `map(string, dyn)`, `optional_type(int)`. */
export function celGoTypeName(name: string): string {
  return name
    .replace(/^dyn<(.*)>$/, '$1')
    .replace(/\boptional</g, 'optional_type<')
    .replace(/\bnull\b(?!_)/g, 'null_type')
    .replace(/</g, '(')
    .replace(/>/g, ')');
}

/** A runtime type as cel-go's `Type().TypeName()` has it: no parameters (`list`, `map`, `int`). */
function celGoRuntimeTypeName(name: string): string {
  const bare = name.replace(/^dyn<(.*)>$/, '$1');
  const generic = /^([\w.]+)</.exec(bare);
  return celGoTypeName(generic ? generic[1]! : bare);
}

/** The offset of a call's opening parenthesis or an operator's token, where cel-go places the call. */
function callOffset(expression: string, node: LibraryNode): number {
  const args = node.args as unknown[];
  switch (node.op) {
    case 'call':
      return Math.max(expression.indexOf('(', node.start), node.start);
    case 'rcall': {
      const receiver = args[1] as LibraryNode | undefined;
      return Math.max(expression.indexOf('(', receiver?.end ?? node.start), node.start);
    }
    case '!_':
    case '-_':
      return node.start;
    default: {
      const [left, right] = args as [LibraryNode | undefined, LibraryNode | undefined];
      if (left === undefined || right === undefined) return node.start;
      const token = node.op === '[]' ? '[' : node.op;
      const at = expression.slice(left.end, right.start).indexOf(token);
      return at < 0 ? node.start : left.end + at;
    }
  }
}

/** cel-go's checker error for an operator or a call no overload of which takes the operands' types. */
function overloadSummary(error: LibraryError, declared: (name: string) => boolean): string | undefined {
  const node = error.node;
  if (node === undefined) return undefined;
  const summary = error.summary ?? '';
  if (error.code === 'no_such_overload' && OPERATOR_FUNCTIONS[node.op] !== undefined) {
    const operands = (node.op === '!_' || node.op === '-_' ? [node.args] : (node.args as unknown[])) as LibraryNode[];
    const types = operands.map((o) => celGoTypeName(o.checkedType?.name ?? 'dyn'));
    return `found no matching overload for '${OPERATOR_FUNCTIONS[node.op]}' applied to '(${types.join(', ')})'`;
  }
  if (error.code === 'no_matching_overload' && (node.op === 'call' || node.op === 'rcall')) {
    const args = node.args as unknown[];
    const name = args[0] as string;
    if (!declared(name)) return `undeclared reference to '${name}' (in container '')`;
    const inner = /^found no matching overload for '(.*)'$/s.exec(summary)?.[1];
    if (inner === undefined) return undefined;
    const open = inner.lastIndexOf(`${node.op === 'rcall' ? '.' : ''}${name}(`);
    if (open < 0) return undefined;
    const params = splitTypes(inner.slice(open + name.length + (node.op === 'rcall' ? 2 : 1), -1)).map(celGoTypeName);
    const receiver = node.op === 'rcall' ? `${celGoTypeName(inner.slice(0, open))}.` : '';
    return `found no matching overload for '${name}' applied to '${receiver}(${params.join(', ')})'`;
  }
  return undefined;
}

/** Splits a comma-separated type list at the top level (`map<string, int>, int` is two types). */
function splitTypes(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (list.trim() !== '') out.push(list.slice(start).trim());
  return out;
}

/** Line and 1-based column of a source offset. */
function position(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = source.indexOf('\n', offset);
  return { line, column: offset - lineStart + 1, text: source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd) };
}

function compileSummary(error: LibraryError, declared: (name: string) => boolean): string {
  const summary = error.summary ?? error.message ?? String(error);
  const overload = overloadSummary(error, declared);
  if (overload !== undefined) return overload;
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

/**
 * cel-go's compile error text: `compilation failed: ERROR: <input>:L:C: message` and the source
 * line with a caret. `declared` tells whether the environment has a function of that name (an
 * unknown one is an undeclared reference in cel-go, not an overload mismatch).
 */
export function compileMessage(expression: string, error: unknown, declared: (name: string) => boolean = () => true): string {
  const e = (error ?? {}) as LibraryError;
  const summary = compileSummary(e, declared);
  const isCall = e.node !== undefined && (e.code === 'no_such_overload' || e.code === 'no_matching_overload');
  const start = isCall ? callOffset(expression, e.node!) : (e.range?.start ?? 0);
  const offset = Math.min(Math.max(start, 0), expression.length);
  const { line, column, text } = position(expression, offset);
  return `compilation failed: ERROR: <input>:${line}:${column}: ${summary}\n | ${text}\n | ${'.'.repeat(column - 1)}^`;
}

/**
 * cel-go's runtime error text for an evaluator error (`no such key: model`), an operator or call
 * on values of the wrong type (`no such overload`, `no such overload: contains(int, string)`) or a
 * library function's error.
 */
export function runtimeMessage(error: unknown): string {
  const e = error as LibraryError;
  const summary = e?.summary ?? e?.message ?? String(error);
  const key = /^No such key: (.*)$/s.exec(summary);
  if (key) return `no such key: ${key[1]}`;
  const node = e?.node;
  if (e?.code === 'no_such_overload' && node !== undefined && OPERATOR_FUNCTIONS[node.op] !== undefined) {
    // cel-go dispatches on the first operand's traits: one that has the trait answers itself.
    const unary = node.op === '!_' || node.op === '-_';
    const rest = summary.replace(/^no such overload: /, '');
    const first = unary ? rest.slice(1) : rest.slice(0, rest.indexOf(` ${node.op} `));
    const traits = OPERATOR_TRAITS[node.op];
    if (node.op === '!_' || traits?.has(celGoRuntimeTypeName(first)) === true) return 'no such overload';
    return `no such overload: ${OPERATOR_FUNCTIONS[node.op]}`;
  }
  if (e?.code === 'no_matching_overload' && node !== undefined && (node.op === 'call' || node.op === 'rcall')) {
    const name = (node.args as unknown[])[0] as string;
    const inner = /^found no matching overload for '(.*)'$/s.exec(summary)?.[1];
    const open = inner === undefined ? -1 : inner.lastIndexOf(`${name}(`);
    if (inner !== undefined && open >= 0) {
      const receiver = node.op === 'rcall' ? [inner.slice(0, open - 1)] : [];
      const args = splitTypes(inner.slice(open + name.length + 1, -1));
      return `no such overload: ${name}(${[...receiver, ...args].map(celGoRuntimeTypeName).join(', ')})`;
    }
  }
  return summary;
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
