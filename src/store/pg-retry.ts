// How a PostgreSQL store operation is tried again: transient failures (a lost connection, a restarting
// server) with doubling, jittered pauses within retryMs; an ambiguous COMMIT only for idempotent work.
import { AllocationError } from '../shared/errors.js';
import { pause as wait } from './abort.js';
import { type ErrorContext, gaveUp, isBoundedWait, isTransient, RetryNow, storeError } from './pg-errors.js';
import type { PostgresStoreStats } from './pg-options.js';

/** First and longest pause between two tries, in milliseconds (doubling, with jitter). */
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 2_000;

/** How an operation may be tried again: `idempotent` ones (request IDs, reads) even after an ambiguous COMMIT. */
export type RunOptions = { idempotent: boolean; requestId?: string; signal?: AbortSignal };

/** The store a retried operation belongs to: its error context, its retry bound and the counts it keeps. */
export type RetryingStore = { readonly ctx: Omit<ErrorContext, 'what'>; readonly retryMs: number; readonly counts: PostgresStoreStats };

/**
 * Tries `fn` until it succeeds, fails for good, or retryMs has passed since the first try, pausing
 * 50 ms doubling to 2 s (with jitter) between tries. A try that failed while its COMMIT was in
 * flight makes the outcome unknown: only an idempotent operation (one with a request ID, or a
 * read) is tried again then, and its next try says what happened (counted in stats). `run.signal`
 * aborts the pauses between tries: the caller's AbortError at once, or, after a try whose outcome is
 * unknown, STORE_UNAVAILABLE saying so.
 */
export async function retrying<T>(store: RetryingStore, what: string, run: RunOptions, fn: (flight: { committing: boolean }) => Promise<T>): Promise<T> {
  const started = Date.now();
  const landing = { uncertain: false, ...(run.requestId === undefined ? {} : { requestId: run.requestId }) };
  let pause = FIRST_PAUSE_MS;
  for (let tries = 1; ; tries++) {
    const flight = { committing: false };
    try {
      const result = await fn(flight);
      if (landing.uncertain) {
        if ((result as { replayed?: boolean } | undefined)?.replayed === true) store.counts.landed++;
        else store.counts.notLanded++;
      }
      return result;
    } catch (error) {
      if (flight.committing && isTransient(error)) {
        store.counts.ambiguous++;
        landing.uncertain = true;
      }
      const ctx = { ...store.ctx, what };
      // While an earlier try's outcome is unknown, a lock or statement timeout (a writer holding the
      // node, maybe that very try still finishing on the server) is waited out too, within retryMs.
      const again = isTransient(error) || (landing.uncertain && run.idempotent && isBoundedWait(error));
      if (!again || (landing.uncertain && !run.idempotent)) {
        if (error instanceof AllocationError && landing.uncertain) {
          // A definite answer after an ambiguous try (CONFLICT, UNKNOWN_SLOT): the first try did not land.
          if (error.code === 'CONFLICT' || error.code === 'UNKNOWN_SLOT' || error.code === 'UNKNOWN_NODE') store.counts.notLanded++;
        }
        throw storeError(error instanceof RetryNow ? error.cause : error, ctx, landing);
      }
      const waited = Date.now() - started;
      if (waited + pause > store.retryMs) throw gaveUp(error instanceof RetryNow ? error.cause : error, ctx, landing, waited, tries, store.retryMs);
      store.counts.retries++;
      if (!(error instanceof RetryNow) || run.signal?.aborted === true) {
        try {
          await wait(pause * (0.5 + Math.random()), run.signal);
        } catch (abort) {
          if (landing.uncertain) throw storeError(error instanceof RetryNow ? error.cause : error, { ...ctx, what: `${what} (aborted)` }, landing);
          throw abort;
        }
      }
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
