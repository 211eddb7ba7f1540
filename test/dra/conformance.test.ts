// Every case of upstream's allocator test table, in first-fit mode, must give upstream's outcome
// exactly (compared as the table's README prescribes). Prints the pass count per feature.
import { afterAll, describe, expect, it } from 'vitest';
import { allocateClaims, readDeviceClasses, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, addClaims, firstFit, gatherPools } from '../../src/dra/testing.js';
import { AllocationError } from '../../src/shared/errors.js';
import { compareResult, featureNames, requestOf, type UpstreamCase, upstreamCases } from '../support/dra-upstream-table.js';

const cases = upstreamCases();
const tally = new Map<string, { passed: number; total: number }>();

/** Why the case fails, or undefined when it passes. */
function check(c: UpstreamCase): string | undefined {
  const request = requestOf(c);
  const before = JSON.stringify(request);
  let outcome: ReturnType<typeof allocateClaims> | undefined;
  let error: unknown;
  try {
    outcome = allocateClaims(request);
  } catch (e) {
    error = e;
  }
  if (JSON.stringify(request) !== before) return 'the input was modified';
  if (c.expect.errorContains !== undefined) {
    if (error === undefined) return `expected an error containing ${JSON.stringify(c.expect.errorContains)}, got ${outcome?.results.length ?? 0} result(s)`;
    if (!(error instanceof AllocationError)) return `expected AllocationError, got ${String(error)}`;
    return error.message.includes(c.expect.errorContains) ? undefined : `error ${JSON.stringify(error.message)} lacks ${JSON.stringify(c.expect.errorContains)}`;
  }
  if (error !== undefined) return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const results = outcome?.results ?? [];
  if (c.expect.unschedulable === true) return results.length === 0 ? undefined : `expected unschedulable, got ${JSON.stringify(results)}`;
  const expected = c.expect.results ?? [];
  if (results.length !== expected.length) return `expected ${expected.length} result(s), got ${results.length}${outcome?.reason ? ` (${outcome.reason.message})` : ''}`;
  for (let i = 0; i < expected.length; i++) {
    const why = compareResult(results[i], expected[i], c.deviceResultsAnyOrder === true);
    if (why !== undefined) return `claim #${i}: ${why}`;
  }
  return undefined;
}

describe('upstream allocator table, first-fit', () => {
  it('has all 223 cases', () => {
    expect(cases.length).toBe(223);
  });

  for (const c of cases) {
    it(`${c.name} (line ${c.sourceLine})`, () => {
      const why = check(c);
      for (const f of featureNames(c)) {
        const t = tally.get(f) ?? { passed: 0, total: 0 };
        t.total++;
        if (why === undefined) t.passed++;
        tally.set(f, t);
      }
      expect(why).toBeUndefined();
    });
  }

  // Where the table gives upstream's count of allocateOne steps, the bare first-fit search (without
  // the early infeasibility answer) takes exactly as many: the same search, step for step.
  const counted = cases.filter((c) => c.expectAllocateOneInvocations !== undefined);
  it(`takes upstream's number of search steps in the ${counted.length} cases that record it`, () => {
    expect(counted.length).toBe(9);
    for (const c of counted) {
      const want = c.expectAllocateOneInvocations as number | { default: number };
      const features = {
        adminAccess: false,
        consumableCapacity: false,
        deviceBindingAndStatus: false,
        deviceTaints: false,
        listTypeAttributes: false,
        partitionableDevices: false,
        prioritizedList: false,
        ...c.features,
      };
      const [node] = readNodes(c.node);
      const model = new AllocationModel(node, features, gatherPools(readResourceSlices(c.slices), node, features), {
        devices: new Set(c.allocatedDevices ?? []),
        sharedDeviceIds: new Set(),
        capacity: new Map(),
      });
      addClaims(model, readResourceClaims(c.claims), readDeviceClasses(c.classes));
      expect(firstFit(model).steps, c.name).toBe(typeof want === 'number' ? want : want.default);
    }
  });

  afterAll(() => {
    const rows = [...tally].sort((a, b) => b[1].total - a[1].total).map(([f, t]) => `  ${f.padEnd(24)} ${t.passed}/${t.total}`);
    const passed = cases.filter((c) => check(c) === undefined).length;
    console.log(`DRA conformance (first-fit): ${passed}/${cases.length} cases pass\n${rows.join('\n')}`);
  });
});
