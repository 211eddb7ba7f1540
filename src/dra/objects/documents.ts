// The text `kubectl get … -o json` or `-o yaml` writes, read into plain values: one JSON value, or
// the documents of a YAML stream (`---` between them). Errors say FILE:LINE:COL. Positions of
// values inside the documents are found again only when a message needs one (no index is kept for
// JSON; YAML keeps its parsed nodes). Pure: the CLI reads the file or standard input. YAML needs
// the optional package `yaml`, imported on the first YAML text (JSON needs nothing more).
import type { Document } from 'yaml';
import { AllocationError, type FilePosition, type PathSegment } from '../../shared/errors.js';
import { jsonPosition, parseJson, positionAt } from '../../shared/file-positions.js';
import { importOptional } from '../../shared/optional.js';

/** Most aliases a YAML stream may expand (the yaml package's default), against alias bombs. */
export const MAX_YAML_ALIASES = 100;

/** The values of a text and where each one stands. */
export interface DraDocuments {
  /** `json` when the text is one JSON value, else `yaml`. */
  format: 'json' | 'yaml';
  /** One value per document, empty documents left out, in text order. */
  values: unknown[];
  /** Line and column of the value at `path` inside document `doc` (an index into `values`), when found. */
  positionOf(doc: number, path: readonly PathSegment[]): FilePosition | undefined;
}

function tooDeep(origin: string, cause: unknown): AllocationError {
  return AllocationError.of('LIMIT_EXCEEDED', { origin, detail: 'nested too deeply to read', cause });
}

/**
 * Reads JSON (text starting with `{` or `[`) or a YAML stream. A syntax error, a duplicate key
 * or an alias past MAX_YAML_ALIASES is AllocationError('INVALID_ARGUMENT') at FILE:LINE:COL; YAML
 * where the optional package `yaml` is not installed is AllocationError('MISSING_DEPENDENCY').
 */
export async function readDocuments(text: string, origin: string): Promise<DraDocuments> {
  const start = text.search(/\S/);
  if (start < 0) return { format: 'yaml', values: [], positionOf: () => undefined };
  if (text[start] === '{' || text[start] === '[') {
    let value: unknown;
    try {
      value = parseJson(text, 'INVALID_ARGUMENT', origin);
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep(origin, error);
      throw error;
    }
    return { format: 'json', values: [value], positionOf: (_doc, path) => jsonPosition(text, path) };
  }
  const { LineCounter, parseAllDocuments } = await importOptional('yaml', 'a cluster dump in YAML', () => import('yaml'));
  const lines = new LineCounter();
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true }) as Document.Parsed[];
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(origin, error);
    throw error;
  }
  if (!Array.isArray(docs)) docs = [];
  const kept: Document.Parsed[] = [];
  const values: unknown[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem !== undefined) {
      const where = positionAt(text, problem.pos[0]);
      const said = problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw AllocationError.of('INVALID_ARGUMENT', { origin, position: where, detail: `not valid YAML: ${said}`, cause: problem });
    }
    if (doc.contents === null) continue;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep(origin, error);
      const at = doc.contents.range?.[0] ?? 0;
      throw AllocationError.of('INVALID_ARGUMENT', { origin, position: positionAt(text, at), detail: `not valid YAML: ${(error as Error).message}`, cause: error });
    }
    if (value === null || value === undefined) continue;
    kept.push(doc);
    values.push(value);
  }
  return {
    format: 'yaml',
    values,
    positionOf(doc, path) {
      const node = kept[doc]?.getIn(path, true) as { range?: [number, number, number] } | undefined;
      if (node === undefined || node === null || node.range === undefined) return undefined;
      const { line, col } = lines.linePos(node.range[0]);
      return { line, column: col };
    },
  };
}

/** One Kubernetes object of a text: the document it is in and its path there (`items[3]`). */
export interface PlacedObject {
  object: unknown;
  doc: number;
  path: PathSegment[];
  /** The item kind a typed List gives (`ResourceSliceList` → `ResourceSlice`), for items that omit it. */
  listKind?: string;
}

/** The objects of the documents: Lists (`kind: List`, `<Kind>List`) and arrays opened, in text order. */
export function objectsOf(values: readonly unknown[]): PlacedObject[] {
  const out: PlacedObject[] = [];
  const walk = (value: unknown, doc: number, path: PathSegment[], listKind: string | undefined, depth: number): void => {
    if (Array.isArray(value)) {
      // A plain array of objects (what some tools write instead of a List); nested arrays are not opened.
      if (depth > 0) return void out.push({ object: value, doc, path });
      value.forEach((item, i) => walk(item, doc, [...path, i], undefined, depth + 1));
      return;
    }
    const kind = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).kind : undefined;
    if (typeof kind === 'string' && kind.endsWith('List') && depth < 2 && Object.hasOwn(value as object, 'items')) {
      const items = (value as Record<string, unknown>).items;
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
      if (Array.isArray(items)) items.forEach((item, i) => out.push({ object: item, doc, path: [...path, 'items', i], ...(itemKind !== undefined ? { listKind: itemKind } : {}) }));
      else if (items !== null && items !== undefined) out.push({ object: value, doc, path });
      return;
    }
    out.push({ object: value, doc, path, ...(listKind !== undefined ? { listKind } : {}) });
  };
  values.forEach((value, doc) => walk(value, doc, [], undefined, 0));
  return out;
}
