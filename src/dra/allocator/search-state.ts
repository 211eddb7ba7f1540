// What a search has tentatively allocated so far, with exact undo: devices taken per claim, shared
// counters consumed per pool (partitionable devices), capacity consumed on shared devices, and the
// claims' constraints. Every `take` returns an undo that restores the state exactly.

import { type AllocationModel, addAmounts, type CapacityAmounts, type Constraint, consumedCapacity, type Pool, type RequestModel, subAmounts, taintPreventsAllocation } from '../model/index.js';
import { draError, type Quantity } from '../objects/index.js';

/** One device picked for a request. */
export interface PickedDevice {
  request: RequestModel;
  index: number;
  /** What the request consumes of a shared device (absent otherwise or when empty). */
  consumed?: CapacityAmounts;
  /** Set for a share of a device that allows multiple allocations. */
  shared: boolean;
}

/**
 * One pool's counters as searches draw on them: a slot per counter that other claims left an amount
 * of (counter set → counter → slot) and that amount, exact nano amounts (only compared, never
 * printed); its position among the pools drawn on.
 */
interface PoolSlots {
  readonly at: number;
  readonly slot: Map<string, Map<string, number>>;
  readonly have: readonly bigint[];
  /** Some counter of the pool is below zero already: nothing drawing on its counters fits. */
  readonly overdrawn: boolean;
}

/** What one device draws on: its pool's slots, and per slot it names (once each) the amount, summed over its uses. */
interface DeviceDraw {
  readonly pool: PoolSlots;
  readonly slots: readonly number[];
  readonly nanos: readonly bigint[];
}

/**
 * What the model's candidates draw on their pools' counters, as slots: read on first use, per pool
 * and per candidate, from what other claims left (AllocationModel.countersLeft, fixed for the
 * model's life). The searches on one model may share one (the scored mode's short search, its full
 * search and the replay of the best allocation).
 */
export class CounterSlots {
  private readonly pools = new Map<Pool, PoolSlots>();
  private readonly draws: Array<DeviceDraw | undefined> = [];
  // alone[candidate]: 0 not asked yet, 1 fits alone, 2 does not (fitsAlone, made on first use).
  private alone?: Uint8Array;

  constructor(readonly model: AllocationModel) {}

  /**
   * Whether searches on `model` may use these slots: it lists the same candidates (the same list, as
   * a cluster handle keeps per node) and, as the caller vouches, other claims hold the same there.
   */
  fits(model: AllocationModel): boolean {
    return model === this.model || (model.candidates === this.model.candidates && model.pools === this.model.pools);
  }

  /**
   * Whether candidate `index` fits its pool's counters with nothing else of the search taken: a
   * device that does not fits no search on the model (takes only consume more).
   */
  fitsAlone(index: number): boolean {
    const fits = (this.alone ??= new Uint8Array(this.model.candidates.length));
    if (fits[index] === 0) fits[index] = this.fitsAloneNow(index) ? 1 : 2;
    return fits[index] === 1;
  }

  private fitsAloneNow(index: number): boolean {
    const c = this.model.candidates[index]!;
    if (c.device.consumesCounters.length === 0) return true;
    if (!this.model.features.partitionableDevices) return false;
    const { pool, slots, nanos } = this.drawOf(index);
    if (pool.overdrawn) return false;
    // As in SearchState.takeCounters, with nothing used.
    for (let i = 0; i < slots.length; i++) if (nanos[i]! > pool.have[slots[i]!]!) return false;
    return true;
  }

  /** What candidate `index` draws (a device consuming counters). */
  drawOf(index: number): DeviceDraw {
    let draw = this.draws[index];
    if (draw !== undefined) return draw;
    const c = this.model.candidates[index]!;
    let pool = this.pools.get(c.pool);
    if (pool === undefined) {
      const left = this.model.countersLeft(c.pool);
      const slot = new Map<string, Map<string, number>>();
      const have: bigint[] = [];
      for (const [set, counters] of left.counters) {
        const slots = new Map<string, number>();
        for (const [name, q] of counters) {
          slots.set(name, have.length);
          have.push(q.nanoValue());
        }
        slot.set(set, slots);
      }
      pool = { at: this.pools.size, slot, have, overdrawn: left.overdrawn };
      this.pools.set(c.pool, pool);
    }
    // Counters other claims left nothing of (no such set or counter in the pool) are never checked, so not drawn.
    const slots: number[] = [];
    const nanos: bigint[] = [];
    for (const use of c.counterUses) {
      const set = pool.slot.get(use.counterSet);
      if (set === undefined) continue;
      // names and nanos have one entry per counter of the use.
      for (let i = 0; i < use.names.length; i++) {
        const s = set.get(use.names[i]!);
        if (s === undefined) continue;
        const at = slots.indexOf(s);
        if (at < 0) {
          slots.push(s);
          nanos.push(use.nanos[i]!);
        } else nanos[at]! += use.nanos[i]!;
      }
    }
    draw = { pool, slots, nanos };
    this.draws[index] = draw;
    return draw;
  }
}

/** The tentative allocation of one search. */
export class SearchState {
  /** Per claim, the devices picked so far, in pick order. */
  readonly picked: PickedDevice[][];
  readonly constraints: Constraint[][];
  // takenBy[claim][candidate]: the device is allocated to that claim (exclusive devices only).
  private readonly takenBy: Uint8Array[];
  private readonly takenCount: Int32Array;
  // What the search consumes of each pool's counters, by the pool's position and slot (CounterSlots), made on first use.
  private readonly used: bigint[][] = [];
  // Shares of each shared device in this search, with the capacity they consume.
  private shares?: Map<number, { count: number; amounts: CapacityAmounts }>;

  /** `counters`: the model's counter slots, when the caller shares them between searches on the model. */
  constructor(
    readonly model: AllocationModel,
    private readonly counters: CounterSlots = new CounterSlots(model),
  ) {
    if (!counters.fits(model)) throw new Error('SearchState: the counter slots were read for other candidates');
    const n = model.candidates.length;
    this.picked = model.claims.map(() => []);
    this.constraints = model.claims.map((c) => c.constraints());
    this.takenBy = model.claims.map(() => new Uint8Array(n));
    this.takenCount = new Int32Array(n);
  }

  /** Allocated to another claim, or to any claim of this search. */
  // `index` is a candidate index and `claimIndex` a claim's position here and below: in range by construction.
  inUse(index: number): boolean {
    return this.model.allocated.devices.has(this.model.candidates[index]!.id) || this.takenCount[index]! > 0;
  }

  /** Taken by this claim in this search. */
  takenByClaim(index: number, claimIndex: number): boolean {
    return this.takenBy[claimIndex]![index] === 1;
  }

  /** Capacity this search already takes from a shared device. */
  sharing(index: number): CapacityAmounts | undefined {
    return this.shares?.get(index)?.amounts;
  }

  /** Whether the request's capacity still fits the device now. */
  capacityFits(request: RequestModel, index: number): boolean {
    return this.model.capacityFits(request, index, this.sharing(index));
  }

  /**
   * Picks `index` for `request` if availability, counters, taints and the claim's constraints allow;
   * returns the undo, or undefined (nothing changed). `must` (allocationMode All): a constraint that
   * refuses the device is an error, as upstream reports it.
   */
  take(request: RequestModel, index: number, must: boolean): (() => void) | undefined {
    const model = this.model;
    const c = model.candidates[index]!;
    const claim = request.claimIndex;
    const shared = c.shared;
    if (!shared && request.adminAccess && this.takenByClaim(index, claim)) return undefined;
    if (!request.adminAccess && this.inUse(index)) return undefined;
    if (!model.features.partitionableDevices && c.device.consumesCounters.length > 0) return undefined;
    // A device already shared (here or by other claims) has its counters accounted once already.
    const skipCounters = shared && (model.allocated.capacity.has(c.id) || this.shares?.has(index) === true);
    let draw: DeviceDraw | undefined;
    if (!skipCounters && c.device.consumesCounters.length > 0) {
      draw = this.counters.drawOf(index);
      if (!this.takeCounters(draw)) return undefined;
    }
    if (model.features.deviceTaints && taintPreventsAllocation(c.device.taints, request.body.tolerations)) {
      if (draw !== undefined) this.releaseCounters(draw);
      return undefined;
    }
    const constraints = this.constraints[claim]!;
    // Who the constraints hold the device for (made only for a claim with constraints).
    const who = constraints.length === 0 ? undefined : { base: request.base, sub: request.sub };
    let added = 0;
    if (who !== undefined) {
      for (; added < constraints.length; added++) {
        let fits: boolean;
        try {
          fits = constraints[added]!.add(who, c.device, c.driver, c.id);
        } catch (error) {
          this.undoTake(constraints, who, added, draw);
          throw error;
        }
        if (fits) continue;
        this.undoTake(constraints, who, added, draw);
        if (must) {
          throw draError('DRA_REJECTED', `claim ${model.claims[claim]!.label}, request ${request.sub ?? request.base}: cannot add device ${c.id} because a claim constraint would not be satisfied`);
        }
        return undefined;
      }
    }
    let consumed: CapacityAmounts | undefined;
    if (model.features.consumableCapacity) {
      if (!this.capacityFits(request, index)) {
        this.undoTake(constraints, who, added, draw);
        return undefined;
      }
      if (shared) consumed = consumedCapacity(request.body.capacity?.requests, c.device.capacity);
    }
    const takenBy = this.takenBy[claim]!;
    const picked = this.picked[claim]!;
    if (!shared) {
      takenBy[index] = 1;
      this.takenCount[index]!++;
    } else {
      const shares = (this.shares ??= new Map());
      const entry = shares.get(index) ?? { count: 0, amounts: new Map() };
      entry.count++;
      addAmounts(entry.amounts, consumed as CapacityAmounts);
      shares.set(index, entry);
    }
    const pick: PickedDevice = { request, index, shared };
    if (consumed !== undefined && consumed.size > 0) pick.consumed = consumed;
    picked.push(pick);
    return () => {
      picked.pop();
      if (!shared) {
        takenBy[index] = 0;
        this.takenCount[index]!--;
      } else {
        const shares = this.shares as Map<number, { count: number; amounts: CapacityAmounts }>; // made by the take this undoes
        const entry = shares.get(index) as { count: number; amounts: CapacityAmounts };
        subAmounts(entry.amounts, consumed as CapacityAmounts);
        if (--entry.count === 0) shares.delete(index);
      }
      this.undoTake(constraints, who, added, draw);
    };
  }

  /** Removes the device from the first `added` constraints (newest first) and gives back what it drew of the counters. */
  private undoTake(constraints: readonly Constraint[], who: { base: string; sub: string | undefined } | undefined, added: number, draw: DeviceDraw | undefined): void {
    // added ≤ constraints.length; who is set whenever added > 0.
    for (let i = added - 1; i >= 0; i--) constraints[i]!.remove(who as { base: string; sub: string | undefined });
    if (draw !== undefined) this.releaseCounters(draw);
  }

  /** Counters of the pool left after the allocations of other claims: counter set → counter → amount (the model's, computed once per pool). */
  countersLeft(pool: Pool): ReadonlyMap<string, ReadonlyMap<string, Quantity>> {
    return this.model.countersLeft(pool).counters;
  }

  /**
   * Consumes what the device draws if every counter of the pool stays within what is available (as
   * upstream checks it); otherwise changes nothing. Before this take every counter was (each take
   * checked it, and none was overdrawn at the start), so only the counters it draws on can go over.
   */
  private takeCounters(draw: DeviceDraw): boolean {
    const { pool, slots, nanos } = draw;
    if (pool.overdrawn) return false;
    const have = pool.have;
    const used = (this.used[pool.at] ??= have.map(() => 0n));
    // slots index the pool's have and used; nanos has one entry per slot.
    for (let i = 0; i < slots.length; i++) if (used[slots[i]!]! + nanos[i]! > have[slots[i]!]!) return false;
    for (let i = 0; i < slots.length; i++) used[slots[i]!]! += nanos[i]!;
    return true;
  }

  private releaseCounters(draw: DeviceDraw): void {
    const { pool, slots, nanos } = draw;
    const used = this.used[pool.at]!; // made by the take this gives back
    // As in takeCounters.
    for (let i = 0; i < slots.length; i++) used[slots[i]!]! -= nanos[i]!;
  }
}
