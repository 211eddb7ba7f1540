// Both engines, created once per test worker and shared by the files it runs (vitest.config.ts): parity
// tests run every input through each. A test that needs a core of its own (its memory's growth, a
// forced trap) creates one with openEngine.
import { type Engine, openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';

let pair: Promise<{ wasm: Engine; ts: Engine }> | undefined;

/** The wasm engine and the ts engine. */
export function engines(): Promise<{ wasm: Engine; ts: Engine }> {
  pair ??= Promise.all([openEngine({ backend: 'wasm' }), openEngine({ backend: 'ts' })]).then(([wasm, ts]) => ({ wasm, ts }));
  return pair;
}

/** The AllocationError code `fn` throws, or undefined when it returns; any other error is rethrown. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AllocationError) return error.code;
    throw error;
  }
  return undefined;
}

/** The AllocationError `fn` throws (fails the test when it returns; any other error is rethrown). */
export function errorOf(fn: () => unknown): AllocationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AllocationError) return error;
    throw error;
  }
  throw new Error('expected an AllocationError, but the call returned');
}

/** What one call of `fn` gives: its value, or its AllocationError as a text (code, message, field); any other error is rethrown. */
export function outcome(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (error) {
    if (error instanceof AllocationError) return `error ${error.code} ${error.message} @${error.field}`;
    throw error;
  }
}
