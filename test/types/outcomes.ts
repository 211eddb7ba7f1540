// Type tests of the pods' and gangs' outcomes (checked by the type-checker, never run): a pod is
// placed (a node, no reason) or not (node null, a reason whose code is UNSCHEDULABLE or INVALID);
// a gang is placed (no reason) or not (placed 0, a reason). Each `@ts-expect-error` line is a misuse
// that must not compile (tsc fails on an unused one); the other lines must compile.

import type { DraExplanation, GroupOutcome, PodOutcome, PodReason } from '../../src/dra/index.js';

export function podOutcomes(outcome: PodOutcome, explain: DraExplanation): string {
  const message = '';
  if (outcome.node !== null) {
    const node: string = outcome.node;
    const none: undefined = outcome.reason;
    const terms: DraExplanation | undefined = outcome.explain;
    void none;
    void terms;
    return node;
  }
  // Narrowed by `node`: the reason is there, no optional chaining needed.
  const reason: PodReason = outcome.reason;
  const code: 'UNSCHEDULABLE' | 'INVALID' = outcome.reason.code;
  // @ts-expect-error a misspelt code has no overlap with the codes of a pod's reason
  if (outcome.reason.code === 'UNSCHEDULEABLE') return message;
  // @ts-expect-error a pod that was not placed has no node to read as a string
  const node: string = outcome.node;
  void reason;
  void code;
  void node;

  // @ts-expect-error a placed pod carries no reason
  const placedWithReason: PodOutcome = { pod: 'ns/p', node: 'n1', claims: [], reason: { code: 'UNSCHEDULABLE', message } };
  // @ts-expect-error a pod that was not placed carries its reason
  const noReason: PodOutcome = { pod: 'ns/p', node: null, claims: [] };
  // @ts-expect-error only a placed pod has the objective's terms
  const explained: PodOutcome = { pod: 'ns/p', node: null, claims: [], reason: { code: 'UNSCHEDULABLE', message }, explain };
  // @ts-expect-error an invalid pod has no per-node detail (no node was tried)
  const detailed: PodOutcome = { pod: 'ns/p', node: null, claims: [], reason: { code: 'INVALID', message }, nodes: {} };
  // @ts-expect-error a reason code of another room is not a pod's
  const other: PodOutcome = { pod: 'ns/p', node: null, claims: [], reason: { code: 'NO_VIABLE_OPTION', message } };
  const fine: PodOutcome[] = [
    { pod: 'ns/p', node: 'n1', claims: [], explain },
    { pod: 'ns/p', node: null, claims: [], reason: { code: 'UNSCHEDULABLE', message }, nodes: { n1: 'Insufficient cpu' } },
    { pod: 'ns/p', node: null, claims: [], reason: { code: 'INVALID', message }, group: 'ns/g' },
  ];
  void placedWithReason;
  void noReason;
  void explained;
  void detailed;
  void other;
  void fine;
  return message;
}

export function groupOutcomes(outcome: GroupOutcome): number {
  if (outcome.reason !== undefined) {
    const none: 0 = outcome.placed;
    return none;
  }
  const base = { group: 'ns/g', policy: 'gang', pods: ['ns/a', 'ns/b'], bound: 0 } as const;
  // @ts-expect-error a gang with pods placed carries no reason
  const placedWithReason: GroupOutcome = { ...base, pods: [...base.pods], placed: 2, reason: { code: 'UNSCHEDULABLE', message: '' } };
  const refused: GroupOutcome = { ...base, pods: [...base.pods], placed: 0, reason: { code: 'INVALID', message: '' } };
  void placedWithReason;
  void refused;
  return outcome.placed;
}
