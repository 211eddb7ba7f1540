import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dealCounts, type SplitRequest } from '../../src/devices/split.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const both = [wasm, ts];

const GiB = 2 ** 30;

describe('auto-split', () => {
  it('deals 5 GPUs over 3 agents as 2, 2, 1 in natural order', () => {
    for (const e of both) {
      const r = e.splitDevices({ agents: ['a', 'b', 'c'], mode: 'auto-split', devices: { cuda: ['cuda10', 'cuda2', 'cuda0', 'cuda1', 'cuda3'] } });
      expect(r.assignments.a.cuda).toEqual(['cuda0', 'cuda1']);
      expect(r.assignments.b.cuda).toEqual(['cuda2', 'cuda3']);
      expect(r.assignments.c.cuda).toEqual(['cuda10']);
      expect(r.scaling.a.cuda).toBe(2 / 5);
      expect(r.scaling.c.cuda).toBe(1 / 5);
      expect(r.slots.b).toEqual({ cuda: 2 });
      expect(r.warnings).toEqual([]);
    }
  });

  it('deals 2 devices over 4 agents as 1, 1, 0, 0', () => {
    const r = wasm.splitDevices({ agents: ['w', 'x', 'y', 'z'], mode: 'auto-split', devices: { cuda: ['cuda1', 'cuda0'] } });
    expect([r.assignments.w.cuda, r.assignments.x.cuda, r.assignments.y.cuda, r.assignments.z.cuda]).toEqual([['cuda0'], ['cuda1'], [], []]);
    expect(r.scaling.z.cuda).toBe(0);
  });

  it('deals 13 numeric CPU IDs over 3 agents as 5, 4, 4 by numeric value', () => {
    const cpus = Array.from({ length: 13 }, (_, k) => String(12 - k)); // "12", "11", …, "0"
    for (const e of both) {
      const r = e.splitDevices({ agents: ['agent-1', 'agent-2', 'agent-3'], mode: 'auto-split', devices: { cpu: cpus } });
      expect(r.assignments['agent-1'].cpu).toEqual(['0', '1', '2', '3', '4']);
      expect(r.assignments['agent-2'].cpu).toEqual(['5', '6', '7', '8']);
      expect(r.assignments['agent-3'].cpu).toEqual(['9', '10', '11', '12']);
      expect(r.slots['agent-1'].cpu).toBe(5);
    }
  });

  it('splits a shared amount by divmod after the reservation, first agents one unit more', () => {
    const r = wasm.splitDevices({ agents: ['a', 'b', 'c'], mode: 'auto-split', devices: { cuda: ['cuda0'], mem: ['root'] }, amounts: { mem: 102 }, reserved: { mem: 2 } });
    expect(r.amounts).toEqual({ a: { mem: 34 }, b: { mem: 33 }, c: { mem: 33 } });
    expect(r.assignments.a.mem).toEqual(['root']);
    expect(r.assignments.c.mem).toEqual(['root']);
    expect(r.slots.a.mem).toBe(34);
    expect(r.scaling.b.mem).toBe(33 / 100);
  });

  it('sums device slots over what was dealt', () => {
    const dev = (id: string, mem: number) => ({ id, slots: { 'cuda.device': 1, 'cuda.mem': mem } });
    const r = ts.splitDevices({ agents: ['a', 'b'], mode: 'auto-split', devices: { cuda: [dev('cuda2', 3), dev('cuda0', 10), dev('cuda1', 20)] } });
    expect(r.slots.a).toEqual({ 'cuda.device': 2, 'cuda.mem': 30 });
    expect(r.slots.b).toEqual({ 'cuda.device': 1, 'cuda.mem': 3 });
  });

  it('dealCounts matches divmod for every small n and m', () => {
    for (let n = 0; n < 30; n++)
      for (let m = 1; m < 10; m++) {
        const c = dealCounts(n, m);
        expect(c.reduce((x, y) => x + y, 0)).toBe(n);
        expect(Math.max(...c) - Math.min(...c)).toBeLessThanOrEqual(1);
        for (let k = 1; k < m; k++) expect(c[k]).toBeLessThanOrEqual(c[k - 1]);
      }
  });
});

describe('shared', () => {
  it('gives every agent every device and the full available amount', () => {
    const r = wasm.splitDevices({ agents: ['a', 'b'], mode: 'shared', devices: { cuda: ['cuda1', 'cuda0'], cpu: ['1', '0'] }, amounts: { mem: 64 * GiB }, reserved: { mem: GiB } });
    for (const a of ['a', 'b']) {
      expect(r.assignments[a]).toEqual({ cuda: ['cuda0', 'cuda1'], cpu: ['0', '1'], mem: [] });
      expect(r.amounts[a]).toEqual({ mem: 63 * GiB });
      expect(r.scaling[a]).toEqual({ cuda: 1, cpu: 1, mem: 1 });
    }
  });

  it('one agent in any mode behaves as shared, with a warning', () => {
    for (const mode of ['auto-split', 'manual'] as const) {
      const r = ts.splitDevices({ agents: ['only'], mode, devices: { cuda: ['cuda0', 'cuda1'] }, amounts: { mem: 10 } });
      expect(r.assignments.only.cuda).toEqual(['cuda0', 'cuda1']);
      expect(r.amounts.only.mem).toBe(10);
      expect(r.warnings.map((w) => w.code)).toEqual(['MODE_IGNORED']);
    }
  });

  it('a shared name with no amount has amount 0', () => {
    const r = wasm.splitDevices({ agents: ['a', 'b'], mode: 'auto-split', devices: { mem: ['root'] } });
    expect(r.amounts).toEqual({ a: { mem: 0 }, b: { mem: 0 } });
    expect(r.scaling.a.mem).toBe(0);
  });
});

describe('manual', () => {
  const base: SplitRequest = {
    agents: ['a1', 'a2'],
    mode: 'manual',
    devices: { cuda: ['cuda0', 'cuda1', 'cuda2', 'cuda3'], cpu: ['0', '1', '2', '3'] },
    amounts: { mem: 100 },
    reserved: { mem: 10 },
    manual: { a1: { cuda: ['cuda2', 'cuda0'], cpu: ['0', '1'], mem: 50 }, a2: { cuda: ['cuda1'], cpu: ['2', '3'], mem: 40 } },
  };

  it('assigns what the config says, in natural order, and warns about unassigned devices', () => {
    for (const e of both) {
      const r = e.splitDevices(base);
      expect(r.assignments.a1.cuda).toEqual(['cuda0', 'cuda2']);
      expect(r.assignments.a2.cuda).toEqual(['cuda1']);
      expect(r.amounts).toEqual({ a1: { mem: 50 }, a2: { mem: 40 } });
      expect(r.scaling.a1).toEqual({ cuda: 0.5, cpu: 0.5, mem: 50 / 90 });
      expect(r.warnings).toEqual([{ code: 'UNASSIGNED_DEVICES', message: 'cuda: 1 device not given to any agent: cuda3' }]);
    }
  });

  const errorCases: Array<[string, (r: SplitRequest) => SplitRequest, string, RegExp]> = [
    ['unknown device name', (r) => ({ ...r, manual: { ...r.manual, a1: { rocm: ['rocm0'] } } }), 'UNKNOWN_DEVICE_NAME', /manual\.a1\.rocm: .*"rocm"/],
    [
      'unknown device ID lists the available IDs in natural order',
      (r) => ({ ...r, manual: { ...r.manual, a1: { cuda: ['cuda9'] } } }),
      'UNKNOWN_DEVICE_ID',
      /"cuda9"; available: cuda0, cuda1, cuda2, cuda3/,
    ],
    ['one ID given to two agents', (r) => ({ ...r, manual: { a1: { cuda: ['cuda1'] }, a2: { cuda: ['cuda1'] } } }), 'DEVICE_ASSIGNED_TWICE', /"cuda1" is given to both agent "a1" and agent "a2"/],
    ['an agent missing from manual', (r) => ({ ...r, manual: { a1: {} } }), 'MISSING_AGENT', /agent "a2" has no entry/],
    ['a manual agent that is not an agent', (r) => ({ ...r, manual: { ...r.manual, ghost: {} } }), 'UNKNOWN_AGENT', /manual\.ghost/],
    ['shared amounts over what is available', (r) => ({ ...r, manual: { a1: { mem: 60 }, a2: { mem: 31 } } }), 'OVERALLOCATED', /add up to 91, more than the 90 available/],
    ['a negative amount', (r) => ({ ...r, manual: { a1: { mem: -1 }, a2: {} } }), 'INVALID_AMOUNT', /manual\.a1\.mem: .*got -1/],
    ['a fractional amount', (r) => ({ ...r, manual: { a1: { mem: 1.5 }, a2: {} } }), 'INVALID_AMOUNT', /got 1\.5/],
    ['a duplicate agent', (r) => ({ ...r, agents: ['a1', 'a2', 'a1'] }), 'DUPLICATE_AGENT', /agents\[2\]: agent "a1" is already agents\[0\]/],
    ['a duplicate device ID', (r) => ({ ...r, devices: { cuda: ['cuda0', 'cuda0'] } }), 'DUPLICATE_DEVICE', /devices\.cuda\[1\]/],
    ['reserved above the amount', (r) => ({ ...r, reserved: { mem: 101 } }), 'INVALID_AMOUNT', /reserved\.mem: 101 is more than amounts\.mem \(100\)/],
    ['an unknown mode', (r) => ({ ...r, mode: 'greedy' as never }), 'INVALID_ARGUMENT', /mode: expected one of 'shared', 'auto-split', 'manual', got "greedy"/],
    ['no agents', (r) => ({ ...r, agents: [] }), 'INVALID_ARGUMENT', /agents: expected at least one agent/],
  ];

  for (const [what, make, code, message] of errorCases) {
    it(`rejects ${what} with ${code}`, () => {
      for (const e of both) {
        let caught: unknown;
        try {
          e.splitDevices(make(base));
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(AllocationError);
        expect((caught as AllocationError).code).toBe(code);
        expect((caught as AllocationError).message).toMatch(message);
      }
    });
  }

  it('treats agent IDs __proto__ and constructor like any other', () => {
    const r = wasm.splitDevices({
      agents: ['__proto__', 'constructor'],
      mode: 'manual',
      devices: { cuda: ['cuda0', 'cuda1'] },
      manual: JSON.parse('{"__proto__": {"cuda": ["cuda1"]}, "constructor": {"cuda": ["cuda0"]}}'),
    });
    expect(Object.keys(r.assignments)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(r.assignments, '__proto__')?.value).toEqual({ cuda: ['cuda1'] });
    expect(r.assignments.constructor).toEqual({ cuda: ['cuda0'] });
    expect(({} as Record<string, unknown>).cuda).toBeUndefined();
  });

  it('does not mutate the request', () => {
    const request = structuredClone(base);
    wasm.splitDevices(request);
    expect(request).toEqual(base);
  });
});

const deviceIds = fc.uniqueArray(
  fc.oneof(
    fc.nat({ max: 40 }).map((n) => `cuda${n}`),
    fc.nat({ max: 40 }).map(String),
    fc.stringMatching(/^[a-z]{1,3}[0-9]{0,2}$/),
  ),
  { maxLength: 24 },
);
const splitRequest = fc.record({
  agents: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: 1, maxLength: 8 }),
  mode: fc.constantFrom('shared' as const, 'auto-split' as const),
  cuda: deviceIds,
  cpu: deviceIds,
  mem: fc.nat({ max: 1_000_000 }),
  reserved: fc.nat({ max: 1000 }),
});

describe('split properties', () => {
  it('wasm and ts agree on random requests', () => {
    fc.assert(
      fc.property(splitRequest, (r) => {
        const req: SplitRequest = { agents: r.agents, mode: r.mode, devices: { cuda: r.cuda, cpu: r.cpu }, amounts: { mem: r.mem + r.reserved }, reserved: { mem: r.reserved } };
        expect(wasm.splitDevices(req)).toEqual(ts.splitDevices(req));
      }),
      { numRuns: 300 },
    );
  });

  it('auto-split hands out every device exactly once, contiguous in natural order', () => {
    fc.assert(
      fc.property(splitRequest, (r) => {
        const req: SplitRequest = { agents: r.agents, mode: 'auto-split', devices: { cuda: r.cuda }, amounts: { mem: r.mem } };
        const out = wasm.splitDevices(req);
        const dealt = r.agents.flatMap((a) => out.assignments[a].cuda);
        expect(dealt).toEqual(wasm.naturalSort(r.cuda));
        const total = r.agents.reduce((s, a) => s + out.amounts[a].mem, 0);
        expect(total).toBe(r.mem);
      }),
      { numRuns: 200 },
    );
  });
});
