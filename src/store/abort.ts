// A pause that an AbortSignal cuts short: the stores' waits (between tries, for a lock) end at once
// when their caller aborts. Imports nothing, so the file lock (which must stay loadable in a browser
// build) can use it.

/**
 * Waits `ms` milliseconds, or until `signal` aborts: then rejects at once with the signal's reason
 * (an AbortError DOMException unless the caller gave another), the timer cleared.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return new Promise((done) => setTimeout(done, ms));
  return new Promise((done, failed) => {
    if (signal.aborted) return failed(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      failed(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      done();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
