// A cluster dump as `kubectl get deviceclasses,resourceslices,resourceclaims,nodes -o json` writes
// it (or one kind per file, or a plain array, any served version): the objects by kind, checked by the strict readers,
// and the claims split into those already allocated (status.allocation: what they hold is the
// allocated state for the rest) and those pending. Used by the CLI and the page alike.

import { fail } from '../../shared/validate.js';
import { readClusterDump } from './cluster-dump.js';
import { Quantity } from './quantity.js';
import { type At, child, field, map, quantity, record, str } from './read-core.js';
import { readDraObjects } from './readers.js';
import type { AllocationResult } from './types.js';

/** The raw objects of a dump, by kind, in dump order (typed List items get their kind back). */
export interface DraDump {
  classes: unknown[];
  slices: unknown[];
  claims: unknown[];
  nodes: unknown[];
}

/**
 * Splits a dump into the objects the allocator reads, by kind: every served version converted to
 * v1, kinds it does not read (Pods, Namespaces …) left out (readClusterDump has them). Every object
 * is read strictly first (readDraObjects): errors name `where` (a file name) and the object, the
 * field path and the value.
 */
export function splitDraDump(input: unknown, where: string): DraDump {
  const dump = readClusterDump({ format: 'json', values: [input], positionOf: () => undefined }, where);
  const out: DraDump = { classes: dump.classes, slices: dump.slices, claims: dump.claims, nodes: dump.nodes };
  readDraObjects([...out.classes, ...out.slices, ...out.claims, ...out.nodes], where);
  return out;
}

/** What claims already allocated hold, in allocateClaims' encodings. */
export interface HeldDevices {
  allocatedDevices: string[];
  allocatedSharedDeviceIDs: string[];
  allocatedCapacity: Record<string, Record<string, string>>;
}

/** A claim of the dump: pending, or allocated with its status.allocation. */
export interface DumpClaim {
  /** `namespace/name` (or `name`). */
  label: string;
  object: unknown;
  allocation?: AllocationResult;
}

function readAllocation(at: At, value: unknown): AllocationResult {
  const allocation = record(at, value, ['devices', 'nodeSelector', 'allocationTimestamp']);
  const devicesAt = child(at, 'devices');
  const devices = record(devicesAt, field(allocation, 'devices') ?? {}, ['results', 'config']);
  const resultsAt = child(devicesAt, 'results');
  const results = field(devices, 'results') ?? [];
  if (!Array.isArray(results)) fail('INVALID_ARGUMENT', resultsAt, 'a list', results);
  const out = results.map((r, i) => {
    const here = child(resultsAt, i);
    const entry = map(here, r);
    const text = (key: string) => str(child(here, key), field(entry, key), true);
    const result: AllocationResult['devices']['results'][number] = { request: text('request'), driver: text('driver'), pool: text('pool'), device: text('device') };
    const share = str(child(here, 'shareID'), field(entry, 'shareID'));
    if (share !== undefined) result.shareID = share;
    if (field(entry, 'adminAccess') === true) result.adminAccess = true;
    const consumed = field(entry, 'consumedCapacity');
    if (consumed !== undefined && consumed !== null) {
      const amounts = map(child(here, 'consumedCapacity'), consumed);
      result.consumedCapacity = {};
      for (const name of Object.keys(amounts)) {
        const at = child(child(here, 'consumedCapacity'), name);
        const q = str(at, amounts[name], true);
        quantity(at, q, true);
        Object.defineProperty(result.consumedCapacity, name, { value: q, enumerable: true, writable: true, configurable: true });
      }
    }
    return result;
  });
  return { devices: { results: out } };
}

/** The claims of a dump with their allocation (if any), and what the allocated ones hold. */
export function claimsOfDump(claims: readonly unknown[]): { claims: DumpClaim[]; held: HeldDevices } {
  const held: HeldDevices = { allocatedDevices: [], allocatedSharedDeviceIDs: [], allocatedCapacity: {} };
  const capacity = new Map<string, Map<string, Quantity>>();
  const out = claims.map((object): DumpClaim => {
    const meta = (object as { metadata: { name: string; namespace?: string } }).metadata;
    const label = meta.namespace !== undefined && meta.namespace !== '' ? `${meta.namespace}/${meta.name}` : meta.name;
    const status = (object as { status?: Record<string, unknown> }).status;
    const raw = status?.allocation;
    if (raw === undefined || raw === null) return { label, object };
    const allocation = readAllocation({ origin: `ResourceClaim/${label}`, path: 'status.allocation' }, raw);
    for (const r of allocation.devices.results) {
      // Admin access holds nothing (as upstream's scheduler counts allocated devices).
      if (r.adminAccess === true) continue;
      const id = `${r.driver}/${r.pool}/${r.device}`;
      if (r.shareID === undefined) held.allocatedDevices.push(id);
      else held.allocatedSharedDeviceIDs.push(`${id}/${r.shareID}`);
      for (const [name, q] of Object.entries(r.consumedCapacity ?? {})) {
        const amounts = capacity.get(id) ?? capacity.set(id, new Map()).get(id)!;
        amounts.set(name, amounts.get(name)?.add(Quantity.parse(q)) ?? Quantity.parse(q));
      }
    }
    return { label, object, allocation };
  });
  for (const [id, amounts] of capacity) {
    const entry: Record<string, string> = {};
    for (const [name, q] of amounts) Object.defineProperty(entry, name, { value: q.toString(), enumerable: true, writable: true, configurable: true });
    Object.defineProperty(held.allocatedCapacity, id, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return { claims: out, held };
}

/** The status patch that records an allocation: `kubectl patch resourceclaim … --subresource=status --type=merge -p`. */
export function allocationPatch(allocation: AllocationResult): { status: { allocation: AllocationResult } } {
  return { status: { allocation } };
}
