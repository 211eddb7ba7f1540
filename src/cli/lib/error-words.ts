// Errors in the CLI's words, the one place that says an AllocationError for a person at a terminal:
// the API field it is about (`size`, `tensorParallelSizes[0]`, `options.contextLength`) becomes the
// flag that sets it (`--size`, `--tp (item 1)`, `--context`), and an error about a file the CLI read
// is said at its place, `LABEL:LINE:COL`. Both work from the error's parts (path, detail, origin),
// never from its message.
import { AllocationError, type FilePosition, formatPath, type PathSegment, parsePath } from '../../shared/errors.js';

/** API field (or path prefix, such as `options.contextLength`) → the flag that sets it. */
export type FlagsOfFields = Readonly<Record<string, string>>;

/** Fields every command that reads GPUs shares. */
export const SOURCE_FLAGS: FlagsOfFields = { preset: '--preset', inventory: '--inventory' };

/**
 * How `path` is said with `flags`: the flag of the longest field that is `path` or starts it, then
 * what is left (an item index as `(item k+1)`, a key path after a space); undefined when no field is.
 */
export function flagOf(path: readonly PathSegment[], flags: FlagsOfFields): string | undefined {
  let best: { flag: string; length: number } | undefined;
  for (const [field, flag] of Object.entries(flags)) {
    const segments = parsePath(field);
    if (segments.length > path.length || (best !== undefined && segments.length <= best.length)) continue;
    if (segments.every((s, k) => s === path[k])) best = { flag, length: segments.length };
  }
  if (best === undefined) return undefined;
  const rest = path.slice(best.length);
  if (rest.length === 0) return best.flag;
  if (rest.length === 1 && typeof rest[0] === 'number') return `${best.flag} (item ${rest[0] + 1})`;
  return `${best.flag} ${formatPath(rest)}`;
}

/**
 * The error told with flags: when its field is one of `flags` (or starts with one), the field is
 * said as the flag, and so is every field its detail mentions. Anything else is returned as it is.
 */
export function sayWithFlags(error: unknown, flags: FlagsOfFields): unknown {
  if (!(error instanceof AllocationError) || error.detail === undefined || error.path === undefined || error.named === true) return error;
  const said = flagOf(error.path, flags);
  if (said === undefined) return error;
  return error.restated({ said, mentions: (path) => flagOf(path, flags) ?? formatPath(path) });
}

/** A file the CLI read: what errors about it came from (`origin`), how to say it, and its text. */
export type ReadFile = {
  /** The origin the validator was given; absent: errors with no origin of their own. Errors from elsewhere are left alone. */
  origin?: string;
  /** How the CLI says the file: `--inventory inv.json`, `agents.toml`. */
  label: string;
  /** The file's text and where a path's key stands in it (jsonPosition, tomlPosition), for errors that do not say their position. */
  text?: string;
  position?: (text: string, path: readonly PathSegment[]) => FilePosition | undefined;
  /** Leading path segments that are not in the text (`state` in `state.nextSlot`). */
  root?: readonly PathSegment[];
};

/** Where `error`'s field stands in the file: its own position, else the position of its path (less the root). */
function _positionIn(error: AllocationError, file: ReadFile): FilePosition | undefined {
  if (error.position !== undefined) return error.position;
  if (error.path === undefined || file.text === undefined || file.position === undefined) return undefined;
  const root = file.root ?? [];
  const inRoot = root.every((s, k) => s === error.path![k]);
  return file.position(file.text, inRoot ? error.path.slice(root.length) : error.path);
}

/**
 * An error about a file's content said at its place: `LABEL:LINE:COL: …` (the line and column of its
 * field, when found). Errors from another origin, and other values, are returned as they are.
 */
export function sayInFile(error: unknown, file: ReadFile, notes: readonly string[] = []): unknown {
  if (!(error instanceof AllocationError) || error.origin !== file.origin) return error;
  const position = _positionIn(error, file);
  return error.restated({ origin: file.label, ...(position === undefined ? {} : { position }), notes });
}
