// Where a field stands in a file's text: line and column (1-based) of a path's key in JSON or TOML
// text, and JSON parsing whose syntax errors say the line and column. Pure (no I/O): the CLI reads
// the files; the page and embedders may call it too. The key checks themselves are in validate.ts.
import { AllocationError, type AllocationErrorCode, type FilePosition, type PathSegment } from './errors.js';

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

/**
 * Parses JSON text; a syntax error is AllocationError(code) at the line and column where the parser
 * stopped (JSON.parse gives an offset; the line and column are counted from it), from `origin`.
 */
export function parseJson(text: string, code: AllocationErrorCode, origin: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const reason = (cause as Error).message;
    const offset = /at position (\d+)/.exec(reason);
    const position = offset !== null ? positionAt(text, Number(offset[1])) : /Unexpected end of JSON input/.test(reason) || text.trim() === '' ? positionAt(text, text.length) : undefined;
    const said = reason.replace(/\s*(?:in JSON )?at position \d+.*$/, '');
    throw AllocationError.of(code, { origin, ...(position === undefined ? {} : { position }), detail: `not valid JSON: ${said}`, cause });
  }
}

/** A small JSON scanner that finds where a path's key (or array item) starts, without building values. */
class _JsonScanner {
  pos = 0;
  constructor(private readonly text: string) {}

  private ws(): void {
    while (this.pos < this.text.length && /\s/.test(this.text.charAt(this.pos))) this.pos++;
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    while (this.pos < this.text.length && this.text[this.pos] !== '"') this.pos += this.text.charAt(this.pos) === '\\' ? 2 : 1;
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
    while (this.pos < this.text.length && !/[\s,\]}]/.test(this.text.charAt(this.pos))) this.pos++;
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
  for (const m of key.matchAll(/\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/g)) parts.push(m[1] ?? m[2] ?? m[3]!); // one of the three alternatives matched
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
    const line = lines[n]!; // n < lines.length
    const header = /^(\s*)(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
    if (header !== null) {
      const parts = _tomlKeyParts(header[3]!); // the header's groups are not optional
      // Resolve array-of-tables indices: [[agents]] counts, [agents.allocations] belongs to the latest one.
      const resolved: string[] = [];
      for (let k = 0; k < parts.length; k++) {
        resolved.push(parts[k]!);
        const key = resolved.join('\u0000');
        const isLast = k === parts.length - 1;
        if (header[2] === '[[' && isLast) {
          const next = (counts.get(key) ?? -1) + 1;
          counts.set(key, next);
          resolved.push(String(next));
        } else if (counts.has(key)) resolved.push(String(counts.get(key)));
      }
      table = resolved;
      if (resolved.join('\u0000') === want || (header[2] === '[[' && resolved.slice(0, -1).join('\u0000') === want)) return { line: n + 1, column: header[1]!.length + header[2]!.length + 1 };
      continue;
    }
    const assign = /^(\s*)([A-Za-z0-9_"'.\- ]+?)\s*=/.exec(line);
    if (assign === null) continue;
    const full = [...table, ..._tomlKeyParts(assign[2]!)]; // the assignment's groups are not optional
    const key = full.join('\u0000');
    if (key === want) return { line: n + 1, column: assign[1]!.length + 1 };
    // An inline table or a parent key: remember the line, look for the last segment on it.
    if (want.startsWith(key + '\u0000') && best === undefined) {
      const last = String(path[path.length - 1]);
      const at = line.indexOf(last, assign[0].length);
      best = { line: n + 1, column: (at === -1 ? assign[1]!.length : at) + 1 };
    }
  }
  return best;
}
