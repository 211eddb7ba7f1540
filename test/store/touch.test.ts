// Activity through the memory and file stores: the shared touch scenario (test/support/touch-scenario.ts).
import { afterEach, describe, it } from 'vitest';
import { engines } from '../support/engines.js';
import { makeStore, removeStoreDirs } from '../support/stores.js';
import { TOUCH_NODES, touchScenario } from '../support/touch-scenario.js';

const { ts, wasm } = await engines();
afterEach(removeStoreDirs);

describe.each(['memory', 'file'] as const)('%s store: touch and release with idleBefore', (kind) => {
  it.each([
    ['ts', ts],
    ['wasm', wasm],
  ] as const)('on the %s backend', async (_name, engine) => {
    const { store } = await makeStore(kind, engine, TOUCH_NODES);
    await touchScenario(engine, store);
    await store.close();
  });
});
