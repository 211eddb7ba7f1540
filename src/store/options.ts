// The options of a store's commit and release (request IDs), checked once for every store: unknown
// keys are errors (a typo must not silently do nothing).
import type { CommitOptions } from '../cluster/state.js';
import { fail, rejectUnknownKeys, requireObject, requireString } from '../shared/validate.js';

/** The CommitOptions part of a store commit's options (id, lastActivity), after checking `requestId` and that no other key is there. */
export function storeCommitOptions(options: unknown): CommitOptions {
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, ['id', 'lastActivity', 'requestId']);
  if (opts.requestId !== undefined) checkRequestId(opts.requestId);
  const out: CommitOptions = {};
  if (opts.id !== undefined) out.id = opts.id as string;
  if (opts.lastActivity !== undefined) out.lastActivity = opts.lastActivity as number;
  return out;
}

/** Checks a store release's options (`requestId` only). */
export function storeReleaseOptions(options: unknown): void {
  const opts = requireObject('options', options);
  rejectUnknownKeys('options', opts, ['requestId']);
  if (opts.requestId !== undefined) checkRequestId(opts.requestId);
}

/** Longest request ID. */
export const MAX_REQUEST_ID = 200;

/** A request ID: a non-empty string of at most MAX_REQUEST_ID characters. */
export function checkRequestId(value: unknown): string {
  const id = requireString('options.requestId', value, MAX_REQUEST_ID);
  if (id === '') fail('INVALID_ARGUMENT', 'options.requestId', `a non-empty string of at most ${MAX_REQUEST_ID} characters`, id);
  return id;
}
