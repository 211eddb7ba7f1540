// Every case of upstream's allocator table in scored mode: the same outcome kind as upstream
// (results / unschedulable / error with upstream's words), an allocation the independent checker
// (test/support/dra-checker.ts) accepts, the same configs wherever the same alternatives were
// chosen, and the same devices wherever brute force finds exactly one feasible answer. Prints the
// pass count per feature. The checker and the brute force are themselves held to upstream's
// expectations: the checker accepts every expected allocation, brute force finds the expected
// answer among its answers and none for an unschedulable case.
import { afterAll, describe, expect, it } from 'vitest';
import { type AllocationResult, allocateClaims } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { answerKey, bruteForce } from '../support/dra-brute-force.js';
import { checkAllocation, usesOf } from '../support/dra-checker.js';
import { canonical, featureNames, requestOf, type UpstreamCase, upstreamCases } from '../support/dra-upstream-table.js';

const cases = upstreamCases();
const tally = new Map<string, { passed: number; total: number }>();
const counts = { passed: 0, enumerated: 0, unique: 0, uniqueSame: 0 };

function kindOf(c: UpstreamCase): 'results' | 'unschedulable' | 'error' {
  return c.expect.errorContains !== undefined ? 'error' : c.expect.unschedulable === true ? 'unschedulable' : 'results';
}

/** The table writes every share ID as one placeholder: give each share its own. */
function withShareIds(results: AllocationResult[]): AllocationResult[] {
  const out = structuredClone(results);
  let n = 0;
  for (const r of out) for (const d of r.devices.results) if (d.shareID !== undefined) d.shareID = `00000000-0000-4000-8000-${String(n++).padStart(12, '0')}`;
  return out;
}

const requestNames = (r: AllocationResult): string => canonical(r.devices.results.map((d) => d.request).sort());

/** Why the scored answer to the case fails, or undefined. */
function check(c: UpstreamCase): string | undefined {
  const request = requestOf(c, 'scored');
  let outcome: ReturnType<typeof allocateClaims> | undefined;
  let error: unknown;
  try {
    outcome = allocateClaims(request);
  } catch (e) {
    error = e;
  }
  const kind = kindOf(c);
  if (kind === 'error') {
    if (!(error instanceof AllocationError))
      return `expected an error containing ${JSON.stringify(c.expect.errorContains)}, got ${error === undefined ? `${outcome?.results.length} result(s)` : String(error)}`;
    return error.message.includes(c.expect.errorContains as string) ? undefined : `error ${JSON.stringify(error.message)} lacks ${JSON.stringify(c.expect.errorContains)}`;
  }
  if (error !== undefined) return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const results = outcome?.results ?? [];
  if (kind === 'unschedulable') return results.length === 0 ? undefined : `expected unschedulable, got ${canonical(results)}`;
  const expected = c.expect.results as AllocationResult[];
  if (results.length !== expected.length) return `expected ${expected.length} result(s), got ${results.length} (${outcome?.reason?.message ?? ''})`;
  const problems = checkAllocation(request, results);
  if (problems.length > 0) return `the checker refuses the allocation: ${problems.join('; ')}`;
  for (let i = 0; i < expected.length; i++) {
    // Configs depend on the alternatives chosen, not on the devices.
    if (requestNames(results[i]) === requestNames(expected[i]) && canonical(results[i].devices.config) !== canonical(expected[i].devices?.config)) {
      return `claim #${i}: config ${canonical(results[i].devices.config)}, expected ${canonical(expected[i].devices?.config)}`;
    }
  }
  const brute = bruteForce(request);
  if (brute.complete && brute.error === undefined) {
    counts.enumerated++;
    if (brute.answers.length === 1) {
      counts.unique++;
      const got = answerKey(usesOf(results), results.length);
      if (got !== brute.answers[0]) return `the only feasible answer is ${brute.answers[0]}, scored gave ${got}`;
      counts.uniqueSame++;
    }
  }
  return undefined;
}

describe('upstream allocator table, scored mode', () => {
  for (const c of cases) {
    it(`${c.name} (line ${c.sourceLine})`, () => {
      const why = check(c);
      for (const f of featureNames(c)) {
        const t = tally.get(f) ?? { passed: 0, total: 0 };
        t.total++;
        if (why === undefined) t.passed++;
        tally.set(f, t);
      }
      if (why === undefined) counts.passed++;
      expect(why).toBeUndefined();
    });
  }

  it('holds the checker and the brute force to upstream: expected allocations pass, unschedulable cases have no answer', () => {
    let enumerated = 0;
    for (const c of cases) {
      const kind = kindOf(c);
      if (kind === 'error' || c.claims.length === 0) continue;
      const request = requestOf(c, 'first-fit');
      const expected = withShareIds((c.expect.results ?? []) as AllocationResult[]);
      if (kind === 'results') expect(checkAllocation(request, expected), c.name).toEqual([]);
      const brute = bruteForce(request);
      if (!brute.complete || brute.error !== undefined) continue;
      enumerated++;
      if (kind === 'unschedulable') expect(brute.answers, c.name).toEqual([]);
      else expect(brute.answers, c.name).toContain(answerKey(usesOf(expected), expected.length));
    }
    expect(enumerated).toBeGreaterThan(150);
  });

  it('rejects allocations that break the rules (the checker is not a rubber stamp)', () => {
    const c = cases.find((x) => kindOf(x) === 'results' && (x.expect.results as AllocationResult[])[0].devices.results.length > 0) as UpstreamCase;
    const request = requestOf(c, 'first-fit');
    const good = withShareIds(c.expect.results as AllocationResult[]);
    const unknown = structuredClone(good);
    unknown[0].devices.results[0].device = 'no-such-device';
    expect(checkAllocation(request, unknown).length).toBeGreaterThan(0);
    const missing = structuredClone(good);
    missing[0].devices.results.pop();
    expect(checkAllocation(request, missing).length).toBeGreaterThan(0);
    const taken = {
      ...request,
      allocatedDevices: [...(request.allocatedDevices ?? []), `${good[0].devices.results[0].driver}/${good[0].devices.results[0].pool}/${good[0].devices.results[0].device}`],
    };
    expect(checkAllocation(taken, good).length).toBeGreaterThan(0);
  });

  afterAll(() => {
    const rows = [...tally].sort((a, b) => b[1].total - a[1].total).map(([f, t]) => `  ${f.padEnd(24)} ${t.passed}/${t.total}`);
    console.log(
      `DRA conformance (scored): ${counts.passed}/${cases.length} cases pass; brute force enumerated ${counts.enumerated} result cases, ` +
        `${counts.unique} with exactly one feasible answer (${counts.uniqueSame} the same devices)\n${rows.join('\n')}`,
    );
  });
});
