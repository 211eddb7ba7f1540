// Reasons name the cause: an incomplete pool by its slices ("pool X: 2 of 3 slices"), a claim
// constraint on an attribute the selected devices lack by the attribute, counters only where the
// devices consume counters; and `--features` help lists on by default only what Kubernetes 1.36
// enables (alpha gates among the off ones). Both allocator modes word them the same.
import { describe, expect, it } from 'vitest';
import { allocateClaims, DEFAULT_DRA_FEATURES, DRA_FEATURE_STAGES, type DraMode } from '../../src/dra/index.js';
import { cli } from '../support/cli.js';
import { claimObject, classObject, exactRequest, nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';

const node = nodeObject();
const classes = [classObject('gpu')];
const claim = (requests: unknown[], constraints: unknown[] = []) => claimObject('c', { devices: { requests, constraints } });
const gpus = (n: number, attributes: Obj = {}, suffix = '') => Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}${suffix}`, attributes }));
const MODES: DraMode[] = ['first-fit', 'scored'];

describe('reasons that name the cause', () => {
  it('an incomplete pool: how many of its slices are there', () => {
    const slices = [0, 1].map((i) => sliceObject(`s${i}`, { pool: { name: 'p', generation: 1, resourceSliceCount: 3 }, devices: gpus(2, {}, `-${i}`) }));
    for (const mode of MODES) {
      const r = allocateClaims({ classes, slices, claims: [claim([exactRequest('r', 'gpu', 1)])], node, features: {}, mode });
      expect(r.results).toEqual([]);
      expect(r.reason?.message, mode).toContain('0 device(s) on node node-1 (pool gpu.example.com/p: 2 of 3 slices, not used until complete)');
    }
    // A complete pool says nothing of slices.
    const complete = [sliceObject('s', { devices: gpus(1) }, { pool: 'p' })];
    const r = allocateClaims({ classes, slices: complete, claims: [claim([exactRequest('r', 'gpu', 2)])], node, features: {} });
    expect(r.reason?.message).not.toContain('slices');
  });

  it('a constraint on an attribute no candidate has names the attribute', () => {
    const slices = [sliceObject('s', { devices: gpus(3, { model: { string: 'h100' } }) }, { pool: 'p' })];
    for (const mode of MODES) {
      for (const kind of ['match', 'distinct']) {
        const r = allocateClaims({ classes, slices, claims: [claim([exactRequest('r', 'gpu', 2)], [{ [`${kind}Attribute`]: 'gpu.example.com/numa' }])], node, features: {}, mode });
        expect(r.reason?.message, `${mode} ${kind}`).toContain(
          `0 usable (counters, capacity, constraints); constraint ${kind}Attribute gpu.example.com/numa: none of the 3 selected device(s) has attribute gpu.example.com/numa`,
        );
      }
    }
    // One device with the attribute: named with its count.
    const some = [sliceObject('s', { devices: [...gpus(2, { model: { string: 'h100' } }), { name: 'gpu-x', attributes: { numa: { int: 0 } } }] }, { pool: 'p' })];
    const r = allocateClaims({ classes, slices: some, claims: [claim([exactRequest('r', 'gpu', 2)], [{ matchAttribute: 'gpu.example.com/numa' }])], node, features: {} });
    expect(r.reason?.message).toContain('only 1 of the 3 selected device(s) have attribute gpu.example.com/numa');
  });

  it('speaks of shared counters only where the devices consume counters', () => {
    const plain = [sliceObject('s', { devices: gpus(3) }, { pool: 'p' })];
    const two = claim([exactRequest('a', 'gpu', 2), exactRequest('b', 'gpu', 2)]);
    const r = allocateClaims({ classes, slices: plain, claims: [two], node, features: {}, mode: 'scored' });
    expect(r.reason?.message).toBe('the requests need 4 device(s) together, but no assignment of distinct devices serves them (3 device(s) could serve some request alone)');
    const counted = [
      sliceObject(
        's',
        {
          sharedCounters: [{ name: 'gpu-0', counters: { memory: { value: '80Gi' } } }],
          devices: ['a', 'b', 'c'].map((x) => ({ name: `mig-${x}`, consumesCounters: [{ counterSet: 'gpu-0', counters: { memory: { value: '40Gi' } } }] })),
        },
        { pool: 'p' },
      ),
    ];
    const c = allocateClaims({
      classes,
      slices: counted,
      claims: [claim([exactRequest('a', 'gpu', 1), exactRequest('b', 'gpu', 1), exactRequest('c', 'gpu', 1)])],
      node,
      features: {},
      mode: 'scored',
    });
    expect(c.results).toEqual([]);
    expect(c.reason?.message).toMatch(/counter/);
  });
});

describe('--features help', () => {
  it('lists on by default exactly what Kubernetes 1.36 enables, with stages, and the alpha gates among the off ones', async () => {
    const r = await cli(['dra', '--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    const on = /enables by default: (.*?); off by default: (.*?)(?: --|$)/.exec(text);
    expect(on, text).not.toBeNull();
    const named = (list: string) => [...list.matchAll(/(\w+) \((alpha|beta|GA)\)/g)].map((m) => [m[1], m[2]]);
    const onList = named(on![1]!);
    const offList = named(on![2]!);
    expect(onList.map(([f]) => f).sort()).toEqual(
      Object.keys(DEFAULT_DRA_FEATURES)
        .filter((f) => DEFAULT_DRA_FEATURES[f as keyof typeof DEFAULT_DRA_FEATURES])
        .sort(),
    );
    expect(onList.every(([, stage]) => stage !== 'alpha')).toBe(true);
    expect(offList).toContainEqual(['listTypeAttributes', 'alpha']);
    for (const [f, stage] of [...onList, ...offList]) expect(DRA_FEATURE_STAGES[f as keyof typeof DRA_FEATURE_STAGES]).toBe(stage);
  });
});
