// The options of a store's commit and release (request IDs, idleBefore), checked once for every store: unknown
// keys are errors (a typo must not silently do nothing).
import { activityTime, type CommitOptions, type ReleaseOptions } from '../cluster/state.js';
import { fail, rejectUnknownKeys, requireObject, requireString } from '../shared/validate.js';

/** The CommitOptions part of a store commit's options (id, lastActivity), after checking `requestId`, `signal` (already aborted: its reason is thrown) and that no other key is there. */
export function storeCommitOptions(options: unknown): CommitOptions {
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, ['id', 'lastActivity', 'requestId', 'signal']);
  if (opts.requestId !== undefined) checkRequestId(opts.requestId);
  signalOf(opts.signal)?.throwIfAborted();
  const out: CommitOptions = {};
  if (opts.id !== undefined) out.id = opts.id as string;
  if (opts.lastActivity !== undefined) out.lastActivity = opts.lastActivity as number;
  return out;
}

/** The ReleaseOptions part of a store release's options (idleBefore), after checking `requestId`, `signal` (already aborted: its reason is thrown) and that no other key is there. */
export function storeReleaseOptions(options: unknown): ReleaseOptions {
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, ['requestId', 'idleBefore', 'signal']);
  if (opts.requestId !== undefined) checkRequestId(opts.requestId);
  signalOf(opts.signal)?.throwIfAborted();
  return opts.idleBefore === undefined ? {} : { idleBefore: activityTime('options.idleBefore', opts.idleBefore) };
}

/** Longest request ID. */
export const MAX_REQUEST_ID = 200;

/** A request ID: a non-empty string of at most MAX_REQUEST_ID characters. */
export function checkRequestId(value: unknown): string {
  const id = requireString('options.requestId', value, MAX_REQUEST_ID);
  if (id === '') fail('INVALID_ARGUMENT', 'options.requestId', `a non-empty string of at most ${MAX_REQUEST_ID} characters`, id);
  return id;
}

/** `options.signal` checked: undefined, or an AbortSignal (anything else is INVALID_ARGUMENT naming the field). */
export function signalOf(value: unknown, field = 'options.signal'): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (typeof AbortSignal === 'undefined' || !(value instanceof AbortSignal)) fail('INVALID_ARGUMENT', field, 'an AbortSignal', value);
  return value;
}

/** The request ID given (checked), or a new random one. */
export function requestIdOf(value: unknown): string {
  return value === undefined ? globalThis.crypto.randomUUID() : checkRequestId(value);
}
