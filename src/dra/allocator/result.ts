// AllocationResults as upstream writes them: device results in pick order, class configs once per
// class then claim configs (a config naming every request gets its request list cleared), and a
// node selector (the node's name when any device is node-local or binds to the node, else the
// union of the slices' single-term selectors, else none).

import type { AllocationModel, ClaimModel } from '../model/index.js';
import { type AllocationResult, type DeviceAllocationConfiguration, type DeviceRequestAllocationResult, draError, type NodeSelector, type NodeSelectorRequirement } from '../objects/index.js';
import type { SearchState } from './search-state.js';

/** Makes share IDs (UUIDs) for shares of devices that allow multiple allocations. */
export type ShareIdSource = (deviceId: string) => string;

/** The AllocationResult of every claim, from a finished search. */
// Indexes here are the search's own: claim positions, candidate indexes of picks, and `chosen`
// (one entry per claim, one alternative number per request group) as the search filled it.
export function buildResults(model: AllocationModel, state: SearchState, chosen: number[][], shareId: ShareIdSource): AllocationResult[] {
  return model.claims.map((claim, claimIndex) => buildResult(model, claim, state, claimIndex, chosen[claimIndex]!, shareId));
}

function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function buildResult(model: AllocationModel, claim: ClaimModel, state: SearchState, claimIndex: number, chosen: number[], shareId: ShareIdSource): AllocationResult {
  const results: DeviceRequestAllocationResult[] = state.picked[claimIndex]!.map((pick) => {
    const c = model.candidates[pick.index]!;
    const out: DeviceRequestAllocationResult = { request: pick.request.name, driver: c.driver, pool: c.pool.name, device: c.device.name };
    if (pick.request.adminAccess) out.adminAccess = true;
    if (pick.request.body.tolerations.length > 0) out.tolerations = copy(pick.request.body.tolerations);
    if (model.features.deviceBindingAndStatus) {
      if (c.device.bindingConditions.length > 0) out.bindingConditions = [...c.device.bindingConditions];
      if (c.device.bindingFailureConditions.length > 0) out.bindingFailureConditions = [...c.device.bindingFailureConditions];
    }
    if (pick.shared) out.shareID = shareId(c.id);
    if (pick.consumed !== undefined) {
      const consumed: Record<string, string> = {};
      for (const [name, q] of pick.consumed) Object.defineProperty(consumed, name, { value: q.toString(), enumerable: true, writable: true, configurable: true });
      out.consumedCapacity = consumed;
    }
    return out;
  });
  const result: AllocationResult = { devices: { results } };
  const config = buildConfig(claim, chosen);
  if (config.length > 0) result.devices.config = config;
  const selector = nodeSelectorFor(model, state, claimIndex, claim.label);
  if (selector !== undefined) result.nodeSelector = selector;
  return result;
}

function buildConfig(claim: ClaimModel, chosen: number[]): DeviceAllocationConfiguration[] {
  const config: DeviceAllocationConfiguration[] = [];
  const requests = claim.claim.requests;
  // The name each request was allocated under (request or request/subrequest).
  // One group per request of the claim, in order (so `claim.groups[i]` for request i below).
  const names = claim.groups.map((g, i) => g.alternatives[g.firstAvailable ? chosen[i]! : 0]!.name);
  const classRange = new Map<string, [number, number]>();
  claim.groups.forEach((group, i) => {
    const chosenRequest = group.alternatives[group.firstAvailable ? chosen[i]! : 0]!;
    const cls = chosenRequest.deviceClass;
    const range = classRange.get(cls.name);
    if (range !== undefined) {
      for (let k = range[0]; k < range[1]; k++) (config[k]!.requests as string[]).push(names[i]!);
      return;
    }
    const start = config.length;
    for (const c of cls.config) config.push({ source: 'FromClass', requests: [names[i]!], ...(c.opaque !== undefined ? { opaque: copy(c.opaque) } : {}) });
    classRange.set(cls.name, [start, config.length]);
  });
  for (const c of claim.claim.config) {
    const opaque = c.opaque !== undefined ? { opaque: copy(c.opaque) } : {};
    if (c.requests.length === 0) {
      config.push({ source: 'FromClaim', ...opaque });
      continue;
    }
    const applies = requests.some((r, i) => c.requests.includes(r.name) || (claim.groups[i]!.firstAvailable && c.requests.includes(names[i]!)));
    if (applies) config.push({ source: 'FromClaim', requests: [...c.requests], ...opaque });
  }
  // A config that covers every request applies to all: empty requests say so.
  for (const entry of config) {
    const list = entry.requests;
    if (list === undefined || list.length === 0) continue;
    if (requests.every((r, i) => list.includes(r.name) || (claim.groups[i]!.firstAvailable && list.includes(names[i]!)))) delete entry.requests;
  }
  return config;
}

function nodeSelectorFor(model: AllocationModel, state: SearchState, claimIndex: number, label: string): NodeSelector | undefined {
  const fields: NodeSelectorRequirement[] = [];
  const expressions: NodeSelectorRequirement[] = [];
  for (const pick of state.picked[claimIndex]!) {
    const c = model.candidates[pick.index]!;
    const perDevice = c.slice.perDeviceNodeSelection === true;
    const nodeName = perDevice ? c.device.nodeName : c.slice.nodeName;
    const selector = perDevice ? c.device.nodeSelector : c.slice.nodeSelector;
    if (nodeName !== undefined || c.device.bindsToNode === true) {
      return { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [model.node.name] }] }] };
    }
    if (selector === undefined) continue;
    if (selector.nodeSelectorTerms.length > 1) {
      throw draError('DRA_REJECTED', `create NodeSelector for claim ${label}: unsupported ResourceSlice.NodeSelector with ${selector.nodeSelectorTerms.length} terms`);
    }
    const term = selector.nodeSelectorTerms[0];
    if (term === undefined) continue;
    mergeRequirements(term.matchFields ?? [], fields);
    mergeRequirements(term.matchExpressions ?? [], expressions);
  }
  if (fields.length === 0 && expressions.length === 0) return undefined;
  const term: { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] } = {};
  if (expressions.length > 0) term.matchExpressions = expressions;
  if (fields.length > 0) term.matchFields = fields;
  return { nodeSelectorTerms: [term] };
}

function sameValues(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

function mergeRequirements(from: readonly NodeSelectorRequirement[], into: NodeSelectorRequirement[]): void {
  for (const r of from) {
    if (into.some((e) => e.key === r.key && e.operator === r.operator && sameValues(e.values, r.values))) continue;
    into.push(copy(r));
  }
}
