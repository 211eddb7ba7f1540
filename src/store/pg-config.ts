// Where a PostgresStore connects, resolved as libpq does: a postgres:// URL, then a service from the
// connection service file (PGSERVICE or ?service=), then the libpq environment variables (PGHOST,
// PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGPASSFILE, PGSSLMODE, PGSSLROOTCERT, …), then defaults.
// node-postgres reads only some of these itself (and its password-file support is deprecated), so
// every setting is resolved here and handed to it explicitly: what a store connects to does not
// depend on the driver's version. Node only (files are read through node:fs, imported lazily).
import type { ConnectionOptions } from 'node:tls';
import { AllocationError } from '../shared/errors.js';

/** The parameters a store URL's query, a service file entry and the environment may set. */
const PARAMS = ['host', 'port', 'dbname', 'user', 'password', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name', 'connect_timeout'] as const;
type Param = (typeof PARAMS)[number];

/** The environment variable of each parameter. */
const ENV: Record<Param, string> = {
  host: 'PGHOST',
  port: 'PGPORT',
  dbname: 'PGDATABASE',
  user: 'PGUSER',
  password: 'PGPASSWORD',
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  application_name: 'PGAPPNAME',
  connect_timeout: 'PGCONNECT_TIMEOUT',
};

/** libpq's sslmode values. `allow` and `prefer` connect without TLS (node-postgres cannot fall back), as `disable`. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** Everything a connection needs, resolved; `password` is read when connecting and never shown. */
export type PgTarget = {
  host: string;
  port: number;
  database: string;
  user: string;
  /** The password (URL, service, PGPASSWORD or the password file), or undefined when none applies. */
  password?: string;
  sslmode: SslMode;
  /** node:tls options when TLS is used (verify-ca / verify-full: with the root certificates), else false. */
  ssl: ConnectionOptions | false;
  applicationName?: string;
  /** connect_timeout in milliseconds when the URL, service or PGCONNECT_TIMEOUT set one. */
  connectTimeoutMs?: number;
  /** `?schema=` of the URL, when given. */
  schema?: string;
  /** Where each setting came from (for messages): `user@host:port/database` and the TLS mode, never the password. */
  display: string;
  /** The root certificate file used to verify the server, when one is. */
  rootCertFile?: string;
};

/** `url` with its password (in the authority or `?password=`) replaced by ***, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@').replace(/([?&]password=)[^&]*/gi, '$1***');
}

/** Whether a store URL carries a password (in the authority or as ?password=): visible in the process list. */
export function urlHasPassword(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || u.searchParams.has('password');
  } catch {
    return false;
  }
}

function bad(field: string, message: string): never {
  throw new AllocationError('INVALID_ARGUMENT', `${field}: ${message}`, { field });
}

/** Parses the connection service file `text` (from `file`); returns the entries of `service`, or undefined when it has none. */
export function parseServiceFile(text: string, file: string, service: string): Partial<Record<Param, string>> | undefined {
  let current: string | undefined;
  let found: Partial<Record<Param, string>> | undefined;
  const lines = text.split(/\r?\n/);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!.trim(); // k < lines.length
    if (line === '' || line.startsWith('#')) continue;
    const where = `${file}:${k + 1}`;
    const section = /^\[(.+)\]$/.exec(line);
    if (section !== null) {
      current = section[1]!.trim(); // group 1 is not optional
      if (current === service) found ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new AllocationError('INVALID_CONFIG', `${where}: expected [service] or key=value, got ${JSON.stringify(line.slice(0, 80))}`, { field: where });
    if (current !== service) continue;
    const key = line.slice(0, eq).trim();
    if (!(PARAMS as readonly string[]).includes(key))
      throw new AllocationError('INVALID_CONFIG', `${where}: unknown key ${JSON.stringify(key)} in service ${service} (known: ${PARAMS.join(', ')})`, { field: where });
    found![key as Param] = line.slice(eq + 1).trim();
  }
  return found;
}

/** One password-file line's fields (`host:port:database:user:password`, `\:` and `\\` escaped), or undefined for a comment or a short line. */
function passfileFields(line: string): [string, string, string, string, string] | undefined {
  if (line.startsWith('#') || line.trim() === '') return undefined;
  const fields: string[] = [];
  let field = '';
  for (let k = 0; k < line.length; k++) {
    const ch = line[k];
    if (ch === '\\' && k + 1 < line.length) field += line[++k];
    else if (ch === ':' && fields.length < 4) {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields.length === 5 ? (fields as [string, string, string, string, string]) : undefined;
}

/** The password of the first line of a password file (`text`) matching host, port, database and user (`*` matches any). */
export function passwordFromPassfile(text: string, target: { host: string; port: number; database: string; user: string }): string | undefined {
  // As libpq: a Unix-socket connection also matches lines for `localhost`.
  const hosts = target.host.startsWith('/') ? [target.host, 'localhost'] : [target.host];
  for (const line of text.split(/\r?\n/)) {
    const f = passfileFields(line);
    if (f === undefined) continue;
    const [host, port, database, user, password] = f;
    if ((host === '*' || hosts.includes(host)) && (port === '*' || port === String(target.port)) && (database === '*' || database === target.database) && (user === '*' || user === target.user))
      return password;
  }
  return undefined;
}

type Env = Record<string, string | undefined>;

type Fs = { readFile(path: string, encoding: 'utf8'): Promise<string>; stat(path: string): Promise<{ mode: number; isFile(): boolean }> };

async function fsOf(): Promise<Fs> {
  const fs = await import('node:fs/promises');
  return { readFile: (p, e) => fs.readFile(p, e), stat: (p) => fs.stat(p) };
}

async function readIfExists(fs: Fs, path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The home folder as libpq finds it (HOME), or undefined. */
function home(env: Env): string | undefined {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : undefined;
}

/** The entries of `service` from PGSERVICEFILE (or ~/.pg_service.conf), then PGSYSCONFDIR/pg_service.conf. */
async function serviceEntries(fs: Fs, service: string, env: Env): Promise<Partial<Record<Param, string>>> {
  const files: string[] = [];
  if (env.PGSERVICEFILE) files.push(env.PGSERVICEFILE);
  else if (home(env) !== undefined) files.push(`${home(env)}/.pg_service.conf`);
  files.push(`${env.PGSYSCONFDIR || '/etc/postgresql-common'}/pg_service.conf`);
  for (const file of files) {
    const text = await readIfExists(fs, file).catch((error: Error) => bad('service', `cannot read ${file}: ${error.message}`));
    if (text === undefined) continue;
    const entries = parseServiceFile(text, file, service);
    if (entries !== undefined) return entries;
  }
  return bad('service', `service ${JSON.stringify(service)} is in none of ${files.join(', ')}`);
}

/**
 * Resolves where a store connects: `url` (postgres:// or postgresql://; may be '' to take
 * everything from the environment), then the service it or PGSERVICE names, then `env`'s libpq
 * variables, then defaults (host localhost, port 5432, user $USER, database = user, sslmode prefer).
 * Reads the password file (PGPASSFILE or ~/.pgpass, ignored unless only its owner can read it) when
 * no password is set otherwise, and the TLS files the settings name. Throws INVALID_ARGUMENT naming
 * the parameter for a malformed URL, an unknown URL parameter, a bad sslmode or an unreadable file.
 */
export async function resolveTarget(url: string, env: Env = process.env): Promise<PgTarget> {
  const fs = await fsOf();
  const explicit: Partial<Record<Param, string>> = {};
  let schema: string | undefined;
  let service: string | undefined;
  if (url !== '') {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return bad('url', `expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redactUrl(url))}`);
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') bad('url', `expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redactUrl(url))}`);
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return bad('url', `bad percent-encoding in ${JSON.stringify(redactUrl(url))}`);
      }
    };
    if (parsed.hostname !== '') explicit.host = decode(parsed.hostname.replace(/^\[(.*)\]$/, '$1'));
    if (parsed.port !== '') explicit.port = parsed.port;
    if (parsed.username !== '') explicit.user = decode(parsed.username);
    if (parsed.password !== '') explicit.password = decode(parsed.password);
    const path = decode(parsed.pathname.replace(/^\//, ''));
    if (path !== '') explicit.dbname = path;
    for (const [key, value] of parsed.searchParams) {
      if (key === 'schema') schema = value;
      else if (key === 'service') service = value;
      else if (key === 'sslpassword' || key === 'options') bad(`url.${key}`, `${key} is not supported by this client`);
      else if ((PARAMS as readonly string[]).includes(key)) explicit[key as Param] = value;
      else bad(`url.${key}`, `unknown parameter ${JSON.stringify(key)} (known: ${[...PARAMS, 'service', 'schema'].join(', ')})`);
    }
  }
  service ??= env.PGSERVICE || undefined;
  const fromService = service === undefined ? {} : await serviceEntries(fs, service, env);
  const origin: Partial<Record<Param, string>> = {};
  const get = (p: Param): string | undefined => {
    const sources: Array<[string, string | undefined]> = [
      ['url', explicit[p]],
      [`service ${service}`, fromService[p]],
      [ENV[p], env[ENV[p]]],
    ];
    for (const [from, value] of sources) {
      if (value === undefined || value === '') continue;
      origin[p] = from;
      return value;
    }
    return undefined;
  };
  const host = get('host') ?? 'localhost';
  const portText = get('port') ?? '5432';
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
    bad(origin.port === 'url' ? 'url.port' : (origin.port ?? 'port'), `expected a port from 1 to 65535, got ${JSON.stringify(portText)}`);
  const port = Number(portText);
  const user = get('user') ?? env.USER ?? env.LOGNAME ?? 'postgres';
  const database = get('dbname') ?? user;
  const modeText = get('sslmode') ?? 'prefer';
  if (!(SSL_MODES as readonly string[]).includes(modeText))
    bad(origin.sslmode === 'url' ? 'url.sslmode' : (origin.sslmode ?? 'sslmode'), `expected one of ${SSL_MODES.join(', ')}, got ${JSON.stringify(modeText)}`);
  const sslmode = modeText as SslMode;
  const timeoutText = get('connect_timeout');
  let connectTimeoutMs: number | undefined;
  if (timeoutText !== undefined) {
    if (!/^[0-9]{1,6}$/.test(timeoutText))
      bad(origin.connect_timeout === 'url' ? 'url.connect_timeout' : (origin.connect_timeout ?? 'connect_timeout'), `expected whole seconds, got ${JSON.stringify(timeoutText)}`);
    // libpq: 0 waits forever and 1 counts as 2 seconds; a store always bounds its waits.
    if (Number(timeoutText) > 0) connectTimeoutMs = Math.max(2, Number(timeoutText)) * 1000;
  }
  const socket = host.startsWith('/');
  let ssl: ConnectionOptions | false = false;
  let rootCertFile: string | undefined;
  // TLS does not apply to Unix sockets (libpq ignores sslmode there too).
  if (!socket && (sslmode === 'require' || sslmode === 'verify-ca' || sslmode === 'verify-full')) {
    const file = async (p: Param, fallback: string | undefined): Promise<{ path: string; text: string } | undefined> => {
      const named = get(p);
      const path = named ?? fallback;
      if (path === undefined) return undefined;
      const text = await readIfExists(fs, path).catch((error: Error) => bad(p, `cannot read ${path}: ${error.message}`));
      if (text === undefined && named !== undefined) bad(origin[p] === 'url' ? `url.${p}` : (origin[p] ?? p), `no such file: ${path}`);
      return text === undefined ? undefined : { path, text };
    };
    const dir = home(env) === undefined ? undefined : `${home(env)}/.postgresql`;
    const root = get('sslrootcert') === 'system' ? undefined : await file('sslrootcert', dir && `${dir}/root.crt`);
    const cert = await file('sslcert', dir && `${dir}/postgresql.crt`);
    const key = cert === undefined ? undefined : await file('sslkey', dir && `${dir}/postgresql.key`);
    const options: ConnectionOptions = {};
    if (cert !== undefined && key !== undefined) {
      options.cert = cert.text;
      options.key = key.text;
    }
    // require with a root certificate verifies the chain, as libpq does; without one it only encrypts.
    const verify = sslmode !== 'require' || root !== undefined;
    if (root !== undefined) {
      options.ca = root.text;
      rootCertFile = root.path;
    }
    options.rejectUnauthorized = verify;
    if (sslmode !== 'verify-full') options.checkServerIdentity = () => undefined;
    else options.servername = host;
    ssl = options;
  }
  let password = get('password');
  if (password === undefined) {
    const passfile = env.PGPASSFILE || (home(env) && `${home(env)}/.pgpass`);
    if (passfile) {
      const stat = await fs.stat(passfile).catch(() => undefined);
      // libpq ignores a password file that others can read.
      if (stat?.isFile() && (stat.mode & 0o077) === 0) {
        const text = await readIfExists(fs, passfile).catch(() => undefined);
        if (text !== undefined) password = passwordFromPassfile(text, { host, port, database, user });
      }
    }
  }
  const applicationName = get('application_name');
  const tls =
    ssl === false
      ? socket
        ? 'Unix socket'
        : `no TLS (sslmode ${sslmode})`
      : `sslmode ${sslmode}${rootCertFile ? `, root certificates ${rootCertFile}` : sslmode === 'require' ? '' : ', system root certificates'}`;
  const where = socket ? `${host}/.s.PGSQL.${port}` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const target: PgTarget = { host, port, database, user, sslmode, ssl, display: `postgres://${user}@${where}/${database} (${tls})` };
  if (password !== undefined) target.password = password;
  if (applicationName !== undefined) target.applicationName = applicationName;
  if (connectTimeoutMs !== undefined) target.connectTimeoutMs = connectTimeoutMs;
  if (schema !== undefined) target.schema = schema;
  if (rootCertFile !== undefined) target.rootCertFile = rootCertFile;
  return target;
}
