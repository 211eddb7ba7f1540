// The options of PostgresStore.open, their defaults and the counts of its retries (no node-postgres
// types: the declarations a consumer reads must not need `pg`; the checks are in pg-connect.ts).

/** Default schema name. */
export const DEFAULT_SCHEMA = 'gpualloc';

/** The default bounds, in milliseconds: a connect (and a wait for a free pooled connection), a wait for a node's lock, one statement, a transaction left idle by its writer, the retries of an operation, and how long request IDs are kept. */
export const TIMEOUTS = { connectMs: 10_000, lockMs: 10_000, statementMs: 30_000, idleInTransactionMs: 60_000, retryMs: 30_000, requestRetentionMs: 86_400_000 } as const;

/** Options of PostgresStore.open. Every wait is bounded; each bound has a default, named here and in TIMEOUTS. */
export type PostgresStoreOptions = {
  /** Schema holding the tables (default `gpualloc`, or `?schema=` in the URL). */
  schema?: string;
  /** Most pooled connections (default 4). */
  maxConnections?: number;
  /** Apply pending migrations on connect (default true); false: fail if the schema is behind. */
  migrate?: boolean;
  /** application_name the server shows for these connections (default: the URL's, PGAPPNAME, else `gpualloc`). */
  applicationName?: string;
  /** How long a change waits for a node another writer holds before STORE_UNAVAILABLE, in milliseconds (default 10,000). */
  lockTimeoutMs?: number;
  /** How long one statement may run before the server cancels it (STORE_UNAVAILABLE), in milliseconds (default 30,000). */
  statementTimeoutMs?: number;
  /** How long a new connection, or the wait for a free pooled one, may take, in milliseconds (default: the URL's connect_timeout, PGCONNECT_TIMEOUT, else 10,000). */
  connectTimeoutMs?: number;
  /** How long the server keeps a transaction its writer left idle (a stalled process) before ending it and releasing its locks, in milliseconds (default 60,000). */
  idleInTransactionTimeoutMs?: number;
  /** How long an operation keeps trying again after a lost connection or a restarting server, with backoff, before STORE_UNAVAILABLE, in milliseconds (default 30,000; 0: one try). */
  retryMs?: number;
  /** How long request IDs are kept for retries to find, in milliseconds (default one day). */
  requestRetentionMs?: number;
  /** Where the libpq variables (PGHOST, PGPASSWORD, PGSSLMODE, …) and GPUALLOC_STORE are read (default process.env). */
  env?: Record<string, string | undefined>;
};

/** What a store's retries did so far (counted since connect). */
export type PostgresStoreStats = {
  /** Operations tried again after a transient failure (lost connection, restarting server). */
  retries: number;
  /** Tries whose connection dropped while COMMIT was in flight (the outcome unknown to the client). */
  ambiguous: number;
  /** Ambiguous tries whose retry found the request already applied (and returned it). */
  landed: number;
  /** Ambiguous tries whose retry found no trace of the request (and applied it, or refused it, anew). */
  notLanded: number;
  /** Commits and releases answered from their request ID's record (a repeat of an applied request). */
  replays: number;
  /** Times a change listener lost its connection and subscribed again (then reloading everything). */
  resubscribes: number;
};
