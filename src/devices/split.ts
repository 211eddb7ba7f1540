// splitDevices: Backend.AI's multi-agent device split (BEP "Multi-Agent Device Split").
// Whole devices are dealt fill-from-front in natural order; shared device names (memory) are
// split by amount. Everything is validated before anything is assigned.
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, keysOf, own, ownKeys, rejectUnknownKeys, requireArray, requireObject, requireOneOf, requireString, setOwn } from '../shared/validate.js';
import type { SortKernels } from './natural-sort.js';
import { checkIdList } from './natural-sort.js';

/** How a host's devices are divided between agents. */
export type SplitMode = 'shared' | 'auto-split' | 'manual';

/** Every split mode. */
export const SPLIT_MODES: readonly SplitMode[] = ['shared', 'auto-split', 'manual'];

/** Shared device names when the request gives none: memory is split by amount, not by device. */
export const DEFAULT_SHARED_DEVICE_NAMES: readonly string[] = ['mem'];

/**
 * A device: its ID, and the slots it contributes, e.g. `{ id: 'cuda0', slots: { 'cuda.device': 1,
 * 'cuda.mem': 85899345920 } }`. A plain string contributes 1 to the slot named after its device name.
 */
export type SplitDevice = string | { id: string; slots?: Record<string, number> };

/** Request of splitDevices (README: "Multi-agent device split"). Amounts in the unit of the shared name (bytes for mem). */
export type SplitRequest = {
  agents: readonly string[];
  devices: Readonly<Record<string, readonly SplitDevice[]>>;
  mode: SplitMode;
  amounts?: Readonly<Record<string, number>>;
  sharedDeviceNames?: readonly string[];
  reserved?: Readonly<Record<string, number>>;
  manual?: Readonly<Record<string, Readonly<Record<string, readonly string[] | number>>>>;
};

const SPLIT_REQUEST_KEYS = keysOf<SplitRequest>()(['agents', 'devices', 'mode', 'amounts', 'sharedDeviceNames', 'reserved', 'manual']);

/** Result of splitDevices. Every record is keyed by agent ID, in the order of `agents`. */
export type SplitResult = {
  /** agent → device name → device IDs, in natural order. */
  assignments: Record<string, Record<string, string[]>>;
  /** agent → shared device name → amount. */
  amounts: Record<string, Record<string, number>>;
  /** agent → slot name → sum over the agent's devices (a shared name's slot is its amount). */
  slots: Record<string, Record<string, number>>;
  /** agent → device name → share of the host, 0..1 (1 in shared mode). */
  scaling: Record<string, Record<string, number>>;
  /** Not errors: `UNASSIGNED_DEVICES` (manual mode), `MODE_IGNORED` (one agent). */
  warnings: Array<{ code: string; message: string }>;
};

type DeviceGroup = { name: string; ids: string[]; slots: Array<Record<string, number>>; byId: Map<string, number> };

type Plan = {
  agents: string[];
  groups: DeviceGroup[];
  shared: Array<{ name: string; ids: string[]; available: number }>;
  mode: SplitMode;
  manual?: Map<string, Map<string, string[] | number>>;
  warnings: Array<{ code: string; message: string }>;
};

function requireAmount(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail('INVALID_AMOUNT', field, 'a non-negative integer amount', value);
  if (value > LIMITS.maxBytes) fail('INVALID_AMOUNT', field, `an amount of at most ${LIMITS.maxBytes}`, value);
  return value === 0 ? 0 : value;
}

function listIds(ids: readonly string[]): string {
  // Bounded: at most 20 IDs of at most 40 characters each, whatever their length.
  const shown = ids
    .slice(0, 20)
    .map((id) => (id.length > 40 ? `${id.slice(0, 40)}… (${id.length} chars)` : id))
    .join(', ');
  return ids.length > 20 ? `${shown}, … (${ids.length} in all)` : shown;
}

function parseAgents(value: unknown): string[] {
  const agents = requireArray('agents', value, LIMITS.maxAgents);
  if (agents.length === 0) fail('INVALID_ARGUMENT', 'agents', 'at least one agent ID', value);
  const seen = new Map<string, number>();
  agents.forEach((a, k) => {
    const id = requireString(`agents[${k}]`, a, LIMITS.maxIdLength);
    const prev = seen.get(id);
    if (prev !== undefined) throw AllocationError.at('DUPLICATE_AGENT', `agents[${k}]`, `agent ${describeValue(id)} is already agents[${prev}]`, { details: { agent: id } });
    seen.set(id, k);
  });
  return agents as string[];
}

function parseDevices(kernels: SortKernels, value: unknown, sharedNames: Set<string>): { groups: DeviceGroup[]; sharedIds: Map<string, string[]> } {
  const devices = requireObject('devices', value);
  const groups: DeviceGroup[] = [];
  const sharedIds = new Map<string, string[]>();
  let total = 0;
  for (const name of ownKeys(devices)) {
    const field = `devices.${name}`;
    const list = requireArray(field, devices[name], LIMITS.maxIds);
    total += list.length;
    if (total > LIMITS.maxIds) fail('LIMIT_EXCEEDED', 'devices', `at most ${LIMITS.maxIds} devices in all`, `${total} devices`);
    const ids: string[] = [];
    const slots: Array<Record<string, number>> = [];
    list.forEach((entry, k) => {
      const f = `${field}[${k}]`;
      if (typeof entry === 'string') {
        ids.push(entry);
        slots.push({ [name]: 1 });
        return;
      }
      const obj = requireObject(f, entry);
      ids.push(requireString(`${f}.id`, own(obj, 'id'), LIMITS.maxIdLength));
      const rawSlots = own(obj, 'slots');
      if (rawSlots === undefined) {
        slots.push({ [name]: 1 });
        return;
      }
      const s = requireObject(`${f}.slots`, rawSlots);
      const parsed: Record<string, number> = Object.create(null);
      for (const slot of ownKeys(s)) {
        const v = s[slot];
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail('INVALID_AMOUNT', `${f}.slots.${slot}`, 'a finite non-negative number', v);
        parsed[slot] = v;
      }
      slots.push(parsed);
    });
    checkIdList(field, ids);
    const byId = new Map<string, number>();
    ids.forEach((id, k) => {
      const prev = byId.get(id);
      if (prev !== undefined) throw AllocationError.at('DUPLICATE_DEVICE', `${field}[${k}]`, `device ${describeValue(id)} is already ${field}[${prev}]`, { details: { device: id } });
      byId.set(id, k);
    });
    // Natural order once, here: every mode deals and reports devices in this order.
    const order = kernels.naturalOrder(ids); // a permutation of ids' positions
    const sortedIds = Array.from(order, (k) => ids[k]!);
    if (sharedNames.has(name)) {
      sharedIds.set(name, sortedIds);
      continue;
    }
    const sortedSlots = Array.from(order, (k) => slots[k]!);
    const sortedById = new Map<string, number>();
    sortedIds.forEach((id, k) => sortedById.set(id, k));
    groups.push({ name, ids: sortedIds, slots: sortedSlots, byId: sortedById });
  }
  return { groups, sharedIds };
}

function parseRequest(kernels: SortKernels, request: SplitRequest): Plan {
  const req = requireObject('request', request);
  rejectUnknownKeys('', req, SPLIT_REQUEST_KEYS);
  const agents = parseAgents(own(req, 'agents'));
  const mode = requireOneOf('mode', own(req, 'mode'), SPLIT_MODES);
  const rawShared = own(req, 'sharedDeviceNames');
  const sharedList =
    rawShared === undefined ? [...DEFAULT_SHARED_DEVICE_NAMES] : requireArray('sharedDeviceNames', rawShared, 1000).map((v, k) => requireString(`sharedDeviceNames[${k}]`, v, LIMITS.maxIdLength));
  const sharedNames = new Set(sharedList);
  const { groups, sharedIds } = parseDevices(kernels, own(req, 'devices'), sharedNames);

  const rawAmounts = own(req, 'amounts');
  const amounts = new Map<string, number>();
  if (rawAmounts !== undefined) {
    const a = requireObject('amounts', rawAmounts);
    for (const name of ownKeys(a)) {
      if (!sharedNames.has(name)) {
        const hint = sharedList.length ? ` (shared device names: ${sharedList.join(', ')})` : '';
        throw AllocationError.at('UNKNOWN_DEVICE_NAME', `amounts.${name}`, `${describeValue(name)} is not a shared device name${hint}; whole devices are split by ID, not by amount`);
      }
      amounts.set(name, requireAmount(`amounts.${name}`, a[name]));
    }
  }
  // A shared name exists on the host when it has devices or an amount.
  const sharedOnHost = sharedList.filter((name) => sharedIds.has(name) || amounts.has(name));
  const rawReserved = own(req, 'reserved');
  const reserved = new Map<string, number>();
  if (rawReserved !== undefined) {
    const r = requireObject('reserved', rawReserved);
    for (const name of ownKeys(r)) {
      if (!sharedOnHost.includes(name))
        throw new AllocationError(
          'UNKNOWN_DEVICE_NAME',
          `reserved.${name}: ${describeValue(name)} is not a shared device name of this host${sharedOnHost.length ? ` (${sharedOnHost.join(', ')})` : ''}`,
          { field: `reserved.${name}` },
        );
      reserved.set(name, requireAmount(`reserved.${name}`, r[name]));
    }
  }
  const shared = sharedOnHost.map((name) => {
    const amount = amounts.get(name) ?? 0;
    const held = reserved.get(name) ?? 0;
    if (held > amount) throw AllocationError.at('INVALID_AMOUNT', `reserved.${name}`, `${held} is more than amounts.${name} (${amount})`);
    return { name, ids: sharedIds.get(name) ?? [], available: amount - held };
  });

  const warnings: Plan['warnings'] = [];
  const rawManual = own(req, 'manual');
  let effectiveMode = mode;
  if (agents.length === 1 && mode !== 'shared') {
    warnings.push({ code: 'MODE_IGNORED', message: `one agent (${describeValue(agents[0])}): '${mode}' behaves as 'shared'; the agent gets every device` });
    effectiveMode = 'shared';
  }
  const plan: Plan = { agents, groups, shared, mode: effectiveMode, warnings };
  if (effectiveMode === 'manual') plan.manual = parseManual(rawManual, agents, groups, shared);
  return plan;
}

function parseManual(value: unknown, agents: string[], groups: DeviceGroup[], shared: Plan['shared']): Map<string, Map<string, string[] | number>> {
  if (value === undefined) fail('MISSING_AGENT', 'manual', `an entry for every agent (${listIds(agents)}) in manual mode`, value);
  const manual = requireObject('manual', value);
  const agentSet = new Set(agents);
  for (const agent of ownKeys(manual)) {
    if (!agentSet.has(agent)) throw AllocationError.at('UNKNOWN_AGENT', `manual.${agent}`, `${describeValue(agent)} is not one of the agents (${listIds(agents)})`, { details: { agent } });
  }
  const groupByName = new Map(groups.map((g) => [g.name, g]));
  const sharedByName = new Map(shared.map((s) => [s.name, s]));
  const owner = new Map<string, Map<string, string>>(groups.map((g) => [g.name, new Map<string, string>()]));
  const sharedSum = new Map<string, number>();
  const result = new Map<string, Map<string, string[] | number>>();
  for (const agent of agents) {
    if (!Object.prototype.hasOwnProperty.call(manual, agent)) {
      throw new AllocationError('MISSING_AGENT', `manual: agent ${describeValue(agent)} has no entry (every agent needs one in manual mode; give it {} for no devices)`, {
        field: `manual.${agent}`,
        details: { agent },
      });
    }
    const entry = requireObject(`manual.${agent}`, manual[agent]);
    const perName = new Map<string, string[] | number>();
    for (const name of ownKeys(entry)) {
      const field = `manual.${agent}.${name}`;
      const sharedName = sharedByName.get(name);
      const group = groupByName.get(name);
      if (sharedName !== undefined) {
        const amount = requireAmount(field, entry[name]);
        sharedSum.set(name, (sharedSum.get(name) ?? 0) + amount);
        perName.set(name, amount);
        continue;
      }
      if (group === undefined) {
        const known = [...groups.map((g) => g.name), ...shared.map((s) => s.name)];
        throw AllocationError.at('UNKNOWN_DEVICE_NAME', field, `the host has no device name ${describeValue(name)} (it has ${known.length ? known.join(', ') : 'none'})`, { details: { name } });
      }
      const ids = requireArray(field, entry[name], LIMITS.maxIds);
      const taken = owner.get(name)!;
      const mine = new Set<string>();
      ids.forEach((raw, k) => {
        const id = requireString(`${field}[${k}]`, raw, LIMITS.maxIdLength);
        if (!group.byId.has(id)) {
          throw AllocationError.at('UNKNOWN_DEVICE_ID', `${field}[${k}]`, `the host has no ${name} device ${describeValue(id)}; available: ${listIds(group.ids)}`, {
            details: { name, device: id, available: group.ids },
          });
        }
        if (mine.has(id))
          throw AllocationError.at('DUPLICATE_DEVICE', `${field}[${k}]`, `device ${describeValue(id)} is listed twice for agent ${describeValue(agent)}`, { details: { agent, device: id } });
        const other = taken.get(id);
        if (other !== undefined) {
          throw AllocationError.at('DEVICE_ASSIGNED_TWICE', `${field}[${k}]`, `device ${describeValue(id)} is given to both agent ${describeValue(other)} and agent ${describeValue(agent)}`, {
            details: { device: id, agents: [other, agent] },
          });
        }
        mine.add(id);
        taken.set(id, agent);
      });
      // Report in natural order, whatever order the config lists them in.
      perName.set(
        name,
        [...mine].sort((x, y) => group.byId.get(x)! - group.byId.get(y)!),
      );
    }
    result.set(agent, perName);
  }
  for (const s of shared) {
    const sum = sharedSum.get(s.name) ?? 0;
    if (sum > s.available) {
      throw AllocationError.at('OVERALLOCATED', 'manual', `the agents' ${s.name} amounts add up to ${sum}, more than the ${s.available} available (amount minus reserved)`, {
        details: { name: s.name, requested: sum, available: s.available },
      });
    }
  }
  return result;
}

/** Fill-from-front: with n devices and m agents, the first n mod m agents get one more, contiguous. */
export function dealCounts(n: number, m: number): number[] {
  const q = Math.floor(n / m);
  const r = n - q * m;
  return Array.from({ length: m }, (_, k) => (k < r ? q + 1 : q));
}

/**
 * setOwn's effect on a plain object without defineProperty, which is slow (a third of a 64-agent
 * split): only `__proto__` needs it, every other key becomes an own data property by assignment.
 */
function _put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') setOwn(target, key, value);
  else target[key] = value;
}

/** Splits a host's devices between agents; validates everything first and throws before assigning anything. */
export function splitDevices(kernels: SortKernels, request: SplitRequest): SplitResult {
  const plan = parseRequest(kernels, request);
  const { agents, groups, shared, mode } = plan;
  const m = agents.length;
  const result: SplitResult = { assignments: {}, amounts: {}, slots: {}, scaling: {}, warnings: plan.warnings };

  // Per group, which sorted positions each agent gets.
  const dealt: number[][][] = groups.map((g) => {
    if (mode === 'shared') return agents.map(() => g.ids.map((_, k) => k));
    if (mode === 'auto-split') {
      let next = 0;
      return dealCounts(g.ids.length, m).map((count) => {
        const mine = Array.from({ length: count }, (_, k) => next + k);
        next += count;
        return mine;
      });
    }
    return agents.map((agent) => {
      const ids = plan.manual!.get(agent)!.get(g.name);
      return Array.isArray(ids) ? ids.map((id) => g.byId.get(id)!) : [];
    });
  });
  const sharedAmounts: number[][] = shared.map((s) => {
    if (mode === 'shared') return agents.map(() => s.available);
    if (mode === 'auto-split') return dealCounts(s.available, m);
    return agents.map((agent) => {
      const v = plan.manual!.get(agent)!.get(s.name);
      return typeof v === 'number' ? v : 0;
    });
  });

  agents.forEach((agent, a) => {
    const assignment: Record<string, string[]> = {};
    const amounts: Record<string, number> = {};
    const slots: Record<string, number> = {};
    const scaling: Record<string, number> = {};
    // Slot sums in a Map first: one write per slot name, not one per device.
    const slotSums = new Map<string, number>();
    groups.forEach((g, gi) => {
      // dealt holds a list per group and agent, of positions in the group.
      const mine = dealt[gi]![a]!;
      _put(
        assignment,
        g.name,
        mine.map((k) => g.ids[k]!),
      );
      for (const k of mine) {
        const s = g.slots[k]!;
        for (const [slot, n] of Object.entries(s)) slotSums.set(slot, (slotSums.get(slot) ?? 0) + n);
      }
      _put(scaling, g.name, mode === 'shared' ? 1 : g.ids.length === 0 ? 0 : mine.length / g.ids.length);
    });
    for (const [slot, sum] of slotSums) _put(slots, slot, sum);
    shared.forEach((s, si) => {
      const amount = sharedAmounts[si]![a]!; // one amount per shared name and agent
      _put(assignment, s.name, [...s.ids]);
      _put(amounts, s.name, amount);
      _put(slots, s.name, amount);
      _put(scaling, s.name, mode === 'shared' ? 1 : s.available === 0 ? 0 : amount / s.available);
    });
    _put(result.assignments, agent, assignment);
    _put(result.amounts, agent, amounts);
    _put(result.slots, agent, slots);
    _put(result.scaling, agent, scaling);
  });

  if (mode === 'manual') {
    groups.forEach((g, gi) => {
      const used = new Set(dealt[gi]!.flat());
      const left = g.ids.filter((_, k) => !used.has(k));
      if (left.length > 0) result.warnings.push({ code: 'UNASSIGNED_DEVICES', message: `${g.name}: ${left.length} device${left.length === 1 ? '' : 's'} not given to any agent: ${listIds(left)}` });
    });
  }
  return result;
}
