// The seed syntax shared by `gpualloc simulate --seeds` and the Simulate page: a range or a list.
import { describe, expect, it } from 'vitest';
import { parseSeeds } from '../../src/fleet/seeds.js';

describe('parseSeeds', () => {
  it('reads a range and a list (spaces allowed around the items)', () => {
    expect(parseSeeds('seeds', ' 42..45 ', 100)).toEqual([42, 43, 44, 45]);
    expect(parseSeeds('seeds', '7, 3 ,4294967295', 100)).toEqual([7, 3, 4294967295]);
  });
  it('refuses a repeated seed, a range past `max` seeds or reversed, a seed above 2^32 − 1 and anything else', () => {
    expect(() => parseSeeds('seeds', '42, 43, 42', 100)).toThrow('seeds: 42 is given twice in "42, 43, 42"');
    expect(() => parseSeeds('--seeds', '0..100', 100)).toThrow('--seeds: expected a range A..B with A <= B (at most 100 seeds), got "0..100"');
    expect(parseSeeds('seeds', '0..99', 100)).toHaveLength(100);
    expect(() => parseSeeds('seeds', '9..8', 100)).toThrow('expected a range A..B');
    expect(() => parseSeeds('seeds', '4294967296', 100)).toThrow('seeds: expected a range 42..51 or a list 42,43, got "4294967296"');
    for (const bad of ['', '1,,2', '-1', '1.5', '1..', 'a']) expect(() => parseSeeds('seeds', bad, 100)).toThrow('seeds: expected a range');
  });
});
