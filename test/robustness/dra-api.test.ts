// The DRA entry points under hostile input, as test/robustness/api.test.ts does for the others: one
// random hostile edit of a valid input (a field replaced by a wrong type, NaN, a lone surrogate, a
// 10^5-character ID, a cyclic, frozen or throwing object; a field dropped; a `__proto__` key
// added). createDraCluster, DraCluster.schedule and the dump readers (readDocuments then
// readClusterDump, on the edited dump's JSON) either answer or throw an AllocationError with a
// documented code; the input is not mutated; a cluster that refused a claim answers the next valid
// one as a fresh cluster does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDraCluster, readClusterDump, readDocuments } from '../../src/dra/index.js';
import { CLASSES, claimObject, claimSpec, cluster } from '../support/dra-clusters.js';
import { applyEdit, attempt, attemptAsync, deepFreeze, type Edit, expectResultOrAllocationError, hostileEdit, label, snapshot } from '../support/fuzz/hostile.js';

const RUNS = Number(process.env.ROBUSTNESS_RUNS ?? 25);

const hostileCase = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<{ valid: T; edit: Edit; freeze: boolean }> =>
  valid.chain((v) => fc.record({ valid: fc.constant(v), edit: hostileEdit(v), freeze: fc.boolean() }));

const context = (name: string, edit: Edit): string => `${name} ${edit.kind} ${JSON.stringify(edit.path)} ${edit.key ?? ''} = ${label(edit.value)}`;

describe('hostile edits of DRA inputs', () => {
  it('createDraCluster: only AllocationError escapes and nothing is mutated', () => {
    fc.assert(
      fc.property(hostileCase(cluster(false).map(({ classes, slices, nodes }) => ({ classes, slices, nodes }))), ({ valid, edit, freeze }) => {
        const input = applyEdit(valid, edit);
        if (freeze) deepFreeze(input);
        const before = snapshot(input);
        const outcome = attempt(() => createDraCluster(input as never).stats());
        expectResultOrAllocationError(outcome, context('createDraCluster', edit));
        expect(snapshot(input), `${context('createDraCluster', edit)}: input mutated`).toBe(before);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('DraCluster.schedule: a hostile claim is refused with an AllocationError or placed, and the cluster answers the next valid claim as a fresh one does', () => {
    fc.assert(
      fc.property(cluster(false), hostileCase(claimSpec(false).map((spec) => claimObject('c', spec))), (init, { valid, edit, freeze }) => {
        const bad = applyEdit(valid, edit);
        if (freeze) deepFreeze(bad);
        const before = snapshot(bad);
        const handle = createDraCluster({ classes: init.classes, slices: init.slices, nodes: init.nodes });
        const outcome = attempt(() => handle.schedule([bad]));
        expectResultOrAllocationError(outcome, context('schedule', edit));
        expect(snapshot(bad), `${context('schedule', edit)}: claim mutated`).toBe(before);
        if (outcome.ok && (outcome.value as { node?: string }).node !== undefined) return;
        const fresh = createDraCluster({ classes: init.classes, slices: init.slices, nodes: init.nodes });
        const next = claimObject('next', { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } }] } });
        expect(JSON.stringify(handle.schedule([next])), context('schedule after', edit)).toBe(JSON.stringify(fresh.schedule([next])));
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('readDocuments + readClusterDump: an edited dump is read or refused with an AllocationError', async () => {
    const dump = cluster(false).map(({ classes, slices, nodes }) => ({ apiVersion: 'v1', kind: 'List', items: [...classes, ...slices, ...nodes] }));
    await fc.assert(
      fc.asyncProperty(hostileCase(dump), async ({ valid, edit }) => {
        let text: string;
        try {
          text = JSON.stringify(applyEdit(valid, edit));
        } catch {
          return; // a cyclic or throwing value has no JSON text
        }
        if (text === undefined) return;
        const outcome = await attemptAsync(async () => readClusterDump(await readDocuments(text, 'dump.json'), 'dump.json'));
        expectResultOrAllocationError(outcome, context('readClusterDump', edit));
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('the valid inputs themselves are read (so the edits above start from something that works)', () => {
    const init = fc.sample(cluster(false), { numRuns: 1, seed: 7 })[0]!;
    expect(createDraCluster({ classes: init.classes, slices: init.slices, nodes: init.nodes }).stats().nodes).toBe(init.nodes.length);
    expect(CLASSES.length).toBeGreaterThan(0);
  });
});
