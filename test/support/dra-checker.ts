// An independent checker of DRA allocations: given an allocateClaims request and the
// AllocationResults it returned, lists every rule of the resource.k8s.io/v1 API the allocation
// breaks. Written from the API's documentation, not from src/dra's allocator: it shares only the
// object readers, Quantity and the CEL selector compiler with it. Used by the scored conformance
// test, the brute-force enumerator (dra-brute-force.ts) and the property tests.

import type {
  AllocationResult,
  AttributeValue,
  Device,
  DeviceClass,
  DeviceRequestBody,
  DeviceTaint,
  DeviceToleration,
  DraAllocateRequest,
  DraFeature,
  Node,
  NodeSelector,
  ResourceClaim,
  ResourceSlice,
} from '../../src/dra/index.js';
import { DEFAULT_DRA_FEATURES, readDeviceClasses, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { type CelDevice, type CompiledSelector, compileSelector, Quantity } from '../../src/dra/testing.js';
import { canonical } from './dra-upstream-table.js';

/** A device the node can see, in the newest generation of a complete, valid pool. */
export interface WorldDevice {
  id: string;
  driver: string;
  pool: string;
  slice: ResourceSlice;
  device: Device;
  /** allowMultipleAllocations with consumable capacity on. */
  shared: boolean;
}

/** Everything the checker knows about one request. */
export interface World {
  features: Record<DraFeature, boolean>;
  classes: DeviceClass[];
  claims: ResourceClaim[];
  node: Node;
  /** Usable devices on the node, in slice order. */
  devices: WorldDevice[];
  byId: Map<string, WorldDevice>;
  /** Every device of the newest generation of each pool (any node), for counters. */
  everyDevice: Map<string, { pool: string; device: Device }>;
  /** Pool → counter set → counter → total. */
  counterSets: Map<string, Map<string, Record<string, Quantity>>>;
  allocated: Set<string>;
  sharedIds: string[];
  capacity: Map<string, Record<string, Quantity>>;
  selectors: Map<string, CompiledSelector>;
}

const ZERO = Quantity.parse('0');

function selectorMatches(node: Node, selector: NodeSelector): boolean {
  return selector.nodeSelectorTerms.some((term) => {
    const reqs = [
      ...(term.matchExpressions ?? []).map((r) => ({ r, value: node.labels[r.key], has: r.key in node.labels })),
      ...(term.matchFields ?? []).map((r) => ({ r, value: node.name, has: true })),
    ];
    if (reqs.length === 0) return false;
    return reqs.every(({ r, value, has }) => {
      const vals = r.values ?? [];
      if (r.operator === 'In') return has && vals.includes(value);
      if (r.operator === 'NotIn') return !has || !vals.includes(value);
      if (r.operator === 'Exists') return has;
      if (r.operator === 'DoesNotExist') return !has;
      if (!has || !/^-?\d+$/.test(value)) return false;
      return r.operator === 'Gt' ? BigInt(value) > BigInt(vals[0]) : BigInt(value) < BigInt(vals[0]);
    });
  });
}

function reaches(node: Node, nodeName: string | undefined, allNodes: boolean | undefined, selector: NodeSelector | undefined): boolean {
  if (nodeName !== undefined && nodeName !== '') return nodeName === node.name;
  if (allNodes === true) return true;
  return selector !== undefined && selectorMatches(node, selector);
}

/** Reads a request the way the API defines the objects and gathers what the node can use. */
export function buildWorld(request: DraAllocateRequest): World {
  const features = { ...DEFAULT_DRA_FEATURES } as Record<DraFeature, boolean>;
  if (request.features !== undefined) for (const k of Object.keys(features) as DraFeature[]) features[k] = request.features[k] === true;
  const slices = readResourceSlices(request.slices);
  const node = readNodes(request.node)[0];
  const world: World = {
    features,
    classes: readDeviceClasses(request.classes),
    claims: readResourceClaims(request.claims),
    node,
    devices: [],
    byId: new Map(),
    everyDevice: new Map(),
    counterSets: new Map(),
    allocated: new Set(request.allocatedDevices ?? []),
    sharedIds: request.allocatedSharedDeviceIDs ?? [],
    capacity: new Map(Object.entries(request.allocatedCapacity ?? {}).map(([id, caps]) => [id, Object.fromEntries(Object.entries(caps).map(([k, v]) => [k, Quantity.parse(v)]))])),
    selectors: new Map(),
  };
  const pools = new Map<string, ResourceSlice[]>();
  for (const s of slices) {
    const key = `${s.driver}/${s.pool.name}`;
    pools.set(key, [...(pools.get(key) ?? []), s]);
  }
  const ordered = [...pools.keys()].sort();
  for (const key of ordered) {
    // The node looks at its own slices and those without a node name: the newest generation of
    // those, complete when all its slices are there; otherwise every slice of the pool decides
    // (a newer generation elsewhere replaces the pool).
    const all = pools.get(key) as ResourceSlice[];
    const visible = all.filter((s) => s.nodeName === undefined || s.nodeName === node.name);
    if (visible.length === 0) continue;
    const generation = Math.max(...visible.map((s) => s.pool.generation));
    let newest = visible.filter((s) => s.pool.generation === generation);
    if (newest.length !== newest[0].pool.resourceSliceCount) {
      if (all.some((s) => s.pool.generation > generation)) continue;
      newest = all.filter((s) => s.pool.generation === generation);
      if (newest.length !== newest[0].pool.resourceSliceCount) continue;
    }
    const sets = new Map<string, Record<string, Quantity>>();
    let valid = true;
    const names = new Set<string>();
    for (const s of newest) {
      if (features.partitionableDevices) {
        for (const set of s.sharedCounters) {
          if (sets.has(set.name)) valid = false;
          sets.set(set.name, set.counters);
        }
      }
      for (const d of s.devices) {
        if (names.has(d.name)) valid = false;
        names.add(d.name);
      }
    }
    for (const s of newest) {
      for (const d of s.devices) {
        for (const use of d.consumesCounters)
          for (const c of Object.keys(use.counters)) if (!(sets.get(use.counterSet) !== undefined && c in (sets.get(use.counterSet) as object))) valid = features.partitionableDevices ? false : valid;
      }
    }
    if (!valid) continue;
    world.counterSets.set(key, sets);
    for (const s of [...newest].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      for (const d of s.devices) {
        const id = `${key}/${d.name}`;
        world.everyDevice.set(id, { pool: key, device: d });
        if (!features.partitionableDevices && (s.perDeviceNodeSelection !== undefined || s.sharedCounters.length > 0)) continue;
        const onNode = s.perDeviceNodeSelection === true ? reaches(node, d.nodeName, d.allNodes, d.nodeSelector) : reaches(node, s.nodeName, s.allNodes, s.nodeSelector);
        if (!onNode) continue;
        const wd: WorldDevice = { id, driver: s.driver, pool: s.pool.name, slice: s, device: d, shared: features.consumableCapacity && d.allowMultipleAllocations === true };
        world.devices.push(wd);
        world.byId.set(id, wd);
      }
    }
  }
  return world;
}

function celView(world: World, d: WorldDevice): CelDevice {
  const attributes: CelDevice['attributes'] = {};
  const capacity: CelDevice['capacity'] = {};
  const split = (key: string): [string, string] => (key.includes('/') ? [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)] : [d.driver, key]);
  for (const [key, value] of Object.entries(d.device.attributes)) {
    const v = value as Record<string, unknown>;
    if (!world.features.listTypeAttributes && ('ints' in v || 'strings' in v || 'bools' in v || 'versions' in v)) continue;
    const [domain, name] = split(key);
    (attributes[domain] ??= {})[name] = value as never;
  }
  for (const [key, cap] of Object.entries(d.device.capacity)) {
    const [domain, name] = split(key);
    (capacity[domain] ??= {})[name] = cap.value;
  }
  const view: CelDevice = { driver: d.driver, attributes, capacity };
  if (world.features.consumableCapacity) view.allowMultipleAllocations = d.device.allowMultipleAllocations === true;
  return view;
}

/** Whether the class and request selectors accept the device (throws on a CEL error). */
export function selected(world: World, body: DeviceRequestBody, d: WorldDevice): boolean {
  const cls = world.classes.find((c) => c.name === body.deviceClassName);
  if (cls === undefined) return false;
  if (!world.features.deviceBindingAndStatus && d.device.bindingConditions.length > 0) return false;
  const expressions = [...cls.selectors, ...body.selectors].map((s) => s.cel?.expression ?? 'false');
  for (const expression of expressions) {
    let compiled = world.selectors.get(expression);
    if (compiled === undefined) {
      compiled = compileSelector(expression, { consumableCapacity: world.features.consumableCapacity, listTypeAttributes: world.features.listTypeAttributes });
      world.selectors.set(expression, compiled);
    }
    if (!compiled.evaluate(celView(world, d))) return false;
  }
  return true;
}

function tolerated(taint: DeviceTaint, tolerations: readonly DeviceToleration[]): boolean {
  if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') return true;
  return tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
    if ((t.operator ?? 'Equal') === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** Whether the request may use the device, whatever else is allocated (taints, counters allowed, static capacity). */
export function staticallyUsable(world: World, body: DeviceRequestBody, d: WorldDevice): boolean {
  if (!world.features.partitionableDevices && d.device.consumesCounters.length > 0) return false;
  if (world.features.deviceTaints && !d.device.taints.every((t) => tolerated(t, body.tolerations))) return false;
  if (world.features.consumableCapacity) {
    const consumed = consumption(body, d.device);
    if (consumed === undefined) return false;
    for (const [name, amount] of Object.entries(consumed)) if (amount.compare(d.device.capacity[name].value) > 0) return false;
  }
  return selected(world, body, d);
}

/**
 * What a request consumes of each capacity of a device, from the CapacityRequestPolicy rules: the
 * default (or everything) when not requested, the next valid value, the range minimum or the next
 * step; undefined when no allowed amount covers the request or a requested capacity does not exist.
 */
export function consumption(body: DeviceRequestBody, device: Device): Record<string, Quantity> | undefined {
  const requests = body.capacity?.requests ?? {};
  for (const name of Object.keys(requests)) if (!(name in device.capacity)) return undefined;
  const out: Record<string, Quantity> = {};
  for (const [name, cap] of Object.entries(device.capacity)) {
    const policy = cap.requestPolicy;
    const asked = requests[name];
    let amount: Quantity;
    if (asked === undefined) amount = policy?.default ?? cap.value;
    else if (policy?.validRange !== undefined) {
      const { min, max, step } = policy.validRange;
      if (asked.compare(min) <= 0) amount = min;
      else if (step === undefined) amount = asked;
      else {
        let v = min;
        while (v.compare(asked) < 0) v = v.add(step);
        amount = v;
      }
      if (max !== undefined && amount.compare(max) > 0) return undefined;
    } else if (policy?.validValues !== undefined && policy.validValues.length > 0) {
      const next = [...policy.validValues].sort((a, b) => a.compare(b)).find((v) => v.compare(asked) >= 0);
      if (next === undefined) return undefined;
      amount = next;
    } else amount = asked;
    if (amount.compare(ZERO) < 0) return undefined;
    out[name] = amount;
  }
  return out;
}

/** One device result reduced to what the rules look at. */
export interface Use {
  claim: number;
  request: string;
  device: string;
  adminAccess: boolean;
  shareID?: string;
  consumed?: Record<string, Quantity>;
}

function attributeOf(d: WorldDevice, name: string): { kind: string; values: string[]; list: boolean } | undefined | 'bad' {
  let value: AttributeValue | undefined = d.device.attributes[name];
  if (value === undefined && name.startsWith(`${d.driver}/`)) value = d.device.attributes[name.slice(d.driver.length + 1)];
  if (value === undefined) return undefined;
  const v = value as Record<string, unknown>;
  const ver = (s: unknown): string => String(s).split('+')[0];
  for (const [k, kind] of [
    ['int', 'int'],
    ['bool', 'bool'],
    ['string', 'string'],
  ] as const)
    if (k in v) return { kind, values: [String(v[k])], list: false };
  if ('version' in v) return { kind: 'version', values: [ver(v.version)], list: false };
  for (const [k, kind] of [
    ['ints', 'int'],
    ['bools', 'bool'],
    ['strings', 'string'],
  ] as const)
    if (k in v) return { kind, values: (v[k] as unknown[]).map(String), list: true };
  if ('versions' in v) return { kind: 'version', values: (v.versions as unknown[]).map(ver), list: true };
  return 'bad';
}

/** The rules a set of uses (one call's results) breaks; empty when the allocation is valid. */
export function checkUses(world: World, uses: readonly Use[]): string[] {
  const problems: string[] = [];
  const f = world.features;
  // Per claim and request: the alternative used and the devices.
  world.claims.forEach((claim, ci) => {
    const mine = uses.filter((u) => u.claim === ci);
    if (mine.length > 32) problems.push(`claim ${claim.name}: ${mine.length} results exceed 32`);
    const bodies = new Map<string, DeviceRequestBody & { adminAccess?: boolean }>();
    for (const r of claim.requests) {
      const here = mine.filter((u) => u.request === r.name || u.request.startsWith(`${r.name}/`));
      let body: (DeviceRequestBody & { adminAccess?: boolean }) | undefined = r.exactly;
      let name = r.name;
      if (r.firstAvailable.length > 0) {
        const subs = new Set(here.map((u) => u.request));
        if (subs.size !== 1) {
          problems.push(`claim ${claim.name}, request ${r.name}: results name ${subs.size} alternatives`);
          continue;
        }
        name = [...subs][0];
        body = r.firstAvailable.find((s) => `${r.name}/${s.name}` === name);
      } else if (here.some((u) => u.request !== r.name)) problems.push(`claim ${claim.name}, request ${r.name}: a result names a subrequest`);
      if (body === undefined) {
        problems.push(`claim ${claim.name}, request ${r.name}: unknown alternative ${name}`);
        continue;
      }
      bodies.set(name, body);
      const all = (body.allocationMode ?? 'ExactCount') === 'All';
      if (!all && here.length !== (body.count ?? 1)) problems.push(`claim ${claim.name}, request ${name}: ${here.length} devices, not ${body.count ?? 1}`);
      if (all) {
        const want = world.devices
          .filter((d) => selected(world, body as DeviceRequestBody, d) && (!f.consumableCapacity || staticCapacityFits(body as DeviceRequestBody, d)))
          .map((d) => d.id)
          .sort();
        const got = here.map((u) => u.device).sort();
        if (want.length === 0 || JSON.stringify(want) !== JSON.stringify(got)) problems.push(`claim ${claim.name}, request ${name}: All needs ${want.join(',')}, got ${got.join(',')}`);
      }
      if (new Set(here.map((u) => u.device)).size !== here.length) problems.push(`claim ${claim.name}, request ${name}: a device twice`);
      for (const u of here) {
        const d = world.byId.get(u.device);
        if (d === undefined) {
          problems.push(`${u.device}: not a usable device on node ${world.node.name}`);
          continue;
        }
        if (u.adminAccess !== (body.adminAccess === true)) problems.push(`${u.device}: adminAccess ${u.adminAccess}`);
        if (!staticallyUsable(world, body, d)) problems.push(`${u.device}: not usable by request ${name} (selectors, taints, counters feature or capacity)`);
        if (d.shared !== (u.shareID !== undefined)) problems.push(`${u.device}: shareID ${u.shareID === undefined ? 'missing' : 'on an exclusive device'}`);
        if (d.shared) {
          const want = consumption(body, d.device);
          const got = u.consumed ?? {};
          const wantNonZero = Object.entries(want ?? {}).filter(([, q]) => !q.isZero() || Object.keys(got).length > 0);
          if (want === undefined || wantNonZero.some(([k, q]) => got[k] === undefined || got[k].compare(q) !== 0)) problems.push(`${u.device}: consumedCapacity ${JSON.stringify(got)}`);
        }
      }
    }
    // Constraints over the covered requests' devices.
    for (const c of claim.constraints) {
      const attr = c.matchAttribute ?? c.distinctAttribute;
      if (attr === undefined) continue;
      const covered = mine.filter((u) => c.requests.length === 0 || c.requests.includes(u.request) || c.requests.includes(u.request.split('/')[0]));
      const vals = covered.map((u) => (world.byId.has(u.device) ? attributeOf(world.byId.get(u.device) as WorldDevice, attr) : undefined));
      if (vals.some((v) => v === undefined || v === 'bad')) {
        if (covered.length > 0) problems.push(`claim ${claim.name}: a device lacks ${attr}`);
        continue;
      }
      const vs = vals as Array<{ kind: string; values: string[]; list: boolean }>;
      if (!f.listTypeAttributes && vs.some((v) => v.list)) {
        problems.push(`claim ${claim.name}: list value of ${attr} without list types`);
        continue;
      }
      if (c.matchAttribute !== undefined) {
        const common = vs.reduce<string[] | undefined>(
          (acc, v) => (acc === undefined ? v.values.map((x) => `${v.kind}:${x}`) : acc.filter((x) => v.values.map((y) => `${v.kind}:${y}`).includes(x))),
          undefined,
        );
        if (common !== undefined && common.length === 0) problems.push(`claim ${claim.name}: matchAttribute ${attr} not met`);
      } else {
        for (let i = 0; i < vs.length; i++)
          for (let j = i + 1; j < vs.length; j++)
            if (vs[i].kind === vs[j].kind && vs[i].values.some((x) => vs[j].values.includes(x))) problems.push(`claim ${claim.name}: distinctAttribute ${attr} not met`);
      }
    }
  });
  // Devices in use: exclusive devices once (admin access may reuse devices of other claims, not within its claim).
  const seen = new Map<string, Use[]>();
  for (const u of uses) seen.set(u.device, [...(seen.get(u.device) ?? []), u]);
  for (const [id, list] of seen) {
    const d = world.byId.get(id);
    if (d === undefined || d.shared) continue;
    for (const u of list) {
      if (!u.adminAccess && world.allocated.has(id)) problems.push(`${id}: allocated to another claim`);
      if (!u.adminAccess && list.some((o) => o !== u && o.claim <= u.claim)) problems.push(`${id}: used twice`);
      if (u.adminAccess && list.some((o) => o !== u && o.claim === u.claim)) problems.push(`${id}: twice in one claim`);
    }
  }
  // Shares: unique IDs, capacity sums.
  for (const [id, list] of seen) {
    const d = world.byId.get(id);
    if (d === undefined || !d.shared) continue;
    if (list.some((u) => !u.adminAccess) && world.allocated.has(id)) problems.push(`${id}: allocated to another claim as a whole device`);
    const ids = list.map((u) => u.shareID);
    if (new Set(ids).size !== ids.length || ids.some((s) => world.sharedIds.includes(`${id}/${s}`))) problems.push(`${id}: share IDs repeat`);
    for (const [name, cap] of Object.entries(d.device.capacity)) {
      let total = world.capacity.get(id)?.[name] ?? ZERO;
      for (const u of list) total = total.add(u.consumed?.[name] ?? ZERO);
      if (total.compare(cap.value) > 0) problems.push(`${id}: capacity ${name} over ${cap.value.toString()}`);
    }
  }
  // Counters: every counter of every set within its total, counting each device once.
  if (f.partitionableDevices) {
    const used = new Map<string, Quantity>();
    const add = (pool: string, device: Device): void => {
      for (const use of device.consumesCounters) {
        for (const [c, q] of Object.entries(use.counters)) {
          const k = `${pool}\u0000${use.counterSet}\u0000${c}`;
          used.set(k, (used.get(k) ?? ZERO).add(q));
        }
      }
    };
    for (const [id, e] of world.everyDevice) if (world.allocated.has(id) || world.capacity.has(id) || world.sharedIds.some((s) => s === id || s.startsWith(`${id}/`))) add(e.pool, e.device);
    // A multi-allocatable device consumes its counters once, whoever holds shares of it.
    const sharedCounted = new Set(world.capacity.keys());
    for (const u of uses) {
      const d = world.byId.get(u.device);
      if (d === undefined) continue;
      if (d.shared) {
        if (sharedCounted.has(u.device)) continue;
        sharedCounted.add(u.device);
      }
      add(`${d.driver}/${d.pool}`, d.device);
    }
    // Over-use left by other claims only matters in a pool where this call consumes counters.
    const touched = new Set(
      uses
        .map((u) => world.byId.get(u.device))
        .filter((d) => d !== undefined && d.device.consumesCounters.length > 0)
        .map((d) => `${(d as WorldDevice).driver}/${(d as WorldDevice).pool}`),
    );
    for (const [key, q] of used) {
      const [pool, set, c] = key.split('\u0000');
      if (!touched.has(pool)) continue;
      const total = world.counterSets.get(pool)?.get(set)?.[c];
      if (total === undefined || q.compare(total) > 0) problems.push(`counter ${c} of ${pool}/${set}: ${q.toString()} used of ${total?.toString() ?? 'none'}`);
    }
  }
  return problems;
}

function staticCapacityFits(body: DeviceRequestBody, d: WorldDevice): boolean {
  const consumed = consumption(body, d.device);
  return consumed !== undefined && Object.entries(consumed).every(([name, q]) => q.compare(d.device.capacity[name].value) <= 0);
}

/** The uses of a list of AllocationResults (one per claim). */
export function usesOf(results: readonly AllocationResult[]): Use[] {
  return results.flatMap((r, claim) =>
    r.devices.results.map((d) => ({
      claim,
      request: d.request,
      device: `${d.driver}/${d.pool}/${d.device}`,
      adminAccess: d.adminAccess === true,
      ...(d.shareID !== undefined ? { shareID: d.shareID } : {}),
      ...(d.consumedCapacity !== undefined ? { consumed: Object.fromEntries(Object.entries(d.consumedCapacity).map(([k, v]) => [k, Quantity.parse(v)])) } : {}),
    })),
  );
}

/** Every rule the results break, including what each result must carry (tolerations, binding conditions, node selector). */
export function checkAllocation(request: DraAllocateRequest, results: readonly AllocationResult[], world = buildWorld(request)): string[] {
  const problems = results.length === world.claims.length ? checkUses(world, usesOf(results)) : [`${results.length} results for ${world.claims.length} claims`];
  results.forEach((r, ci) => {
    let local = false;
    let allNodes = true;
    for (const dr of r.devices.results) {
      const d = world.byId.get(`${dr.driver}/${dr.pool}/${dr.device}`);
      if (d === undefined) continue;
      const claim = world.claims[ci];
      const base = claim.requests.find((q) => q.name === dr.request.split('/')[0]);
      const body = base?.exactly ?? base?.firstAvailable.find((s) => `${base.name}/${s.name}` === dr.request);
      if (body !== undefined && canonical(dr.tolerations ?? []) !== canonical(body.tolerations)) problems.push(`${dr.device}: tolerations ${JSON.stringify(dr.tolerations)}`);
      if (world.features.deviceBindingAndStatus && JSON.stringify(dr.bindingConditions ?? []) !== JSON.stringify(d.device.bindingConditions)) problems.push(`${dr.device}: bindingConditions`);
      const perDevice = d.slice.perDeviceNodeSelection === true;
      if ((perDevice ? d.device.nodeName : d.slice.nodeName) !== undefined || d.device.bindsToNode === true) local = true;
      if ((perDevice ? d.device.allNodes : d.slice.allNodes) !== true) allNodes = false;
    }
    const sel = r.nodeSelector;
    if (local && JSON.stringify(sel) !== JSON.stringify({ nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [world.node.name] }] }] }))
      problems.push(`claim ${ci}: node selector ${JSON.stringify(sel)} for node-local devices`);
    if (!local && allNodes && sel !== undefined) problems.push(`claim ${ci}: node selector on devices of all nodes`);
    if (sel !== undefined && !selectorMatches(world.node, sel)) problems.push(`claim ${ci}: node selector does not select ${world.node.name}`);
    if (!local && !allNodes && r.devices.results.length > 0 && sel === undefined) problems.push(`claim ${ci}: node selector missing`);
  });
  return problems;
}
