// AllocationError carries what it says in parts (path, detail, expected, received, origin, position,
// notes), so a renderer can say it again in other words without reading the message back.
import { describe, expect, it } from 'vitest';
import { AllocationError, formatPath, parsePath } from '../../src/shared/errors.js';
import { fail, rejectUnknownKeys, requireInteger } from '../../src/shared/validate.js';
import { errorOf } from '../support/engines.js';

describe('AllocationError parts', () => {
  it('fail: the message and the parts agree', () => {
    const e = errorOf(() => requireInteger('gpus[3].memoryTotal', -1, 0, 100));
    expect(e.message).toBe('gpus[3].memoryTotal: expected a non-negative integer, got -1');
    expect(e).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'gpus[3].memoryTotal',
      path: ['gpus', 3, 'memoryTotal'],
      expected: 'a non-negative integer',
      received: '-1',
      detail: ['expected a non-negative integer, got -1'],
    });
    const limit = errorOf(() => fail('LIMIT_EXCEEDED', ['a', 0], 'at most 2 items', [1, 2, 3]));
    expect(limit).toMatchObject({ message: 'a[0]: expected at most 2 items, got an array of 3', field: 'a[0]', received: 'an array of 3' });
  });

  it('of: origin, position, a named field, a mention and notes', () => {
    const e = AllocationError.of('INVALID_STATE', {
      origin: 'state.json',
      position: { line: 3, column: 5 },
      path: ['nodes', 0, 'id'],
      detail: ['appears twice in ', { field: ['nodes'] }],
      notes: ['the file was left untouched'],
    });
    expect(e.message).toBe('state.json:3:5: nodes[0].id: appears twice in nodes (the file was left untouched)');
    expect(e.field).toBe('nodes[0].id');
    const named = AllocationError.of('INVALID_CONFIG', { path: ['a', 'b'], named: true, detail: 'unknown key a.b (did you mean c?)' });
    expect(named.message).toBe('unknown key a.b (did you mean c?)');
    expect(named.field).toBe('a.b');
  });

  it('restated: a new origin, code and notes; the rest kept, the original as the cause', () => {
    const e = errorOf(() => requireInteger('state.nextSlot', 0, 1));
    const r = e.restated({ code: 'INVALID_STATE', origin: '/x/state.json', position: { line: 3, column: 3 }, notes: ['the file was left untouched'] });
    expect(r.message).toBe('/x/state.json:3:3: state.nextSlot: expected an integer in [1, 9007199254740991], got 0 (the file was left untouched)');
    expect(r).toMatchObject({ code: 'INVALID_STATE', field: 'state.nextSlot', expected: e.expected, received: '0', cause: e });
    // Said with another name for the field, and each mention said by `mentions`.
    const m = AllocationError.at('DUPLICATE_DEVICE', 'available[1]', ['GPU index 0 appears twice in ', { field: ['available'] }]);
    expect(m.restated({ said: '--available (item 2)', mentions: () => '--available' }).message).toBe('--available (item 2): GPU index 0 appears twice in --available');
  });

  it('an error made from a message alone keeps its field when restated', () => {
    const legacy = new AllocationError('INVALID_TOPOLOGY', 'links[2]: a GPU cannot link to itself', { field: 'links[2]' });
    expect(legacy.path).toEqual(['links', 2]);
    const r = legacy.restated({ code: 'INVALID_INVENTORY', origin: 'inv.json' });
    expect(r).toMatchObject({ message: 'inv.json: links[2]: a GPU cannot link to itself', field: 'links[2]', code: 'INVALID_INVENTORY' });
  });

  it('paths: formatPath and parsePath are inverse on ordinary keys', () => {
    for (const path of [['a'], ['gpus', 3, 'memoryTotal'], ['agents', 0, 'allocations', 'cuda'], [0, 'x']]) expect(parsePath(formatPath(path))).toEqual(path);
  });
});

describe('rejectUnknownKeys (the one unknown-key check)', () => {
  it('names the key with its path, the closest known key and the allowed ones', () => {
    const e = errorOf(() => rejectUnknownKeys('options', { lockTimeoutMs: 1, replce: true }, ['lockTimeoutMs', 'replace']));
    expect(e.message).toBe('options.replce: unknown field (did you mean replace? allowed: lockTimeoutMs, replace)');
    expect(e).toMatchObject({ path: ['options', 'replce'], received: '"replce"', details: { key: 'replce', closest: 'replace' } });
    expect(errorOf(() => rejectUnknownKeys('', { zzz: 1 }, ['a'])).message).toBe('zzz: unknown field (allowed: a)');
    expect(() => rejectUnknownKeys('x', JSON.parse('{"__proto__": 1}'), ['a'])).toThrow(/x\.__proto__: unknown field/);
  });
});
