// Slot activity: when a slot was last used (lastActivity, ms since the epoch), what a touch records
// and the condition a garbage collector's release puts on it. Shared by ClusterState and the stores,
// so a release with idleBefore answers the same everywhere.

import type { Slot } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import { fail, readInput, rejectUnknownKeys, requireObject } from '../shared/validate.js';

/** Options of release: `idleBefore` (ms since the epoch): release only a slot whose last activity is before it. */
export type ReleaseOptions = { idleBefore?: number };

/** A time in ms since the epoch (a finite number), or INVALID_ARGUMENT naming `field`. */
export function activityTime(field: string, at: unknown): number {
  if (typeof at !== 'number' || !Number.isFinite(at)) fail('INVALID_ARGUMENT', field, 'a finite number (ms since the epoch)', at);
  return at as number;
}

/** release's options, checked (unknown keys are errors). */
export function releaseOptions(options: unknown): ReleaseOptions {
  const o = requireObject('options', readInput('options', options));
  rejectUnknownKeys('options', o, ['idleBefore']);
  return o.idleBefore === undefined ? {} : { idleBefore: activityTime('options.idleBefore', o.idleBefore) };
}

/** CONFLICT unless `slot` was last active before `options.idleBefore` (no condition: passes). */
export function checkIdle(slot: Slot, options: ReleaseOptions): void {
  const before = options.idleBefore;
  if (before === undefined) return;
  const at = slot.lastActivity;
  if (at !== undefined && at < before) return;
  const why = at === undefined ? 'has no recorded activity' : `was active at ${isoTime(at)}, not before ${isoTime(before)}`;
  throw new AllocationError('CONFLICT', `slot ${JSON.stringify(slot.id)} ${why}; it was not released`, { field: 'options.idleBefore', details: { slot: slot.id } });
}

/** A time as ISO 8601 where it is one, else the number. */
function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
