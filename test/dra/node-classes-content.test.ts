// Node classes group nodes whose node-local pools have devices of the same content (names aside)
// in the same order: identical nodes share one class, a node that differs in one attribute, one
// capacity or one device has its own, and nodes whose devices are named differently but are
// otherwise equal still share one.
import { describe, expect, it } from 'vitest';
import { createDraCluster } from '../../src/dra/index.js';
import { classObject, nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';

const gpu = (name: string, model = 'h100', memory = '80Gi'): Obj => ({ name, attributes: { model: { string: model }, numa: { int: 0 } }, capacity: { memory: { value: memory } } });

function classes(perNode: Obj[][]): number {
  const nodes = perNode.map((_, k) => nodeObject(`node-${k}`));
  const slices = perNode.map((devices, k) => sliceObject(`s-${k}`, { devices }, { node: `node-${k}` }));
  return createDraCluster({ classes: [classObject('gpu')], slices, nodes }).stats().nodeClasses;
}

describe('node classes by device content', () => {
  it('puts identical nodes in one class', () => {
    expect(classes(Array.from({ length: 5 }, () => [gpu('gpu-0'), gpu('gpu-1')]))).toBe(1);
  });

  it('separates a node that differs in one attribute, one capacity or its device count', () => {
    const same = [gpu('gpu-0'), gpu('gpu-1')];
    expect(classes([same, same, [gpu('gpu-0'), gpu('gpu-1', 'a100')]])).toBe(2);
    expect(classes([same, [gpu('gpu-0'), gpu('gpu-1', 'h100', '40Gi')]])).toBe(2);
    expect(classes([same, [gpu('gpu-0')]])).toBe(2);
    expect(classes([same, [gpu('gpu-0'), { ...gpu('gpu-1'), taints: [{ key: 'k', effect: 'NoSchedule' }] }]])).toBe(2);
  });

  it('keeps nodes whose devices differ only by name together, and equal quantities however written', () => {
    expect(
      classes([
        [gpu('gpu-0'), gpu('gpu-1')],
        [gpu('a'), gpu('b')],
      ]),
    ).toBe(1);
    // 1024Mi is 1Gi (the same canonical quantity); 1G is not.
    expect(classes([[gpu('gpu-0', 'h100', '1Gi')], [gpu('gpu-0', 'h100', '1024Mi')]])).toBe(1);
    expect(classes([[gpu('gpu-0', 'h100', '1Gi')], [gpu('gpu-0', 'h100', '1G')]])).toBe(2);
  });
});
