// --store URL, the other home of a cluster state next to --state FILE: a PostgreSQL database that
// several gpualloc processes (and services embedding gpualloc) share. `plan --commit` and `state`
// go through it the same way they go through a file; commits are arbitrated by the database.
import type { Engine } from '../../engine.js';
import { PostgresStore } from '../../store/postgres.js';
import { SCHEMA_VERSION } from '../../store/migrations/index.js';
import { openClusterState, type StoredClusterState } from '../../store/stored-state.js';
import { UsageError, type Io } from './common.js';
import { initialState, initNodes, renderNodes, type InitNode, type InitSource } from './state-init.js';

/** Attempts of `plan --commit --store URL` before it reports CONFLICT (exit 1). */
export const CLI_COMMIT_ATTEMPTS = 5;

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** Connects to the --store URL (postgres:// or postgresql://), bringing its schema up to date. */
export async function connectStore(url: string): Promise<PostgresStore> {
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new UsageError(`--store: expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redactUrl(url))}`);
  return PostgresStore.connect(url, { maxConnections: 1, applicationName: 'gpualloc-cli' });
}

/**
 * Runs `fn` on the state kept at `url` (loaded once; no LISTEN: a CLI run is short) and closes the
 * connection afterwards. A store without nodes is a usage error that says how to create them.
 */
export async function withStoredState<T>(engine: Engine, url: string, fn: (state: StoredClusterState, store: PostgresStore) => Promise<T>): Promise<T> {
  const store = await connectStore(url);
  try {
    const state = await openClusterState(engine, store, { watch: false });
    if (state.nodes().length === 0) throw new UsageError(`--store ${redactUrl(url)}: schema ${store.schema} holds no nodes yet (gpualloc state init --store URL --preset NAME creates them)`);
    return await fn(state, store);
  } finally {
    await store.close();
  }
}

/** What `state init --store` reports. */
export type StoreInitReport = { store: string; schema: string; schemaVersion: number; nodes: InitNode[] };

/**
 * `gpualloc state init --store URL (--preset NAME | --inventory FILE) [--replace]`: creates the
 * schema (migrations) and the node of the inventory (through nodeFromInventory, as plan --state
 * does). A store that already holds nodes is STORE_NOT_EMPTY (exit 2) unless --replace.
 */
export async function initStore(engine: Engine, url: string, source: InitSource, replace: boolean, io: Io): Promise<StoreInitReport> {
  const state = await initialState(engine, source, io);
  const store = await connectStore(url);
  try {
    await store.init(state, { replace });
    return {
      store: redactUrl(url),
      schema: store.schema,
      schemaVersion: SCHEMA_VERSION,
      nodes: initNodes(state),
    };
  } finally {
    await store.close();
  }
}

/** One line per node of an init report. */
export function renderInit(report: StoreInitReport): string {
  return `initialised ${report.store} (schema ${report.schema}, version ${report.schemaVersion})\n${renderNodes(report.nodes)}`;
}

