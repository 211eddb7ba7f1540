// Golden tables for allocateReplicas, computed by hand from the rules in issue 3; both backends.
import { describe, expect, it } from 'vitest';
import type { ReplicaRequest } from '../../src/devices/replicas.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

/** `gpus` GPUs named gpu0.. with `replicas` replicas each: gpu0::0, gpu0::1, … */
function replicated(gpus: number, replicas: number): string[] {
  const out: string[] = [];
  for (let g = 0; g < gpus; g++) for (let r = 0; r < replicas; r++) out.push(`gpu${g}::${r}`);
  return out;
}

const all = (ids: string[]) => ({ devices: ids, available: ids.slice() });
const taken = (ids: string[], gone: string[]) => ({ devices: ids, available: ids.filter((id) => !gone.includes(id)) });

const golden: Array<[string, ReplicaRequest, string[]]> = [
  // The examples.
  ['2×4, size 4, distributed → 2 + 2', { ...all(replicated(2, 4)), size: 4 }, ['gpu0::0', 'gpu1::0', 'gpu0::1', 'gpu1::1']],
  ['2×4, size 4, distributed named explicitly', { ...all(replicated(2, 4)), size: 4, policy: 'distributed' }, ['gpu0::0', 'gpu1::0', 'gpu0::1', 'gpu1::1']],
  ['2×4, size 4, pack → 4 on one GPU', { ...all(replicated(2, 4)), size: 4, policy: 'pack' }, ['gpu0::0', 'gpu0::1', 'gpu0::2', 'gpu0::3']],
  ['2×4, size 5, pack → 4 + 1', { ...all(replicated(2, 4)), size: 5, policy: 'pack' }, ['gpu0::0', 'gpu0::1', 'gpu0::2', 'gpu0::3', 'gpu1::0']],
  ['3×2, size 3, distributed → 1 each', { ...all(replicated(3, 2)), size: 3 }, ['gpu0::0', 'gpu1::0', 'gpu2::0']],
  ['3×2, size 3, pack → 2 + 1', { ...all(replicated(3, 2)), size: 3, policy: 'pack' }, ['gpu0::0', 'gpu0::1', 'gpu1::0']],
  ['3×2, size 3, spread → 1 each', { ...all(replicated(3, 2)), size: 3, policy: 'spread' }, ['gpu0::0', 'gpu1::0', 'gpu2::0']],
  // gpu0 has 2 allocated, gpu1 1, gpu2 0.
  ['3×4 with 3 taken, size 3, distributed → gpu1 1, gpu2 2', { ...taken(replicated(3, 4), ['gpu0::0', 'gpu0::1', 'gpu1::0']), size: 3 }, ['gpu2::0', 'gpu1::1', 'gpu2::1']],
  ['3×4 with 3 taken, size 3, pack fills the fullest GPU first', { ...taken(replicated(3, 4), ['gpu0::0', 'gpu0::1', 'gpu1::0']), size: 3, policy: 'pack' }, ['gpu0::2', 'gpu0::3', 'gpu1::1']],
  [
    '3×4 with 3 taken, size 3, spread → one per GPU, least allocated first',
    { ...taken(replicated(3, 4), ['gpu0::0', 'gpu0::1', 'gpu1::0']), size: 3, policy: 'spread' },
    ['gpu2::0', 'gpu1::1', 'gpu0::2'],
  ],
  [
    '3×4 with 3 taken, size 5, spread → round robin',
    { ...taken(replicated(3, 4), ['gpu0::0', 'gpu0::1', 'gpu1::0']), size: 5, policy: 'spread' },
    ['gpu2::0', 'gpu1::1', 'gpu0::2', 'gpu2::1', 'gpu1::2'],
  ],
  // distributed: equal allocated counts → fewer picks in this call first (key order alone would say gpu0).
  [
    'distributed: picked-in-this-call breaks an allocated tie',
    {
      ...taken(
        replicated(2, 3).map((id) => id),
        ['gpu1::0'],
      ),
      size: 2,
    },
    ['gpu0::0', 'gpu1::1'],
  ],
  // Physical keys and replicas in natural order, not code-unit order; input order does not matter.
  ['key natural order: gpu2 before gpu10', { devices: ['gpu10::0', 'gpu2::0'], available: ['gpu10::0', 'gpu2::0'], size: 1 }, ['gpu2::0']],
  ['replica natural order: ::2 before ::10', { devices: ['gpu0::10', 'gpu0::2', 'gpu0::1x'], available: ['gpu0::10', 'gpu0::2', 'gpu0::1x'], size: 2, policy: 'pack' }, ['gpu0::1x', 'gpu0::2']],
  ['plain IDs are their own keys', { devices: ['cuda2', 'cuda10', 'cuda1'], available: ['cuda2', 'cuda10', 'cuda1'], size: 2, policy: 'pack' }, ['cuda1', 'cuda2']],
  ['key is the text before the first ::', { devices: ['b::x::1', 'b::y::0', 'a::z'], available: ['b::x::1', 'b::y::0', 'a::z'], size: 2, policy: 'pack' }, ['a::z', 'b::x::1']],
  ['mixed: allocated devices outside `available` count', { devices: ['n1::0', 'n1::1', 'n2::0', 'n2::1', 'n2::2'], available: ['n1::1', 'n2::1', 'n2::2'], size: 1 }, ['n1::1']],
  // Required devices come first in the order given and count as allocated.
  ['required first, then distributed picks (required counts as allocated)', { ...all(replicated(2, 4)), required: ['gpu1::3'], size: 3 }, ['gpu1::3', 'gpu0::0', 'gpu1::0']],
  ['required first, then pack picks on the required GPU', { ...all(replicated(2, 4)), required: ['gpu1::3'], size: 3, policy: 'pack' }, ['gpu1::3', 'gpu1::0', 'gpu1::1']],
  ['required only, in the order given', { ...all(replicated(2, 2)), required: ['gpu1::0', 'gpu0::1'], size: 2 }, ['gpu1::0', 'gpu0::1']],
  ['size 0', { ...all(replicated(2, 2)), size: 0 }, []],
  ['empty resource, size 0', { devices: [], available: [], size: 0 }, []],
];

const parents = { 'MIG-a': 'GPU-1', 'MIG-b': 'GPU-1', 'MIG-c': 'GPU-0', 'MIG-d': 'GPU-0' };
const mig = ['MIG-a', 'MIG-b', 'MIG-c', 'MIG-d'];
const migGolden: Array<[string, ReplicaRequest, string[]]> = [
  ['MIG without parents: every slice is its own GPU', { devices: mig, available: mig, size: 2 }, ['MIG-a', 'MIG-b']],
  ['MIG grouped by parent, distributed: one slice per parent', { devices: mig, available: mig, size: 2, parents }, ['MIG-c', 'MIG-a']],
  ['MIG grouped by parent, pack: both slices of GPU-0 first', { devices: mig, available: mig, size: 2, parents, policy: 'pack' }, ['MIG-c', 'MIG-d']],
  ['MIG, GPU-1 has a slice in use: pack fills GPU-1 first', { devices: mig, available: ['MIG-b', 'MIG-c', 'MIG-d'], size: 2, parents, policy: 'pack' }, ['MIG-b', 'MIG-c']],
  ['MIG, GPU-1 has a slice in use: distributed starts on GPU-0', { devices: mig, available: ['MIG-b', 'MIG-c', 'MIG-d'], size: 2, parents }, ['MIG-c', 'MIG-b']],
  [
    'MIG replicas grouped by parent override the :: rule',
    {
      devices: ['MIG-a::0', 'MIG-a::1', 'MIG-b::0', 'MIG-b::1'],
      available: ['MIG-a::0', 'MIG-a::1', 'MIG-b::0', 'MIG-b::1'],
      size: 2,
      parents: { 'MIG-a::0': 'GPU-0', 'MIG-a::1': 'GPU-0', 'MIG-b::0': 'GPU-0', 'MIG-b::1': 'GPU-1' },
    },
    ['MIG-a::0', 'MIG-b::1'],
  ],
  ['parents for IDs outside devices are ignored', { devices: ['x::0', 'y::0'], available: ['x::0', 'y::0'], size: 1, parents: { 'z::0': 'a' } }, ['x::0']],
  [
    '__proto__ is an ordinary ID and key',
    { devices: ['__proto__', 'constructor'], available: ['__proto__', 'constructor'], size: 2, parents: { __proto__: 'k', constructor: 'k' } as Record<string, string> },
    ['__proto__', 'constructor'],
  ],
];

describe('allocateReplicas golden table', () => {
  for (const [name, request, expected] of [...golden, ...migGolden]) {
    it(name, () => {
      expect(wasm.allocateReplicas(request)).toEqual({ devices: expected });
      expect(ts.allocateReplicas(request)).toEqual({ devices: expected });
    });
  }
});

describe('allocateReplicas infeasible requests', () => {
  const cases: Array<[string, ReplicaRequest]> = [
    ['more than the candidates', { ...taken(replicated(2, 2), ['gpu0::0']), size: 4 }],
    ['required plus candidates fall short', { ...all(replicated(1, 3)), required: ['gpu0::2'], size: 4 }],
    ['nothing available', { devices: ['a'], available: [], size: 1 }],
  ];
  for (const [name, request] of cases) {
    it(name, () => {
      for (const e of [wasm, ts]) {
        const result = e.allocateReplicas(request);
        expect(result.devices).toEqual([]);
        expect(result.reason?.code).toBe('INSUFFICIENT_DEVICES');
        expect(result.reason?.message).toMatch(/size \d+/);
      }
    });
  }
});

describe('allocateReplicas results', () => {
  it('never alias or mutate the inputs', () => {
    const devices = replicated(2, 2);
    const available = devices.slice();
    const required = ['gpu1::1'];
    const request = { devices, available, required, size: 1 };
    const snapshot = structuredClone(request);
    const result = wasm.allocateReplicas(request);
    expect(result.devices).toEqual(['gpu1::1']);
    expect(result.devices).not.toBe(required);
    expect(request).toEqual(snapshot);
  });
});
