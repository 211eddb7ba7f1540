// The changes of `gpualloc state` (release, stale, touch, gc), for a state file (a ClusterState read
// under the file's lock, written back once) and a --store state (each change a transaction) alike:
// the same checks, the same order of calls and the same output.

import type { ClusterState, ReleaseOptions } from '../../cluster/state.js';
import { AllocationError } from '../../shared/errors.js';
import { entries, find, idleEntries, renderGc, renderReleased, renderStale, renderTouched, type SlotEntry } from './state-view.js';

/** What the changes use of a state: ClusterState's (sync) or StoredClusterState's (async) methods. */
export type ChangeTarget = Pick<ClusterState, 'nodes' | 'listSlots'> & {
  release(slotId: string, options?: ReleaseOptions): void | Promise<void>;
  touch(slotId: string, at: number): void | Promise<void>;
  markStale(slotId: string, stale: boolean): void | Promise<void>;
};

/** One change as `state` parsed it. */
export type ChangeRequest = {
  action: 'release' | 'stale' | 'touch' | 'gc';
  /** release, stale: one slot; touch: one or more. */
  slotIds: string[];
  clear: boolean;
  /** gc: the duration in ms and as the user wrote it, and --dry-run. */
  olderThan?: number;
  olderThanText?: string;
  dryRun: boolean;
};

/** What a change printed (as JSON and text) and whether it changed the state (a file is then written). */
export type ChangeResult = { json: unknown; text: string; changed: boolean };

/** Runs one change on `state` (`name`: the file or store as messages name it) at time `now`. */
export async function runChange(state: ChangeTarget, r: ChangeRequest, name: string, now: number): Promise<ChangeResult> {
  // state's parser gives release and stale exactly one slot ID.
  if (r.action === 'release') {
    const e = find(state, r.slotIds[0]!, name);
    await state.release(e.id);
    return { json: { released: e }, text: renderReleased(e), changed: true };
  }
  if (r.action === 'stale') {
    const e = find(state, r.slotIds[0]!, name);
    const stale = !r.clear;
    // --clear says the slot is in use: its activity is recorded too, so gc does not take it for idle.
    // Touched first: a failure in between leaves the slot stale with fresh activity, never unmarked and idle.
    if (!stale) await state.touch(e.id, now);
    if (e.stale !== stale) await state.markStale(e.id, stale);
    const after = find(state, e.id, name);
    return { json: { slot: { ...e, stale, lastActivity: after.lastActivity } }, text: renderStale(e, stale), changed: !stale || e.stale !== stale };
  }
  if (r.action === 'touch') {
    // Every ID is checked before any is touched: an unknown one changes nothing.
    const ids = [...new Set(r.slotIds)];
    const before = ids.map((id) => find(state, id, name));
    for (const e of before) await state.touch(e.id, now);
    return { json: { touched: ids.map((id) => find(state, id, name)) }, text: renderTouched(before, now), changed: true };
  }
  const all = entries(state);
  const idle = idleEntries(all, now, r.olderThan!);
  const shown = { olderThanText: r.olderThanText!, name, now, dryRun: r.dryRun };
  if (r.dryRun) return { json: { wouldRemove: idle, kept: all.length - idle.length, dryRun: true }, text: renderGc(idle, all, shown), changed: false };
  const removed: SlotEntry[] = [];
  let active = 0;
  const gone = new Set<string>();
  for (const e of idle) {
    try {
      // Only if still idle where the state is kept: a slot touched since the listing stays.
      await state.release(e.id, { idleBefore: now - r.olderThan! });
      removed.push(e);
    } catch (error) {
      if (!(error instanceof AllocationError)) throw error;
      if (error.code === 'CONFLICT') active++;
      else if (error.code === 'UNKNOWN_SLOT')
        gone.add(e.id); // released by another writer meanwhile: gone either way
      else throw error;
    }
  }
  const left = all.filter((e) => !gone.has(e.id));
  return { json: { removed, kept: left.length - removed.length }, text: renderGc(removed, left, { ...shown, active }), changed: removed.length > 0 };
}
