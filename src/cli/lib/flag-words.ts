// Errors in the CLI's words: an AllocationError names the API field it is about (`size`,
// `tensorParallelSizes[0]`, `options.contextLength`); a command says which flag sets each field, and
// the message is told again with the flag (`--size`, `--tp`, `--context`) instead.
import { AllocationError } from '../../shared/errors.js';

/** API field (or path prefix) → the flag that sets it. */
export type FlagsOfFields = Readonly<Record<string, string>>;

/** Fields every command that reads GPUs shares. */
export const SOURCE_FLAGS: FlagsOfFields = { preset: '--preset', inventory: '--inventory' };

function _escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The error told with flags: when `error.field` is one of `flags` (or starts with one, followed by
 * `[k]` or `.`), the field at the start of the message becomes the flag (an index becomes `(item k+1)`)
 * and later mentions of the field's name become the flag too. Anything else is returned as it is.
 */
export function inFlagWords(error: unknown, flags: FlagsOfFields): unknown {
  if (!(error instanceof AllocationError) || error.field === undefined) return error;
  const field = error.field;
  const key = Object.keys(flags)
    .filter((k) => field === k || field.startsWith(`${k}[`) || field.startsWith(`${k}.`))
    .sort((a, b) => b.length - a.length)[0];
  if (key === undefined) return error;
  const flag = flags[key];
  const rest = field.slice(key.length);
  const index = /^\[(\d+)\]$/.exec(rest);
  const said = index !== null ? `${flag} (item ${Number(index[1]) + 1})` : rest === '' ? flag : `${flag} ${rest.replace(/^\./, '')}`;
  if (!error.message.startsWith(field)) return error;
  const tail = error.message.slice(field.length).replace(new RegExp(`\\b${_escape(key.split('.').pop()!)}\\b(?![-\\w])`, 'g'), flag);
  return new AllocationError(error.code, `${said}${tail}`, { field, cause: error, ...(error.details === undefined ? {} : { details: { ...error.details } }) });
}
