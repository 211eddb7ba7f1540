// Both engines, created once per test file: parity tests run every input through each.
import { createEngine, type Engine } from '../src/engine.js';

let pair: Promise<{ wasm: Engine; ts: Engine }> | undefined;

/** The wasm engine and the ts engine. */
export function engines(): Promise<{ wasm: Engine; ts: Engine }> {
  pair ??= Promise.all([createEngine({ backend: 'wasm' }), createEngine({ backend: 'ts' })]).then(([wasm, ts]) => ({ wasm, ts }));
  return pair;
}
