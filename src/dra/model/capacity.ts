// Consumable capacity (DRAConsumableCapacity): how much of each capacity a request consumes on a
// device (its request rounded by the capacity's requestPolicy, or the default, or all of it) and
// whether that still fits next to what is allocated and being allocated. Exact decimal arithmetic
// on Quantity (upstream rounds through int64 Value(); the two agree on whole numbers).
import { type CapacityRequestPolicy, type DeviceCapacity, Quantity } from '../objects/index.js';

/** Capacity name → amount. */
export type CapacityAmounts = Map<string, Quantity>;

/** A quantity of `nanos` × 10^-9, printed in `like`'s format. */
function fromNanos(nanos: bigint, like: Quantity): Quantity {
  const value = Quantity.parse(`${nanos}n`);
  // add/sub keep the left operand's format: like + value - like has like's format.
  return like.isZero() ? value : like.add(value).sub(like);
}

/** What a request consumes of one capacity: upstream's calculateConsumedCapacity. */
export function consumedAmount(requested: Quantity | undefined, capacity: DeviceCapacity): Quantity {
  const policy = capacity.requestPolicy;
  if (requested === undefined) return policy?.default ?? capacity.value;
  if (policy === undefined) return requested;
  const range = policy.validRange;
  if (range !== undefined) {
    if (requested.compare(range.min) < 0) return range.min;
    const step = range.step;
    if (step === undefined) return requested;
    const added = requested.nanoValue() - range.min.nanoValue();
    const s = step.nanoValue();
    const n = (added + s - 1n) / s;
    return fromNanos(range.min.nanoValue() + n * s, step);
  }
  if (policy.validValues !== undefined && policy.validValues.length > 0) {
    for (const v of policy.validValues) if (requested.compare(v) <= 0) return v;
    return requested;
  }
  return requested;
}

/** Whether an amount breaks the policy (upstream's violatesPolicy: max, step multiples, valid values). */
export function violatesPolicy(amount: Quantity, policy: CapacityRequestPolicy | undefined): boolean {
  if (policy === undefined) return false;
  if (policy.default !== undefined && amount.compare(policy.default) === 0) return false;
  const range = policy.validRange;
  if (range !== undefined) {
    if (range.max !== undefined && amount.compare(range.max) > 0) return true;
    if (range.step !== undefined && (amount.nanoValue() - range.min.nanoValue()) % range.step.nanoValue() !== 0n) return true;
    return false;
  }
  if (policy.validValues !== undefined && policy.validValues.length > 0) return !policy.validValues.some((v) => v.compare(amount) === 0);
  return false;
}

/** Every capacity of the device with what the request consumes of it (GetConsumedCapacityFromRequest). */
export function consumedCapacity(requests: Readonly<Record<string, Quantity>> | undefined, capacity: Readonly<Record<string, DeviceCapacity>>): CapacityAmounts {
  const out: CapacityAmounts = new Map();
  for (const name of Object.keys(capacity)) out.set(name, consumedAmount(requests?.[name], capacity[name]!));
  return out;
}

/**
 * Whether the request fits the device's capacities next to `allocated` (already in other claims) and
 * `allocating` (in this call): upstream's CmpRequestOverCapacity. A request for a capacity the device
 * lacks, a negative amount, or an amount the policy forbids does not fit.
 */
export function fitsCapacity(
  requests: Readonly<Record<string, Quantity>> | undefined,
  capacity: Readonly<Record<string, DeviceCapacity>>,
  allocated: CapacityAmounts | undefined,
  allocating: CapacityAmounts | undefined,
): boolean {
  if (requests !== undefined) for (const name of Object.keys(requests)) if (!(name in capacity)) return false;
  // One pass over the capacities, nothing built: the answer is the same whichever check fails first.
  for (const name of Object.keys(capacity)) {
    const device = capacity[name]!; // a key of capacity
    const amount = consumedAmount(requests?.[name], device);
    if (amount.sign() < 0) return false;
    if (violatesPolicy(amount, device.requestPolicy)) return false;
    let total = amount;
    const before = allocated?.get(name);
    if (before !== undefined) total = before.add(total);
    const pending = allocating?.get(name);
    if (pending !== undefined) total = total.add(pending);
    if (total.compare(device.value) > 0) return false;
  }
  return true;
}

/** Adds `amounts` into `into` (creating entries). */
export function addAmounts(into: CapacityAmounts, amounts: CapacityAmounts): void {
  for (const [name, q] of amounts) {
    const have = into.get(name);
    into.set(name, have === undefined ? q : have.add(q));
  }
}

/** Subtracts `amounts` from `from`. */
export function subAmounts(from: CapacityAmounts, amounts: CapacityAmounts): void {
  for (const [name, q] of amounts) {
    const have = from.get(name);
    if (have !== undefined) from.set(name, have.sub(q));
  }
}
