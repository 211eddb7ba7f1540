// allocateReplicas keeps device IDs interned between calls: answers must not depend on earlier calls.
import { describe, expect, it } from 'vitest';
import type { ReplicaRequest } from '../../src/devices/replicas.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

const replicated = (prefix: string, gpus: number, replicas: number): string[] => {
  const out: string[] = [];
  for (let g = 0; g < gpus; g++) for (let r = 0; r < replicas; r++) out.push(`${prefix}${g}::${r}`);
  return out;
};

describe('allocateReplicas across calls', () => {
  it('the same IDs with and without parents, alternately, give each call its own grouping', () => {
    const devices = replicated('gpu', 2, 3);
    const plain: ReplicaRequest = { devices, available: devices.slice(), size: 2 };
    // parents put gpu0::0 and gpu1::0 on one physical GPU "x": distributed then picks it once only.
    const grouped: ReplicaRequest = { ...plain, parents: { 'gpu0::0': 'x', 'gpu1::0': 'x' } };
    for (const e of [wasm, ts]) {
      for (let k = 0; k < 3; k++) {
        expect(e.allocateReplicas(plain).devices).toEqual(['gpu0::0', 'gpu1::0']);
        expect(e.allocateReplicas(grouped).devices).toEqual(['gpu0::1', 'gpu1::1']);
      }
    }
  });

  it('a parent key that is also another device ID groups with that device', () => {
    const devices = ['a', 'b::0', 'b::1'];
    for (const e of [wasm, ts]) {
      // a is taken. With b::0's parent "a", GPU "a" has one allocated device: distributed picks b::1 on GPU "b".
      expect(e.allocateReplicas({ devices, available: ['b::1', 'b::0'], size: 1, parents: { 'b::0': 'a' } }).devices).toEqual(['b::1']);
      expect(e.allocateReplicas({ devices, available: ['b::1', 'b::0'], size: 1 }).devices).toEqual(['b::0']);
      expect(e.allocateReplicas({ devices, available: ['b::1', 'b::0'], size: 1, policy: 'pack', parents: { 'b::0': 'a' } }).devices).toEqual(['b::0']);
    }
  });

  it('duplicates and unknown IDs are found whatever earlier calls saw', () => {
    const devices = replicated('gpu', 2, 2);
    for (const e of [wasm, ts]) {
      e.allocateReplicas({ devices, available: devices, size: 1 });
      expect(() => e.allocateReplicas({ devices: [...devices, 'gpu0::1'], available: devices, size: 1 })).toThrow(/devices\[4\].*devices\[1\]/);
      // gpu9::0 was a device of no call so far in this request: unknown here even if interned before.
      e.allocateReplicas({ devices: ['gpu9::0'], available: ['gpu9::0'], size: 1 });
      expect(() => e.allocateReplicas({ devices, available: ['gpu9::0'], size: 1 })).toThrow(/available\[0\]/);
      expect(() => e.allocateReplicas({ devices, available: devices, required: ['gpu9::0'], size: 1 })).toThrow(/required\[0\]/);
    }
  });

  it('stays right past the interning bound (many distinct IDs over many calls)', () => {
    const probe = replicated('probe', 3, 2);
    const expected = { devices: ['probe0::0', 'probe1::0', 'probe2::0'] };
    for (let call = 0; call < 40; call++) {
      const devices = replicated(`c${call}-`, 64, 32); // 2048 new IDs per call: 81,920 in all
      for (const e of [wasm, ts]) {
        expect(e.allocateReplicas({ devices, available: devices, size: 3, policy: 'spread' }).devices).toEqual([`c${call}-0::0`, `c${call}-1::0`, `c${call}-2::0`]);
        if (call % 8 === 0) expect(e.allocateReplicas({ devices: probe, available: probe, size: 3 })).toEqual(expected);
      }
    }
  });
});
