// `gpualloc state ACTION --store URL`: the actions of `state` on a cluster state in PostgreSQL, with
// the output of the file version (state-view.ts, state-actions.ts), plus `init`. Changes go
// through the store: a release, stale mark or touch is one transaction on the slot's node.
import type { Engine } from '../../engine.js';
import { EXIT, type Io } from './common.js';
import { type ChangeRequest, runChange } from './state-actions.js';
import { find, listOutput, renderReleased, showOutput } from './state-view.js';
import { exitOnUnknown, initStore, redactUrl, renderInit, withStoredState } from './store.js';

/** What `state` parsed, for the --store path. */
export type StoreAction = {
  action: 'init' | 'list' | 'show' | 'release' | 'stale' | 'touch' | 'gc';
  slotId?: string;
  /** The change, for release, stale, touch and gc. */
  change?: ChangeRequest;
  url: string;
  json: boolean;
  replace: boolean;
  inventory?: string[] | undefined;
  preset?: string | undefined;
  /** init: copies of the preset, and labels on every node. */
  nodes?: number | undefined;
  labels?: Record<string, string> | undefined;
  /** init: the run-time role to grant. */
  grant?: string;
  /** release: the change's request ID (a repeat of a release that landed succeeds). */
  requestId?: string;
};

/** Runs one `state` action on the store at `a.url`; returns the exit code. */
export async function runStateOnStore(engine: Engine, a: StoreAction, io: Io): Promise<number> {
  const print = (json: unknown, text: string) => io.out(a.json ? JSON.stringify(json, null, 2) + '\n' : text);
  if (a.action === 'init') {
    const report = await initStore(
      engine,
      a.url,
      { inventory: a.inventory, preset: a.preset, nodes: a.nodes, labels: a.labels, quiet: a.json },
      { replace: a.replace, ...(a.grant === undefined ? {} : { grant: a.grant }) },
      io,
    );
    print(report, renderInit(report));
    return EXIT.OK;
  }
  const name = redactUrl(a.url);
  return exitOnUnknown(io, a.json, () =>
    withStoredState(engine, a.url, io.env, async (state) => {
      const now = Date.now();
      if (a.action === 'list' || a.action === 'show') {
        const { json, text } = a.action === 'list' ? listOutput(state, name, now) : showOutput(state, a.slotId!, name, now);
        print(json, text);
      } else if (a.action === 'release') {
        const request = a.requestId === undefined ? {} : { requestId: a.requestId };
        if (a.requestId !== undefined && !state.listSlots().some((s) => s.id === a.slotId)) {
          // A repeat of a release that may have landed: the store answers from the request's record (or UNKNOWN_SLOT).
          await state.release(a.slotId!, request);
          print({ released: { id: a.slotId }, replayed: true }, `slot ${a.slotId} was released before, by request ${a.requestId}; nothing new was changed\n`);
        } else {
          const e = find(state, a.slotId!, name);
          await state.release(e.id, request);
          print({ released: e }, renderReleased(e));
        }
      } else {
        const { json, text } = await runChange(state, a.change!, name, now);
        print(json, text);
      }
      return EXIT.OK;
    }),
  );
}
