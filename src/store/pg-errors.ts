// What a PostgresStore makes of a driver error: whether trying again may succeed (a dropped
// connection, a restarting server, a serialization failure) or not (a lock timeout, a refused
// certificate, a missing privilege), and the AllocationError the caller sees, which says which
// bound ran out, where it is set, and whether anything may have changed.
import { AllocationError } from '../shared/errors.js';

/** Socket errors of a lost or refused connection (ENOENT: a Unix socket whose server is down). */
const LOST_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED', 'ENOTCONN', 'EHOSTDOWN']);

/** node-postgres messages of a connection that ended, never answered, or cannot be used. */
const LOST_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Connection terminated due to connection timeout',
  'timeout expired',
  'Query read timeout',
];

/** SQLSTATEs worth another try: connection exceptions (class 08), a server shutting down, crashing or starting, too many connections, serialization failures and deadlocks, a session ended by idle_in_transaction_session_timeout (rolled back). */
const TRANSIENT_STATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01', '25P03']);

/** pg-pool's message when every pooled connection stayed busy for connectionTimeoutMillis. */
export const POOL_WAIT_MESSAGE = 'timeout exceeded when trying to connect';

/** TLS verification failures (node:tls codes). */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

type DriverError = { code?: string; message?: string; constraint?: string; cause?: unknown };

function parts(error: unknown): DriverError {
  return (typeof error === 'object' && error !== null ? error : { message: String(error) }) as DriverError;
}

/** Marks a try that must be repeated at once (a concurrent try of the same request committed first). */
export class RetryNow extends Error {}

/** Whether `error` may go away by trying again on a new connection (the connection is then discarded). */
export function isTransient(error: unknown): boolean {
  if (error instanceof RetryNow) return true;
  if (error instanceof AllocationError) return false;
  const e = parts(error);
  if (e.code !== undefined && (LOST_SOCKET.has(e.code) || TRANSIENT_STATES.has(e.code) || e.code.startsWith('08'))) return true;
  if (e.message !== undefined && LOST_MESSAGES.includes(e.message)) return true;
  // A connect timeout wraps the socket's own error.
  return e.cause !== undefined && e.cause !== error && isTransient(e.cause);
}

/**
 * Whether `error` is a bound running out while waiting on another session (lockTimeoutMs,
 * statementTimeoutMs): final for a fresh request, but worth another try while a request's earlier
 * try is unresolved, since giving up would leave its outcome unknown.
 */
export function isBoundedWait(error: unknown): boolean {
  const code = parts(error).code;
  return code === '55P03' || code === '57014';
}

/** Whether the connection an error came from can still be used (a server-side error in a live session). */
export function connectionUsable(error: unknown): boolean {
  const e = parts(error);
  return !isTransient(error) && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !LOST_SOCKET.has(e.code);
}

/** What a message needs to say which bound ran out and where the store is. */
export type ErrorContext = {
  what: string;
  target: string;
  lockTimeoutMs: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  maxConnections: number;
  rootCertFile?: string;
  user: string;
};

/** The tail of every message: whether the change may have landed. */
export type Landing = { uncertain: boolean; requestId?: string };

function tail(landing: Landing): string {
  if (!landing.uncertain) return 'nothing was changed';
  return `whether request ${JSON.stringify(landing.requestId ?? '')} was applied is unknown (the connection dropped while COMMIT was in flight); repeat it with the same request ID to find out`;
}

/**
 * The AllocationError for a driver error (or one passed through): DUPLICATE_SLOT, CONFLICT (the
 * database's guard refused), UNKNOWN/INVALID passed through, and STORE_UNAVAILABLE with the bound
 * or the cause named for everything else.
 */
export function storeError(error: unknown, ctx: ErrorContext, landing: Landing = { uncertain: false }): AllocationError {
  if (error instanceof AllocationError) return error;
  const e = parts(error);
  const message = e.message ?? String(error);
  const unavailable = (text: string, details: Record<string, unknown> = {}) =>
    new AllocationError('STORE_UNAVAILABLE', `${ctx.what}: ${text}; ${tail(landing)}`, {
      cause: error,
      details: { ...details, ...(landing.uncertain ? { outcome: 'unknown', requestId: landing.requestId } : { outcome: 'none' }) },
    });
  if (e.code === '23505' && e.constraint === 'slots_pkey') return new AllocationError('DUPLICATE_SLOT', `options.id: ${message}; nothing was changed`, { field: 'options.id', cause: error });
  if (e.code === '23514') return new AllocationError('CONFLICT', `${ctx.what}: the database refused it (${message}); nothing was changed`, { cause: error });
  if (e.code === '55P03') return unavailable(`waited lockTimeoutMs (${ctx.lockTimeoutMs} ms) for a node another writer holds (a stalled or slow writer)`, { timeout: 'lockTimeoutMs' });
  if (e.code === '57014') return unavailable(`a statement ran past statementTimeoutMs (${ctx.statementTimeoutMs} ms) and was cancelled by the server`, { timeout: 'statementTimeoutMs' });
  if (message === 'Query read timeout')
    return unavailable(`${ctx.target} did not answer a statement within statementTimeoutMs (${ctx.statementTimeoutMs} ms) plus a margin`, { timeout: 'statementTimeoutMs' });
  if (message === POOL_WAIT_MESSAGE)
    return unavailable(
      `no free connection: all ${ctx.maxConnections} pooled connection${ctx.maxConnections === 1 ? '' : 's'} (maxConnections) stayed busy for connectTimeoutMs (${ctx.connectTimeoutMs} ms)`,
      { timeout: 'connectTimeoutMs' },
    );
  if (message === 'Connection terminated due to connection timeout' || message === 'timeout expired')
    return unavailable(`${ctx.target} did not accept a connection within connectTimeoutMs (${ctx.connectTimeoutMs} ms)`, { timeout: 'connectTimeoutMs' });
  if (e.code !== undefined && UNTRUSTED.has(e.code))
    return unavailable(
      `TLS: the server's certificate is not issued by ${ctx.rootCertFile === undefined ? 'a trusted certificate authority' : `a certificate authority in sslrootcert ${ctx.rootCertFile}`} (${e.code}: ${message}); refused to connect to ${ctx.target}`,
      { tls: e.code },
    );
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return unavailable(`TLS: the server's certificate does not name the host connected to (sslmode verify-full): ${message}; refused to connect to ${ctx.target}`, { tls: e.code });
  if (e.code === 'CERT_HAS_EXPIRED' || e.code === 'CERT_NOT_YET_VALID')
    return unavailable(`TLS: the server's certificate is not valid now (${e.code}); refused to connect to ${ctx.target}`, { tls: e.code });
  if (message === 'The server does not support SSL connections') return unavailable(`TLS: ${ctx.target} does not offer TLS, and sslmode requires it`, { tls: 'unsupported' });
  if (/client password must be a string|password must be a string/i.test(message))
    return unavailable(`${ctx.target} asks user ${ctx.user} for a password and none is set (PGPASSWORD, a password file PGPASSFILE or ~/.pgpass, a service PGSERVICE, or the URL)`, {
      auth: 'no-password',
    });
  if (e.code === '28P01' || e.code === '28000') return unavailable(`${ctx.target} refused user ${ctx.user}: ${message}`, { auth: e.code });
  if (e.code === '3D000') return unavailable(`${message} on ${ctx.target}`);
  if (e.code === '42501')
    return unavailable(`role ${ctx.user} lacks a privilege: ${message} (a run-time role granted by gpualloc state init --grant ROLE may plan, commit and release, not migrate or change nodes)`, {
      privilege: true,
    });
  if (isTransient(error)) return unavailable(`lost the connection to ${ctx.target}: ${message}`);
  return unavailable(message);
}

/** STORE_UNAVAILABLE after the retries ran out: how long it tried, the last error, and whether anything may have landed. */
export function gaveUp(error: unknown, ctx: ErrorContext, landing: Landing, waitedMs: number, tries: number, retryMs: number): AllocationError {
  const last = storeError(error, ctx, landing);
  if (last.code !== 'STORE_UNAVAILABLE' || tries <= 1) return last;
  const e = parts(error);
  return new AllocationError(
    'STORE_UNAVAILABLE',
    `${ctx.what}: ${ctx.target} could not be reached for ${tries} tries over ${waitedMs} ms (retryMs ${retryMs}); the last: ${e.message ?? String(error)}; ${tail(landing)}`,
    {
      cause: error,
      details: { tries, waitedMs, ...(landing.uncertain ? { outcome: 'unknown', requestId: landing.requestId } : { outcome: 'none' }) },
    },
  );
}
