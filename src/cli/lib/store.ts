// --store URL, the other home of a cluster state next to --state FILE: a PostgreSQL database that
// several gpualloc processes (and services embedding gpualloc) share. `plan --commit` and `state`
// go through it the same way they go through a file; commits are arbitrated by the database.
import type { Engine } from '../../engine.js';
import { nodeFromInventory } from '../../cluster/node.js';
import { PostgresStore } from '../../store/postgres.js';
import { SCHEMA_VERSION } from '../../store/migrations/index.js';
import { formatBytes } from '../../shared/units.js';
import { openClusterState, type RetryResult, type StoredClusterState } from '../../store/stored-state.js';
import type { ClusterPlanRequest } from '../../cluster/state.js';
import type { PlacementPlan } from '../../placement/index.js';
import { UsageError, type Io } from './common.js';
import { resolveInventory } from './source.js';

/** parseArgs option of the commands that take --store URL. */
export const STORE_OPTION = { store: { type: 'string' } } as const;

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
export type StoreInitReport = { store: string; schema: string; schemaVersion: number; nodes: Array<{ id: string; gpus: number; memoryTotal: number; memoryUsed: number }> };

/**
 * `gpualloc state init --store URL (--preset NAME | --inventory FILE) [--replace]`: creates the
 * schema (migrations) and the node of the inventory (through nodeFromInventory, as plan --state
 * does). A store that already holds nodes is STORE_NOT_EMPTY (exit 2) unless --replace.
 */
export async function initStore(engine: Engine, url: string, source: { inventory?: string; preset?: string; quiet: boolean }, replace: boolean, io: Io): Promise<StoreInitReport> {
  if (source.inventory === undefined && source.preset === undefined) throw new UsageError('state init: --preset NAME or --inventory FILE is required (the node to create)');
  const { inventory } = await resolveInventory(source, io);
  const state = engine.createClusterState({ nodes: [nodeFromInventory(inventory)] });
  const store = await connectStore(url);
  try {
    await store.init(state, { replace });
    return {
      store: redactUrl(url),
      schema: store.schema,
      schemaVersion: SCHEMA_VERSION,
      nodes: state.nodes().map((id) => {
        const gpus = state.usage().filter((u) => u.node === id);
        return { id, gpus: gpus.length, memoryTotal: gpus.reduce((t, u) => t + u.memoryTotal, 0), memoryUsed: gpus.reduce((t, u) => t + (u.memoryUsed ?? 0), 0) };
      }),
    };
  } finally {
    await store.close();
  }
}

/** One line per node of an init report. */
export function renderInit(report: StoreInitReport): string {
  const nodes = report.nodes.map((n) => `node ${n.id}: ${n.gpus} GPU${n.gpus === 1 ? '' : 's'}, ${formatBytes(n.memoryTotal)}${n.memoryUsed > 0 ? ` (${formatBytes(n.memoryUsed)} in use by other processes)` : ''}`);
  return `initialised ${report.store} (schema ${report.schema}, version ${report.schemaVersion})\n${nodes.map((l) => `  ${l}`).join('\n')}\n`;
}

