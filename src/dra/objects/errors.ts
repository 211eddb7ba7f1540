// The DRA room's errors. Every error the room throws is an AllocationError; its message and field
// are bounded, since names and values taken from Kubernetes objects may be huge. The errors of the
// room's value libraries (QuantityError, and in cel/ SemverError, DeviceValueError, CelCompileError,
// CelRuntimeError: upstream's wording, no field) become AllocationErrors here, in fromLibrary, where
// the room's code meets them; nothing past that boundary sees or catches them.
import { AllocationError, type AllocationErrorCode, type ErrorParts } from '../../shared/errors.js';
import { boundedName } from '../../shared/validate.js';

/** Longest message an error carries (names and values from the input are cut to fit). */
const MAX_MESSAGE = 2000;

/** An AllocationError whose message is at most MAX_MESSAGE characters (inputs may hold huge names). */
export function draError(code: AllocationErrorCode, message: string, options: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {}): AllocationError {
  const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… (${message.length} chars)` : message;
  const field = options.field !== undefined && options.field.length > MAX_MESSAGE ? `${options.field.slice(0, MAX_MESSAGE)}…` : options.field;
  return new AllocationError(code, text, { ...options, ...(field !== undefined ? { field } : {}) });
}

/**
 * The AllocationError for an error a value library threw (its message, word for word, is `why`):
 * `parts` says where and what (the origin, the path, the detail, `why` as a note or inside the
 * detail). An AllocationError passes through as it is; the library's error becomes the cause.
 */
export function fromLibrary(error: unknown, code: AllocationErrorCode, parts: (why: string) => Omit<ErrorParts, 'cause'>): AllocationError {
  if (error instanceof AllocationError) return error;
  const said = parts(error instanceof Error ? error.message : String(error));
  const detail = typeof said.detail === 'string' ? boundedName(said.detail) : said.detail;
  return AllocationError.of(code, {
    ...said,
    detail,
    ...(said.origin === undefined ? {} : { origin: boundedName(said.origin) }),
    ...(typeof said.path === 'string' ? (said.path === '' ? { path: undefined } : { path: boundedName(said.path) }) : {}),
    ...(said.notes === undefined ? {} : { notes: said.notes.map(boundedName) }),
    cause: error,
  });
}
