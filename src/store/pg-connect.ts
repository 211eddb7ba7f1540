// PostgresStore.open's settings: the options checked, the URL and libpq environment resolved, and
// node-postgres's client configuration with every wait bounded.
import type pg from 'pg';
import { fail, readInput, rejectUnknownKeys, requireInteger, requireObject, requireString } from '../shared/validate.js';
import { type PgTarget, resolveTarget } from './pg-config.js';
import { loadPg, pgModule } from './pg-module.js';
import { DEFAULT_SCHEMA, type PostgresStoreOptions, TIMEOUTS } from './pg-options.js';

/** How much longer than statementTimeoutMs the client waits for an answer before it takes the connection for dead. */
const READ_MARGIN_MS = 5_000;

/** int8 columns (bytes, versions) as numbers: every stored figure is at most 2^53 - 1 (LIMITS.maxBytes). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pgModule().types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/** The bounds a store works within, in milliseconds. */
export type StoreBounds = { lockMs: number; statementMs: number; connectMs: number; idleMs: number; retryMs: number; retentionMs: number };

/** What connect needs: the checked options, the resolved target, the client configuration, the schema, the pool size and the bounds. */
export type ConnectSettings = { opts: Record<string, unknown>; target: PgTarget; config: pg.ClientConfig; schema: string; max: number; bounds: StoreBounds };

/** Checks connect's options (unknown keys, ranges) and resolves the target; throws INVALID_ARGUMENT naming the option. */
export async function connectSettings(url: string | undefined, options: PostgresStoreOptions): Promise<ConnectSettings> {
  const opts = requireObject('options', readInput('options', options));
  rejectUnknownKeys('options', opts, [
    'schema',
    'maxConnections',
    'migrate',
    'applicationName',
    'lockTimeoutMs',
    'statementTimeoutMs',
    'connectTimeoutMs',
    'idleInTransactionTimeoutMs',
    'retryMs',
    'requestRetentionMs',
    'env',
  ]);
  const env = (opts.env === undefined ? process.env : requireObject('options.env', opts.env)) as Record<string, string | undefined>;
  const given = url === undefined ? (env.GPUALLOC_STORE ?? '') : requireString('url', url, 10_000);
  const ms = (key: string, fallback: number, min = 1) => (opts[key] === undefined ? fallback : requireInteger(`options.${key}`, opts[key], min, 3_600_000));
  const target = await resolveTarget(given, env);
  const bounds = {
    lockMs: ms('lockTimeoutMs', TIMEOUTS.lockMs),
    statementMs: ms('statementTimeoutMs', TIMEOUTS.statementMs),
    connectMs: ms('connectTimeoutMs', target.connectTimeoutMs ?? TIMEOUTS.connectMs),
    idleMs: ms('idleInTransactionTimeoutMs', TIMEOUTS.idleInTransactionMs),
    retryMs: ms('retryMs', TIMEOUTS.retryMs, 0),
    retentionMs: opts.requestRetentionMs === undefined ? TIMEOUTS.requestRetentionMs : requireInteger('options.requestRetentionMs', opts.requestRetentionMs, 60_000, 366 * 86_400_000),
  };
  const schema = opts.schema !== undefined ? requireString('options.schema', opts.schema, 63) : (target.schema ?? DEFAULT_SCHEMA);
  if (!/^[a-z_][a-z0-9_]{0,47}$/.test(schema)) fail('INVALID_ARGUMENT', 'options.schema', 'a lower-case SQL name (a-z, 0-9, _; at most 48)', schema);
  const max = opts.maxConnections === undefined ? 4 : (opts.maxConnections as number);
  if (!Number.isInteger(max) || max < 1 || max > 100) fail('INVALID_ARGUMENT', 'options.maxConnections', 'an integer from 1 to 100', opts.maxConnections);
  const applicationName = opts.applicationName !== undefined ? requireString('options.applicationName', opts.applicationName, 63) : (target.applicationName ?? 'gpualloc');
  await loadPg();
  const password = target.password;
  const config: pg.ClientConfig = {
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    ssl: target.ssl,
    // A function, so node-postgres never falls back to reading the environment or a password file itself.
    password: async () => password as string,
    application_name: applicationName,
    types: TYPES,
    keepAlive: true,
    // A server that does not answer, a node lock held by a hung writer, a statement that never
    // returns, a writer stopped inside its transaction: each ends in an error (and a released lock)
    // rather than waiting forever. query_timeout catches a server that went silent altogether.
    connectionTimeoutMillis: bounds.connectMs,
    lock_timeout: bounds.lockMs,
    statement_timeout: bounds.statementMs,
    idle_in_transaction_session_timeout: bounds.idleMs,
    query_timeout: bounds.statementMs + READ_MARGIN_MS,
  };
  return { opts, target, config, schema, max, bounds };
}
