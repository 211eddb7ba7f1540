// Node selection (core v1 NodeSelector semantics, as the scheduler's nodeaffinity package applies
// them) and device taint toleration (resourceclaim.ToleratesTaint).
import type { AllocationError } from '../../shared/errors.js';
import { type DeviceTaint, type DeviceToleration, draError, type Node, type NodeSelector, type NodeSelectorRequirement } from '../objects/index.js';

/** Whether `node` is selected by a node name, `allNodes` or a selector (none of them set: no node). */
export function nodeMatches(node: Node, nodeName: string | undefined, allNodes: boolean | undefined, selector: NodeSelector | undefined, what: string): boolean {
  if (nodeName !== undefined && nodeName !== '') return node.name === nodeName;
  if (allNodes === true) return true;
  if (selector !== undefined) return selectorMatches(node, selector, what);
  return false;
}

/** Terms are ORed; an empty term (no requirement) selects no node. */
export function selectorMatches(node: Node, selector: NodeSelector, what: string): boolean {
  let matched = false;
  for (const term of selector.nodeSelectorTerms) {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    // Every requirement is checked (so a malformed one is reported even after a match).
    let ok = expressions.length + fields.length > 0;
    for (const r of expressions) if (!requirementMatches(r, node.labels[r.key], r.key in node.labels, what)) ok = false;
    for (const r of fields) {
      if (r.key !== 'metadata.name') throw selectorError(what, `matchFields key ${JSON.stringify(r.key)}: only "metadata.name" is supported`);
      if (r.operator !== 'In' && r.operator !== 'NotIn') throw selectorError(what, `matchFields operator ${JSON.stringify(r.operator)}: only In and NotIn are supported`);
      if (!requirementMatches(r, node.name, true, what)) ok = false;
    }
    if (ok) matched = true;
  }
  return matched;
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined, present: boolean, what: string): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) throw selectorError(what, `requirement ${JSON.stringify(r.key)} ${r.operator}: values must be non-empty`);
      return r.operator === 'In' ? present && values.includes(value as string) : !present || !values.includes(value as string);
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) throw selectorError(what, `requirement ${JSON.stringify(r.key)} ${r.operator}: values must be empty`);
      return r.operator === 'Exists' ? present : !present;
    default: {
      const [only] = values;
      if (values.length !== 1 || only === undefined || !/^-?\d+$/.test(only)) throw selectorError(what, `requirement ${JSON.stringify(r.key)} ${r.operator}: needs one integer value`);
      if (!present || !/^-?\d+$/.test(value as string)) return false;
      const have = BigInt(value as string);
      const bound = BigInt(only);
      return r.operator === 'Gt' ? have > bound : have < bound;
    }
  }
}

function selectorError(what: string, why: string): AllocationError {
  return draError('DRA_REJECTED', `failed to perform node selection for ${what}: ${why}`);
}

/** Whether one toleration tolerates one taint (empty key with Exists tolerates everything). */
export function toleratesTaint(toleration: DeviceToleration, taint: DeviceTaint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** Whether a device's taints keep a request off it: a NoSchedule or NoExecute taint no toleration tolerates. */
export function taintPreventsAllocation(taints: readonly DeviceTaint[], tolerations: readonly DeviceToleration[]): boolean {
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return true;
  }
  return false;
}
