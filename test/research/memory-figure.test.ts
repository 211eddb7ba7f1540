// WASM memory of a long-lived engine: mixed calls of every capability, malformed input and core traps
// keep memory at its warm-up size. The full 10^6 calls run here (about 25 s on 2 cores); the page
// counts it prints are the figure in the README's Robustness section.
import { expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { soak } from '../support/fuzz/memory-soak.js';

it('10^6 mixed calls through the wasm backend: memory stays at its warm-up size (a few pages)', async () => {
  const engine = await openEngine({ backend: 'wasm' });
  const r = soak(engine, 1_000_000);
  console.log(`10^6 calls: ${r.warm} pages after warm-up, ${r.max} at most, ${r.end} at the end; ${r.errors} AllocationErrors, ${engine.core!.restarts} core restarts`);
  expect(r.errors).toBeGreaterThan(900); // malformed calls and traps were part of the traffic
  expect(engine.core!.restarts).toBeGreaterThan(0);
  expect(r.end).toBe(r.warm);
  expect(r.max).toBeLessThanOrEqual(r.warm);
  expect(r.end).toBeLessThanOrEqual(32); // 2 MiB: the documented bound
});
