// What is allocated in a cluster, per pool: devices held whole, shares of devices that allow
// multiple allocations (with the capacity they consume), and what a node's devices can still
// take alone (free, counters left). Upstream's AllocatedState, kept for the whole cluster and
// looked at one node's pools at a time.
import { type AllocatedSnapshot, addAmounts, type CapacityAmounts, type Pool, type PoolCountersLeft, poolCountersLeft, type ResolvedFeatures, subAmounts } from '../model/index.js';
import type { Device, Quantity } from '../objects/index.js';
import type { Bits, NodeClass } from './node-classes.js';

/** One device taken by a claim: held whole, or a share (with the capacity it consumes). */
export interface AllocatedEntry {
  /** `driver/pool`. */
  pool: string;
  /** The device's name in the pool. */
  device: string;
  /** Set for a share of a device that allows multiple allocations. */
  shareId?: string;
  consumed?: CapacityAmounts;
}

// Everything by device name within the pool (full IDs are built only for the allocator and output).
interface PoolAllocated {
  devices: Set<string>;
  /** `device/shareID` (or `device` without a share ID, as given). */
  shares: Set<string>;
  capacity: Map<string, CapacityAmounts>;
  /** Shares per device. */
  shareCount: Map<string, number>;
}

function used(p: PoolAllocated | undefined, device: string): boolean {
  return p !== undefined && (p.devices.has(device) || p.capacity.has(device) || (p.shareCount.get(device) ?? 0) > 0);
}

/** The cluster's allocated state, by pool. */
export class AllocatedState {
  private readonly pools = new Map<string, PoolAllocated>();

  private of(pool: string): PoolAllocated {
    let p = this.pools.get(pool);
    if (p === undefined) {
      p = { devices: new Set(), shares: new Set(), capacity: new Map(), shareCount: new Map() };
      this.pools.set(pool, p);
    }
    return p;
  }

  /** Whether a device is held whole. */
  holds(pool: string, device: string): boolean {
    return this.pools.get(pool)?.devices.has(device) === true;
  }

  /** Whether another claim holds the device or a share of it (AllocationModel.allocatedElsewhere). */
  inUse(pool: string, device: string): boolean {
    return used(this.pools.get(pool), device);
  }

  /** Records an entry. */
  add(entry: AllocatedEntry): void {
    const p = this.of(entry.pool);
    const d = entry.device;
    if (entry.shareId === undefined) {
      p.devices.add(d);
      return;
    }
    p.shares.add(entry.shareId === '' ? d : `${d}/${entry.shareId}`);
    p.shareCount.set(d, (p.shareCount.get(d) ?? 0) + 1);
    if (entry.consumed !== undefined) {
      const amounts = p.capacity.get(d) ?? new Map<string, Quantity>();
      addAmounts(amounts, entry.consumed);
      p.capacity.set(d, amounts);
    }
  }

  /** Removes an entry recorded before. */
  remove(entry: AllocatedEntry): void {
    const p = this.of(entry.pool);
    const d = entry.device;
    if (entry.shareId === undefined) {
      p.devices.delete(d);
      return;
    }
    p.shares.delete(entry.shareId === '' ? d : `${d}/${entry.shareId}`);
    const left = (p.shareCount.get(d) ?? 1) - 1;
    const amounts = p.capacity.get(d);
    if (amounts !== undefined && entry.consumed !== undefined) subAmounts(amounts, entry.consumed);
    if (left > 0) {
      p.shareCount.set(d, left);
      return;
    }
    // The last share gone: the device is free again (no zero amounts left to look allocated).
    p.shareCount.delete(d);
    p.capacity.delete(d);
  }

  /** The allocated state restricted to some pools (what the allocator needs for one node). */
  stateFor(pools: readonly Pool[]): AllocatedSnapshot {
    const devices = new Set<string>();
    const sharedDeviceIds = new Set<string>();
    const capacity = new Map<string, CapacityAmounts>();
    for (const pool of pools) {
      const p = this.pools.get(pool.id);
      if (p === undefined) continue;
      for (const d of p.devices) devices.add(`${pool.id}/${d}`);
      for (const d of p.shares) sharedDeviceIds.add(`${pool.id}/${d}`);
      for (const [d, amounts] of p.capacity) capacity.set(`${pool.id}/${d}`, amounts);
    }
    return { devices, sharedDeviceIds, capacity };
  }

  /** The capacity shares consume on a pool's devices, as text for a node's state key (`|/device:name=quantity,…` per device; '' for none). */
  capacityKey(pool: string): string {
    const p = this.pools.get(pool);
    let key = '';
    if (p !== undefined) for (const [d, amounts] of p.capacity) key += `|/${d}:${[...amounts].map(([n, q]) => `${n}=${q.toString()}`).join(',')}`;
    return key;
  }

  /** Every entry, as allocateClaims takes them (sorted). */
  toRequestFields(): { allocatedDevices: string[]; allocatedSharedDeviceIDs: string[]; allocatedCapacity: Record<string, Record<string, string>> } {
    const devices: string[] = [];
    const shares: string[] = [];
    const capacity: Record<string, Record<string, string>> = {};
    for (const [pool, p] of this.pools) {
      for (const d of p.devices) devices.push(`${pool}/${d}`);
      for (const d of p.shares) shares.push(`${pool}/${d}`);
      for (const [d, amounts] of p.capacity) {
        const id = `${pool}/${d}`;
        const out: Record<string, string> = {};
        for (const [name, q] of amounts) Object.defineProperty(out, name, { value: q.toString(), enumerable: true, writable: true, configurable: true });
        Object.defineProperty(capacity, id, { value: out, enumerable: true, writable: true, configurable: true });
      }
    }
    return { allocatedDevices: devices.sort(), allocatedSharedDeviceIDs: shares.sort(), allocatedCapacity: capacity };
  }

  /**
   * What a node's devices (or only its shared-pool devices, or only its own) can take alone now:
   * `free` gets the bits of devices another claim could still be given (not held whole, counters
   * left for them), `used` those held or shared. Returns how many of the walked devices are used.
   */
  walk(nodeClass: NodeClass, pools: readonly Pool[], which: 'local' | 'shared', features: ResolvedFeatures, free: Bits, usedBits: Bits): number {
    free.fill(0);
    usedBits.fill(0);
    let usedCount = 0;
    let counters: Map<Pool, PoolCountersLeft> | undefined;
    let i = 0;
    for (let p = 0; p < pools.length; p++) {
      const pool = pools[p]!;
      if (pool.incomplete || pool.invalid) continue;
      const held = this.pools.get(pool.id);
      for (const slice of pool.deviceSlices) {
        for (const device of slice.devices) {
          // The class lists the devices of pools like these in this order, and sizes its masks to them.
          const index = i++;
          if (nodeClass.devices[index]!.local !== (which === 'local')) continue;
          const shared = features.consumableCapacity && device.allowMultipleAllocations === true;
          if (used(held, device.name)) {
            usedBits[index >>> 5]! |= 1 << (index & 31);
            usedCount++;
          }
          if (!shared && held?.devices.has(device.name) === true) continue;
          if (device.consumesCounters.length > 0) {
            if (!features.partitionableDevices) continue;
            // A shared device with capacity consumed has its counters counted once already (as SearchState.take).
            if (!(shared && held?.capacity.has(device.name) === true) && !this.countersFit(device, pool, (counters ??= new Map()))) continue;
          }
          free[index >>> 5]! |= 1 << (index & 31);
        }
      }
    }
    return usedCount;
  }

  /** Whether the device alone fits the pool's counters after what others hold (SearchState.takeCounters on an empty search). */
  private countersFit(device: Device, pool: Pool, memo: Map<Pool, PoolCountersLeft>): boolean {
    let left = memo.get(pool);
    if (left === undefined) {
      const held = this.pools.get(pool.id);
      left = poolCountersLeft(pool, (d) => used(held, d.name));
      memo.set(pool, left);
    }
    const available = left.counters;
    const uses = device.consumesCounters;
    // Nothing overdrawn and each set used once: only the counters the device draws on can refuse it (the full check below, without building its sums).
    if (!left.overdrawn && uses.every((u, i) => uses.findIndex((v) => v.counterSet === u.counterSet) === i)) {
      for (const use of uses) {
        const set = available.get(use.counterSet);
        if (set !== undefined) for (const [name, q] of Object.entries(use.counters)) if ((set.get(name)?.compare(q) ?? 0) < 0) return false;
      }
      return true;
    }
    const own = new Map<string, Map<string, Quantity>>();
    for (const use of device.consumesCounters) {
      const set = own.get(use.counterSet) ?? own.set(use.counterSet, new Map()).get(use.counterSet)!;
      for (const [name, q] of Object.entries(use.counters)) set.set(name, set.get(name)?.add(q) ?? q);
    }
    for (const [setName, set] of available) {
      const use = own.get(setName);
      for (const [name, left] of set) {
        const q = use?.get(name);
        if (q === undefined ? left.sign() < 0 : left.compare(q) < 0) return false;
      }
    }
    return true;
  }
}
