// Strict config and data files: the known keys of a file's shape, the first unknown key in a parsed
// document, and where a key stands in the file's text (line and column, 1-based) for messages such as
// `agents.toml:3:1: unknown key resource.allocation_mode (did you mean allocation-mode?)`.
// Pure (no I/O): the CLI reads the files, the page and embedders may call it too.
import { AllocationError } from './errors.js';
import { closestName } from './suggest.js';

/**
 * The keys a document may have. null: anything (a leaf, or a value checked elsewhere). A record:
 * only these keys, each with its shape; the key '*' stands for any other key. An array value is
 * checked item by item against the same shape (an array of tables).
 */
export type KeyShape = null | { readonly [key: string]: KeyShape };

/** One step of a path into a document: a key, or an array index. */
export type PathSegment = string | number;

/** A place in a file's text, 1-based. */
export type FilePosition = { line: number; column: number };

/** The first unknown key of a document: where it is, what it is, and the keys that were allowed there. */
export type UnknownKey = { path: PathSegment[]; key: string; known: string[]; closest?: string };

function _isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && !ArrayBuffer.isView(value);
}

/** The first key of `value` (in document order, depth first) that `shape` does not allow, or undefined. */
export function findUnknownKey(value: unknown, shape: KeyShape, path: PathSegment[] = []): UnknownKey | undefined {
  if (shape === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnknownKey(value[i], shape, [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!_isRecord(value)) return undefined;
  const own = (key: string) => Object.prototype.hasOwnProperty.call(shape, key);
  for (const key of Object.keys(value)) {
    if (!own(key) && !own('*')) {
      const known = Object.keys(shape).filter((k) => k !== '*');
      const closest = closestName(key, known);
      return { path: [...path, key], key, known, ...(closest === undefined ? {} : { closest }) };
    }
    const found = findUnknownKey(value[key], own(key) ? shape[key] : shape['*'], [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A path as messages write it: `agents[0].allocations.cuda`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** Splits a path as messages write it (`gpus[3].memoryTotal`) back into segments. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** The message of an unknown key: `unknown key PATH (did you mean KEY?)`, or the allowed keys when none is close. */
export function unknownKeyMessage(u: UnknownKey): string {
  const hint = u.closest !== undefined ? `did you mean ${u.closest}?` : u.known.length === 0 ? 'no keys are allowed here' : `allowed: ${u.known.join(', ')}`;
  return `unknown key ${formatPath(u.path)} (${hint})`;
}

/** Line and column (1-based) of a character offset in `text`. */
export function positionAt(text: string, offset: number): FilePosition {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** `FILE:LINE:COLUMN` (or just FILE when the place is unknown). */
export function formatPlace(file: string, at: FilePosition | undefined): string {
  return at === undefined ? file : `${file}:${at.line}:${at.column}`;
}

/**
 * Runs `fn`, a validation whose AllocationError names a field path in `error.field` and whose message
 * starts with `prefix`; when it throws one, the message says where that field stands in `text`:
 * `PREFIX…` becomes `LABEL:LINE:COL: …` (`position`: jsonPosition or tomlPosition). `root`: a start of
 * `error.field` that is not part of the path in the text (it is dropped from the field too).
 * Other errors, and fields not found in the text, are thrown as they are.
 */
export function withFieldPlace<T>(text: string, label: string, prefix: string, position: (text: string, path: readonly PathSegment[]) => FilePosition | undefined, fn: () => T, root = ''): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof AllocationError) || error.field === undefined || !error.message.startsWith(prefix)) throw error;
    const field = root !== '' && error.field.startsWith(root) ? error.field.slice(root.length).replace(/^\./, '') : error.field;
    const at = position(text, parsePath(field));
    if (at === undefined) throw error;
    throw new AllocationError(error.code, `${formatPlace(label, at)}: ${error.message.slice(prefix.length)}`, { field, cause: error, ...(error.details === undefined ? {} : { details: { ...error.details } }) });
  }
}

/**
 * Parses JSON text; a syntax error becomes `FILE:LINE:COLUMN: not valid JSON: …` through `fail`
 * (JSON.parse gives an offset; the line and column are counted from it).
 */
export function parseJsonText(text: string, file: string, fail: (message: string, cause: unknown) => never): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const message = (cause as Error).message;
    const offset = /at position (\d+)/.exec(message);
    const at = offset !== null ? positionAt(text, Number(offset[1])) : /Unexpected end of JSON input/.test(message) || text.trim() === '' ? positionAt(text, text.length) : undefined;
    return fail(`${formatPlace(file, at)}: not valid JSON: ${message.replace(/\s*(?:in JSON )?at position \d+.*$/, '')}`, cause);
  }
}

/** A small JSON scanner that finds where a path's key (or array item) starts, without building values. */
class _JsonScanner {
  pos = 0;
  constructor(private readonly text: string) {}

  private ws(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    while (this.pos < this.text.length && this.text[this.pos] !== '"') this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    this.pos++;
    try {
      return JSON.parse(this.text.slice(start, this.pos)) as string;
    } catch {
      return '';
    }
  }

  /** Steps over one value. */
  private skip(): void {
    this.ws();
    const c = this.text[this.pos];
    if (c === '"') {
      this.string();
      return;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (this.pos < this.text.length) {
        const ch = this.text[this.pos];
        if (ch === '"') {
          this.string();
          continue;
        }
        if (ch === '{' || ch === '[') depth++;
        else if (ch === '}' || ch === ']') depth--;
        this.pos++;
        if (depth === 0) return;
      }
      return;
    }
    while (this.pos < this.text.length && !/[\s,\]}]/.test(this.text[this.pos])) this.pos++;
  }

  /** The offset of the deepest part of `path` found (the key of the last segment found). */
  find(path: readonly PathSegment[]): number | undefined {
    let found: number | undefined;
    for (const seg of path) {
      this.ws();
      const c = this.text[this.pos];
      if (c === '{' && typeof seg === 'string') {
        this.pos++;
        let hit = false;
        for (;;) {
          this.ws();
          if (this.text[this.pos] !== '"') return found;
          const keyAt = this.pos;
          const key = this.string();
          this.ws();
          if (this.text[this.pos] !== ':') return found;
          this.pos++;
          if (key === seg) {
            found = keyAt;
            hit = true;
            break;
          }
          this.skip();
          this.ws();
          if (this.text[this.pos] !== ',') return found;
          this.pos++;
        }
        if (!hit) return found;
      } else if (c === '[' && typeof seg === 'number') {
        this.pos++;
        for (let i = 0; i < seg; i++) {
          this.skip();
          this.ws();
          if (this.text[this.pos] !== ',') return found;
          this.pos++;
        }
        this.ws();
        found = this.pos;
      } else return found;
    }
    return found;
  }
}

/** Where the key at `path` (or the array item) stands in JSON text; the deepest part found, else undefined. */
export function jsonPosition(text: string, path: readonly PathSegment[]): FilePosition | undefined {
  const offset = new _JsonScanner(text).find(path);
  return offset === undefined ? undefined : positionAt(text, offset);
}

/** Splits a TOML key (`a."b.c".d`) into its parts. */
function _tomlKeyParts(key: string): string[] {
  const parts: string[] = [];
  for (const m of key.matchAll(/\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/g)) parts.push(m[1] ?? m[2] ?? m[3]);
  return parts;
}

/**
 * Where the key at `path` is defined in TOML text: the line of `key = …` under its table header (or
 * dotted from a parent table), or of the `[table]` / `[[array]]` header itself; indices of arrays of
 * tables count their `[[name]]` headers. A line scanner, not a parser: the text parsed already.
 */
export function tomlPosition(text: string, path: readonly PathSegment[]): FilePosition | undefined {
  const want = path.map(String).join('\u0000');
  const counts = new Map<string, number>();
  let table: string[] = [];
  let best: FilePosition | undefined;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const header = /^(\s*)(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
    if (header !== null) {
      const parts = _tomlKeyParts(header[3]);
      // Resolve array-of-tables indices: [[agents]] counts, [agents.allocations] belongs to the latest one.
      const resolved: string[] = [];
      for (let k = 0; k < parts.length; k++) {
        resolved.push(parts[k]);
        const key = resolved.join('\u0000');
        const isLast = k === parts.length - 1;
        if (header[2] === '[[' && isLast) {
          const next = (counts.get(key) ?? -1) + 1;
          counts.set(key, next);
          resolved.push(String(next));
        } else if (counts.has(key)) resolved.push(String(counts.get(key)));
      }
      table = resolved;
      if (resolved.join('\u0000') === want || (header[2] === '[[' && resolved.slice(0, -1).join('\u0000') === want)) return { line: n + 1, column: header[1].length + header[2].length + 1 };
      continue;
    }
    const assign = /^(\s*)([A-Za-z0-9_"'.\- ]+?)\s*=/.exec(line);
    if (assign === null) continue;
    const full = [...table, ..._tomlKeyParts(assign[2])];
    const key = full.join('\u0000');
    if (key === want) return { line: n + 1, column: assign[1].length + 1 };
    // An inline table or a parent key: remember the line, look for the last segment on it.
    if (want.startsWith(key + '\u0000') && best === undefined) {
      const last = String(path[path.length - 1]);
      const at = line.indexOf(last, assign[0].length);
      best = { line: n + 1, column: (at === -1 ? assign[1].length : at) + 1 };
    }
  }
  return best;
}
