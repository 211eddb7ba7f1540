// The typical-pod distribution of the default trace against FGD.md §5.1's derived check: 35 shapes
// kept (95.26 % of the pods), the most frequent first with their renormalized probabilities.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePodCsv } from '../../src/fleet/trace.js';
import { validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { ROOT } from '../support/cli.js';

describe('fleet typical pods (default trace)', () => {
  const file = join(ROOT, 'data/openb/openb_pod_list_default.csv');
  const pods = validatePods('pods', parsePodCsv(file, readFileSync(file, 'utf8')));
  const typical = typicalPods(pods);
  it('keeps 35 shapes covering 95.26 % of the 8,152 pods, weights summing to 1', () => {
    expect(typical).toHaveLength(35);
    const covered = typical.reduce((a, t) => a + t.count, 0);
    expect((100 * covered) / pods.length).toBeCloseTo(95.26, 2);
    expect(typical.reduce((a, t) => a + t.weight, 0)).toBeCloseTo(1, 12);
  });
  it('starts with the published top shapes and probabilities', () => {
    const top = typical.slice(0, 6).map((t) => [t.cpu, t.milli, t.gpus, Number(t.weight.toFixed(4))]);
    expect(top).toEqual([
      [3152, 810, 1, 0.1348],
      [11300, 1000, 1, 0.1125],
      [11400, 1000, 1, 0.0771],
      [3152, 1000, 1, 0.0605],
      [11908, 470, 1, 0.05],
      [12500, 0, 0, 0.0471],
    ]);
  });
  it('orders equal counts by the larger shape first', () => {
    const shapes = typicalPods(
      [
        { id: 'a', cpu: 1000, memory: 1, gpus: 1, milli: 300, models: [] },
        { id: 'b', cpu: 2000, memory: 1, gpus: 1, milli: 300, models: [] },
        { id: 'c', cpu: 2000, memory: 9, gpus: 1, milli: 300, models: [] },
        { id: 'd', cpu: 1000, memory: 1, gpus: 1, milli: 500, models: [] },
      ],
      1,
    );
    expect(shapes.map((t) => [t.cpu, t.milli, t.count])).toEqual([
      [2000, 300, 2],
      [1000, 500, 1],
      [1000, 300, 1],
    ]);
  });
});
