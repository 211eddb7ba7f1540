// --store URL, the other home of a cluster state next to --state FILE: a PostgreSQL database that
// several gpualloc processes (and services embedding gpualloc) share. `plan --commit` and `state`
// go through it the same way they go through a file; commits are arbitrated by the database.
// The URL may be left to GPUALLOC_STORE, and its password to the libpq environment (PGPASSWORD,
// ~/.pgpass, PGSERVICE); a change whose COMMIT was in flight when the store went away exits 4.
import type { Engine } from '../../engine.js';
import { AllocationError } from '../../shared/errors.js';
import { openClusterState, PostgresStore, redactUrl, SCHEMA_VERSION, type StoredClusterState, urlHasPassword } from '../../store/index.js';
import { type Io, reportError, UsageError } from './common.js';
import { type InitNode, type InitSource, initialState, initNodes, renderNodes } from './state-init.js';

/** Attempts of `plan --commit --store URL` before it reports CONFLICT (exit 1). */
export const CLI_COMMIT_ATTEMPTS = 5;

/** Exit code of a store change whose outcome is unknown (the store became unreachable while its COMMIT was in flight): repeat it with the same --request-id. */
export const EXIT_OUTCOME_UNKNOWN = 4;

export { redactUrl };

/**
 * The store a command uses: --store URL; else, when --state FILE is not given either, the
 * GPUALLOC_STORE variable. Warns (stderr) when --store carries a password, which the process list
 * and shell history show to others.
 */
export function storeUrlOf(values: { store?: string; state?: string }, io: Io): string | undefined {
  if (values.store !== undefined) {
    if (urlHasPassword(values.store))
      io.err(
        'gpualloc: warning: the password in --store is visible to other users (process list, shell history); use PGPASSWORD, a password file (~/.pgpass or PGPASSFILE), a service (PGSERVICE), or GPUALLOC_STORE instead\n',
      );
    return values.store;
  }
  if (values.state !== undefined) return undefined;
  const fromEnv = io.env.GPUALLOC_STORE;
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** Whether `error` says a change may or may not have landed (see EXIT_OUTCOME_UNKNOWN). */
export function outcomeUnknown(error: unknown): boolean {
  return error instanceof AllocationError && error.code === 'STORE_UNAVAILABLE' && error.details?.outcome === 'unknown';
}

/** Runs a store change; an unknown outcome is reported and exits EXIT_OUTCOME_UNKNOWN (not 2, which says nothing changed). */
export async function exitOnUnknown(io: Io, json: boolean, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (error) {
    if (!outcomeUnknown(error)) throw error;
    reportError(error, io, json);
    return EXIT_OUTCOME_UNKNOWN;
  }
}

/** Connects to the store URL (postgres:// or postgresql://; the rest from the libpq variables in `env`; GPUALLOC_STORE_RETRY_MS: how long to ride out an unreachable server), bringing its schema up to date. */
export async function connectStore(url: string, env: Record<string, string | undefined>): Promise<PostgresStore> {
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new UsageError(`--store: expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redactUrl(url))}`);
  const retry = env.GPUALLOC_STORE_RETRY_MS;
  if (retry !== undefined && retry !== '' && !/^[0-9]{1,7}$/.test(retry)) throw new UsageError(`GPUALLOC_STORE_RETRY_MS: expected milliseconds (0 to 3600000), got ${JSON.stringify(retry)}`);
  return PostgresStore.open(url, { maxConnections: 1, applicationName: 'gpualloc-cli', env, ...(retry === undefined || retry === '' ? {} : { retryMs: Number(retry) }) });
}

/**
 * Runs `fn` on the state kept at `url` (loaded once; no LISTEN: a CLI run is short) and closes the
 * connection afterwards. A store without nodes is a usage error that says how to create them.
 */
export async function withStoredState<T>(engine: Engine, url: string, env: Record<string, string | undefined>, fn: (state: StoredClusterState, store: PostgresStore) => Promise<T>): Promise<T> {
  const store = await connectStore(url, env);
  try {
    const state = await openClusterState(engine, store, { watch: false });
    if (state.nodes().length === 0) throw new UsageError(`--store ${redactUrl(url)}: schema ${store.schema} holds no nodes yet (gpualloc state init --store URL --preset NAME creates them)`);
    return await fn(state, store);
  } finally {
    await store.close();
  }
}

/** What `state init --store` reports (`granted`: the run-time role of --grant). */
export type StoreInitReport = { store: string; schema: string; schemaVersion: number; nodes: InitNode[]; granted?: string };

/**
 * `gpualloc state init --store URL (--preset NAME | --inventory FILE) [--replace] [--grant ROLE]`:
 * creates the schema (migrations) and the node of the inventory (through nodeFromInventory, as plan
 * --state does). A store that already holds nodes is STORE_NOT_EMPTY (exit 2) unless --replace.
 * --grant gives a run-time role what plan, commit and release need (PostgresStore.grant); with
 * --grant alone, the schema is brought up to date and granted without creating nodes.
 */
export async function initStore(engine: Engine, url: string, source: InitSource, options: { replace: boolean; grant?: string }, io: Io): Promise<StoreInitReport> {
  const grantOnly = options.grant !== undefined && source.inventory === undefined && source.preset === undefined;
  const state = grantOnly ? undefined : await initialState(engine, source, io);
  const store = await connectStore(url, io.env);
  try {
    if (state !== undefined) await store.init(state, { replace: options.replace });
    if (options.grant !== undefined) await store.grant(options.grant);
    return {
      store: redactUrl(url),
      schema: store.schema,
      schemaVersion: SCHEMA_VERSION,
      nodes: state === undefined ? [] : initNodes(state),
      ...(options.grant === undefined ? {} : { granted: options.grant }),
    };
  } finally {
    await store.close();
  }
}

/** One line per node of an init report, and the grant. */
export function renderInit(report: StoreInitReport): string {
  const granted = report.granted === undefined ? '' : `  granted role ${report.granted} what plan, commit and release need (no DDL)\n`;
  return `initialised ${report.store} (schema ${report.schema}, version ${report.schemaVersion})\n${renderNodes(report.nodes)}${granted}`;
}
