// scaleTrace: k copies of a trace's nodes and pods, copy 0 as given, copy i named <id>-r<i>; an ID
// two copies would share, a bad factor or a result over the limits is an error naming it.
import { describe, expect, it } from 'vitest';
import { scaleTrace } from '../../src/fleet/index.js';
import { LIMITS } from '../../src/shared/limits.js';
import { errorOf } from '../support/engines.js';

const nodes = [
  { id: 'n0', cpu: 1000 },
  { id: 'n1', cpu: 2000 },
];
const pods = [{ id: 'p0', gpus: 1 }];

describe('scaleTrace', () => {
  it('×1 is the trace itself (copies of the lists)', () => {
    const one = scaleTrace(nodes, pods, 1);
    expect(one).toEqual({ nodes, pods });
    expect(one.nodes).not.toBe(nodes);
  });

  it('×3: every node and pod three times, copies in order, fields kept', () => {
    const three = scaleTrace(nodes, pods, 3);
    expect(three.nodes).toEqual([
      { id: 'n0', cpu: 1000 },
      { id: 'n1', cpu: 2000 },
      { id: 'n0-r1', cpu: 1000 },
      { id: 'n1-r1', cpu: 2000 },
      { id: 'n0-r2', cpu: 1000 },
      { id: 'n1-r2', cpu: 2000 },
    ]);
    expect(three.pods.map((p) => p.id)).toEqual(['p0', 'p0-r1', 'p0-r2']);
  });

  it('a copy named like another node, a factor out of range and a result over the limits are errors', () => {
    const clash = errorOf(() => scaleTrace([{ id: 'a' }, { id: 'a-r1' }], [], 2));
    expect([clash.code, clash.field]).toEqual(['INVALID_ARGUMENT', 'scale']);
    expect(clash.message).toContain('"a-r1"');
    for (const k of [0, 1.5, -2, NaN]) expect(errorOf(() => scaleTrace(nodes, pods, k, '--scale')).field).toBe('--scale');
    const big = Array.from({ length: LIMITS.maxFleetNodes / 50 + 1 }, (_, i) => ({ id: `n${i}` }));
    expect(errorOf(() => scaleTrace(big, [], 50)).code).toBe('LIMIT_EXCEEDED');
  });
});
