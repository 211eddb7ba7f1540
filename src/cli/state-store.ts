// `gpualloc state ACTION --store URL`: the actions of `state` on a cluster state in PostgreSQL, with
// the output of the file version (the renderers are state.ts's, passed in), plus `init`. Changes go
// through the store: a release or stale mark is one transaction on the slot's node.
import type { Engine } from '../engine.js';
import { AllocationError } from '../errors.js';
import type { StoredClusterState } from '../store/stored-state.js';
import { EXIT, type Io } from './common.js';
import { initStore, redactUrl, renderInit, withStoredState } from './store.js';
// Types only (erased): state.ts imports this module, so its renderers come in through StateView.
import type { NodeEntry, SlotEntry as Entry } from './state.js';

/** state.ts's renderers, so both homes of a state print the same text. */
export type StateView = {
  entries(state: StoredClusterState): Entry[];
  nodeEntries(state: StoredClusterState): NodeEntry[];
  find(state: StoredClusterState, id: string, name: string): Entry;
  renderList(list: Entry[], name: string, now: number): string;
  renderSlot(e: Entry, now: number, node?: NodeEntry): string;
  renderNodes(nodes: NodeEntry[]): string;
  listJson(list: Entry[], nodes: NodeEntry[]): unknown;
  showJson(e: Entry, nodes: NodeEntry[]): unknown;
  renderReleased(e: Entry): string;
  renderStale(e: Entry, stale: boolean): string;
  renderGc(removed: Entry[], all: Entry[], olderThanText: string, name: string, now: number): string;
  busyLine(state: StoredClusterState): string | undefined;
};

/** What `state` parsed, for the --store path. */
export type StoreAction = {
  action: 'init' | 'list' | 'show' | 'release' | 'stale' | 'gc';
  slotId?: string;
  url: string;
  json: boolean;
  clear: boolean;
  olderThan?: number;
  olderThanText?: string;
  replace: boolean;
  inventory?: string;
  preset?: string;
};

/** Runs one `state` action on the store at `a.url`; returns the exit code. */
export async function runStateOnStore(engine: Engine, a: StoreAction, view: StateView, io: Io): Promise<number> {
  const print = (json: unknown, text: string) => io.out(a.json ? JSON.stringify(json, null, 2) + '\n' : text);
  if (a.action === 'init') {
    const report = await initStore(engine, a.url, { inventory: a.inventory, preset: a.preset, quiet: a.json }, a.replace, io);
    print(report, renderInit(report));
    return EXIT.OK;
  }
  const name = redactUrl(a.url);
  return withStoredState(engine, a.url, async (state) => {
    const now = Date.now();
    if (a.action === 'list') {
      const busy = view.busyLine(state);
      const list = view.entries(state);
      const nodes = view.nodeEntries(state);
      print(view.listJson(list, nodes), view.renderList(list, name, now) + (busy === undefined ? '' : `${busy}\n`) + view.renderNodes(nodes));
    } else if (a.action === 'show') {
      const e = view.find(state, a.slotId!, name);
      const nodes = view.nodeEntries(state);
      print(view.showJson(e, nodes), view.renderSlot(e, now, nodes.find((n) => n.id === e.node)));
    } else if (a.action === 'release') {
      const e = view.find(state, a.slotId!, name);
      await state.release(e.id);
      print({ released: e }, view.renderReleased(e));
    } else if (a.action === 'stale') {
      const e = view.find(state, a.slotId!, name);
      const stale = !a.clear;
      if (e.stale !== stale) await state.markStale(e.id, stale);
      print({ slot: { ...e, stale } }, view.renderStale(e, stale));
    } else {
      const all = view.entries(state);
      const removed: Entry[] = [];
      for (const e of all.filter((x) => x.lastActivity !== null && now - x.lastActivity > a.olderThan!)) {
        try {
          await state.release(e.id);
          removed.push(e);
        } catch (error) {
          // Released by another writer meanwhile: gone either way.
          if (!(error instanceof AllocationError && error.code === 'UNKNOWN_SLOT')) throw error;
        }
      }
      print({ removed, kept: all.length - removed.length }, view.renderGc(removed, all, a.olderThanText!, name, now));
    }
    return EXIT.OK;
  });
}
