// Commit's checks as a pure function (src/cluster/commit.ts) and the kernel-free JSON validation
// (src/cluster/json.ts) the stores use: checkCommit on a ledger answers exactly what state.commit
// answers (the same error, or the same slot once applied) and changes nothing; normalizeStateJSON
// accepts and writes what restoreClusterState + toJSON do, with the same errors.
import { describe, expect, it } from 'vitest';
import { checkCommit, ledgerJSON, normalizeStateJSON, restoreLedger } from '../../src/cluster/state.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

/** The error `fn` throws, as code + message (+ field), or its result as JSON. */
function outcomeOf(fn: () => unknown): string {
  try {
    return `ok ${JSON.stringify(fn())}`;
  } catch (error) {
    if (error instanceof AllocationError) return `${error.code} ${error.message} @${error.field}`;
    throw error;
  }
}

const nodes = () => [
  {
    id: 'a',
    gpus: [
      { index: 0, memoryTotal: 80 * G },
      { index: 1, memoryTotal: 80 * G, memoryUsed: 10 * G },
    ],
    cpu: 16000,
    hostMemory: 64 * G,
    gpuModel: 'A100',
    slots: [
      { id: 'old', model: 'm1', gpus: [0], memoryPerGpu: 30 * G, stale: true, lastActivity: 5 },
      { id: 'live', gpus: [1], memoryPerGpu: 20 * G },
    ],
  },
  { id: 'b', gpus: [{ index: 0, memoryTotal: 40 * G }], topology: { gpus: 1, links: [] } },
];

const options: Array<[string, unknown, unknown]> = [
  ['fits', { node: 'a', gpus: [0, 1], memoryPerGpu: 40 * G, evict: ['old'], score: 0, model: 'm2' }, { id: 'new', lastActivity: 9 }],
  ['no room without the eviction', { node: 'a', gpus: [0], memoryPerGpu: 60 * G, evict: [], score: 0 }, {}],
  ['the same model cannot evict', { node: 'a', gpus: [0], memoryPerGpu: 60 * G, evict: ['old'], score: 0, model: 'm1' }, {}],
  ['a live slot', { node: 'a', gpus: [1], memoryPerGpu: G, evict: ['live'], score: 0 }, {}],
  ['CPU', { node: 'a', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 17000 }, {}],
  ['host memory', { node: 'a', gpus: [], memoryPerGpu: 0, evict: [], score: 0, hostMemory: 65 * G }, {}],
  ['a share of the wrong charge', { node: 'a', gpus: [0], memoryPerGpu: G, milli: 100, evict: [], score: 0 }, {}],
  ['an unknown node', { node: 'zz', gpus: [0], memoryPerGpu: G, evict: [], score: 0 }, {}],
  ['an unknown GPU', { node: 'b', gpus: [3], memoryPerGpu: G, evict: [], score: 0 }, {}],
  ['an unknown key', { node: 'b', gpus: [0], memoryPerGpu: G, evict: [], score: 0, cpus: 1 }, {}],
  ['a taken ID', { node: 'b', gpus: [0], memoryPerGpu: G, evict: [], score: 0 }, { id: 'live' }],
  ['an unknown option', { node: 'b', gpus: [0], memoryPerGpu: G, evict: [], score: 0 }, { when: 1 }],
];

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('checkCommit = state.commit (%s)', (_name, engine) => {
  it.each(options)('%s', (_what, option, commitOptions) => {
    const state = engine.createClusterState({ nodes: nodes() });
    const ledger = restoreLedger(state.toJSON());
    const before = JSON.stringify(ledgerJSON(ledger));
    let change: ReturnType<typeof checkCommit> | undefined;
    const checked = outcomeOf(() => {
      change = checkCommit(ledger, option, commitOptions);
      return null;
    });
    // Checking changes nothing, pass or fail.
    expect(JSON.stringify(ledgerJSON(ledger))).toBe(before);
    const committed = outcomeOf(() => state.commit(option as never, commitOptions as never));
    if (change === undefined) expect(checked).toBe(committed);
    else {
      expect(committed).toMatch(/^ok /);
      // Applied, the change gives the state commit made.
      expect(outcomeOf(() => ledger.commit(change!))).toBe(committed);
      expect(ledgerJSON(ledger)).toEqual(state.toJSON());
    }
  });
});

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('normalizeStateJSON = restore + toJSON (%s)', (_name, engine) => {
  const valid = engine.createClusterState({ nodes: nodes() }).toJSON();
  const inputs: Array<[string, unknown]> = [
    ['a valid state', valid],
    ['its text', JSON.stringify(valid)],
    [
      'keys in another order, a slot with fields in another order',
      { nodes: valid.nodes.map((n) => ({ ...n, slots: n.slots.map((s) => Object.fromEntries(Object.entries(s).reverse())) })), nextSlot: 4, version: 1 },
    ],
    ['truncated text', JSON.stringify(valid).slice(0, 40)],
    ['a wrong version', { ...valid, version: 2 }],
    ['an over-scheduled GPU', { ...valid, nodes: [{ ...valid.nodes[1], slots: [{ id: 'x', gpus: [0], memoryPerGpu: 41 * G }] }] }],
    ['a misspelt node key', { ...valid, nodes: [{ ...valid.nodes[1], cpus: 4 }] }],
    ['two nodes of one ID', { ...valid, nodes: [valid.nodes[1], valid.nodes[1]] }],
    ['nextSlot 0', { ...valid, nextSlot: 0 }],
  ];
  it.each(inputs)('%s', (_what, input) => {
    expect(outcomeOf(() => normalizeStateJSON(input))).toBe(outcomeOf(() => engine.restoreClusterState(input).toJSON()));
  });
});
