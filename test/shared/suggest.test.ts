// closestName's tie-break and its cut-off (config-strict-split.test.ts covers the common matches).
import { describe, expect, it } from 'vitest';
import { closestName } from '../../src/shared/suggest.js';

describe('closestName', () => {
  it('breaks ties by the order of the known names', () => {
    expect(closestName('ab', ['ax', 'ay'])).toBe('ax');
    expect(closestName('ab', ['ay', 'ax'])).toBe('ay');
    expect(closestName('pakc', ['spread', 'pack', 'pace'])).toBe('pack');
  });
  it('suggests nothing past the edit budget (40% of the letters, at least 1, at most 4)', () => {
    expect(closestName('x', ['ab'])).toBeUndefined();
    expect(closestName('gpus', ['host', 'links'])).toBeUndefined();
    expect(closestName('abcdefghijklmnop', ['abcdefghijklXXXXX'])).toBeUndefined();
    expect(closestName('abcdefghijklmnop', ['abcdefghijklXXXX'])).toBe('abcdefghijklXXXX');
  });
});
