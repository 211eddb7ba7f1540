// What a search has tentatively allocated so far, with exact undo: devices taken per claim, shared
// counters consumed per pool (partitionable devices), capacity consumed on shared devices, and the
// claims' constraints. Every `take` returns an undo that restores the state exactly.

import {
  type AllocationModel,
  addAmounts,
  type CandidateDevice,
  type CapacityAmounts,
  type Constraint,
  consumedCapacity,
  type Pool,
  type RequestModel,
  subAmounts,
  taintPreventsAllocation,
} from '../model/index.js';
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

/** Counter set → counter → amount in nano units (what a search consumes: only compared, never printed). */
type NanoCounters = Map<string, Map<string, bigint>>;

/** The tentative allocation of one search. */
export class SearchState {
  /** Per claim, the devices picked so far, in pick order. */
  readonly picked: PickedDevice[][];
  readonly constraints: Constraint[][];
  // takenBy[claim][candidate]: the device is allocated to that claim (exclusive devices only).
  private readonly takenBy: Uint8Array[];
  private readonly takenCount: Int32Array;
  // The maps below are made on first use: most searches take no partitionable or shared device.
  private consumed?: Map<Pool, NanoCounters>;
  // Shares of each shared device in this search, with the capacity they consume.
  private shares?: Map<number, { count: number; amounts: CapacityAmounts }>;

  constructor(readonly model: AllocationModel) {
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
    let countersTaken = false;
    if (!skipCounters && c.device.consumesCounters.length > 0) {
      if (!this.takeCounters(c)) return undefined;
      countersTaken = true;
    }
    const undoCounters = (): void => {
      if (countersTaken) this.releaseCounters(c);
    };
    if (model.features.deviceTaints && taintPreventsAllocation(c.device.taints, request.body.tolerations)) {
      undoCounters();
      return undefined;
    }
    const constraints = this.constraints[claim]!;
    const who = { base: request.base, sub: request.sub };
    let added = 0;
    const undoConstraints = (): void => {
      for (let i = added - 1; i >= 0; i--) constraints[i]!.remove(who);
    };
    for (; added < constraints.length; added++) {
      let fits: boolean;
      try {
        fits = constraints[added]!.add(who, c.device, c.driver, c.id);
      } catch (error) {
        undoConstraints();
        undoCounters();
        throw error;
      }
      if (fits) continue;
      undoConstraints();
      undoCounters();
      if (must) {
        throw draError('DRA_REJECTED', `claim ${model.claims[claim]!.label}, request ${request.sub ?? request.base}: cannot add device ${c.id} because a claim constraint would not be satisfied`);
      }
      return undefined;
    }
    let consumed: CapacityAmounts | undefined;
    if (model.features.consumableCapacity) {
      if (!this.capacityFits(request, index)) {
        undoConstraints();
        undoCounters();
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
      undoConstraints();
      undoCounters();
    };
  }

  /** Counters of the pool left after the allocations of other claims: counter set → counter → amount (the model's, computed once per pool). */
  countersLeft(pool: Pool): ReadonlyMap<string, ReadonlyMap<string, Quantity>> {
    return this.model.countersLeft(pool).counters;
  }

  private takeCounters(c: CandidateDevice): boolean {
    const left = this.model.countersLeft(c.pool);
    const uses = c.counterUses;
    const consumedIn = (this.consumed ??= new Map());
    let consumed = consumedIn.get(c.pool);
    if (consumed === undefined) {
      consumed = new Map();
      consumedIn.set(c.pool, consumed);
    }
    for (const use of uses) {
      let set = consumed.get(use.counterSet);
      if (set === undefined) {
        set = new Map();
        consumed.set(use.counterSet, set);
      }
      // names and nanos have one entry per counter of the use.
      for (let i = 0; i < use.names.length; i++) set.set(use.names[i]!, (set.get(use.names[i]!) ?? 0n) + use.nanos[i]!);
    }
    // Every counter of the pool must stay within what is available (as upstream checks it). Before
    // this take every counter was (each take checked it, and none was overdrawn at the start), so
    // only the counters this device draws on can have gone over.
    if (left.overdrawn) {
      this.releaseCounters(c);
      return false;
    }
    for (const use of uses) {
      const counters = left.counters.get(use.counterSet);
      const used = consumed.get(use.counterSet);
      if (counters === undefined || used === undefined) continue;
      for (const name of use.names) {
        const have = counters.get(name);
        if (have !== undefined && have.nanoValue() < (used.get(name) as bigint)) {
          this.releaseCounters(c);
          return false;
        }
      }
    }
    return true;
  }

  private releaseCounters(c: CandidateDevice): void {
    const consumed = this.consumed?.get(c.pool) as NanoCounters; // takeCounters made it
    for (const use of c.counterUses) {
      const set = consumed.get(use.counterSet) as Map<string, bigint>;
      // names and nanos have one entry per counter of the use.
      for (let i = 0; i < use.names.length; i++) set.set(use.names[i]!, (set.get(use.names[i]!) as bigint) - use.nanos[i]!);
    }
  }
}
