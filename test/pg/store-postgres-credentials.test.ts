// Credentials and TLS, against a server of its own that asks TCP clients for a SCRAM password and
// serves a certificate signed by an authority made in the test (openssl). The store connects with
// sslmode=verify-full and that authority, from the URL or from PGSSLMODE/PGSSLROOTCERT; refuses a
// wrong authority and a host the certificate does not name, clearly; takes the password from
// PGPASSWORD, a password file (PGPASSFILE, only when private) or a service (PGSERVICE); the CLI
// finds the store in GPUALLOC_STORE when --store is omitted, warns when --store shows a password,
// and no message ever shows one.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { cli } from '../support/cli.js';
import { freshSchema, noPg, uniformNodes } from './pg-context.js';
import { startTlsServer, type TlsServer } from './tls-server.js';

const PASSWORD = 'Tr0ub4dor&3-not-in-any-message';

/** The AllocationError a connect rejects with (code, message, details). */
async function refused(promise: Promise<unknown>): Promise<AllocationError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AllocationError) return error;
    throw error;
  }
  throw new Error('expected the connect to be refused');
}

describe.skipIf(noPg)('PostgresStore credentials and TLS', () => {
  let server: TlsServer;
  let schema: string;
  /** Environment with nothing of the caller's libpq variables, HOME pointing at an empty folder. */
  let base: Record<string, string | undefined>;
  beforeAll(async () => {
    server = await startTlsServer();
    const admin = await server.admin();
    try {
      await admin.query(`CREATE ROLE gpualloc_app LOGIN PASSWORD '${PASSWORD}'`);
      await admin.query(`GRANT CREATE ON DATABASE postgres TO gpualloc_app`);
    } finally {
      await admin.end();
    }
    schema = freshSchema('creds');
    base = { HOME: server.dir, PATH: process.env.PATH };
    const store = await PostgresStore.open(`postgres://gpualloc_app@localhost:${server.port}/postgres?schema=${schema}&sslmode=verify-full&sslrootcert=${server.ca}`, {
      env: { ...base, PGPASSWORD: PASSWORD },
    });
    await store.init((await openEngine({ backend: 'ts' })).createClusterState({ nodes: uniformNodes(1, 2, 100 * 2 ** 30) }));
    await store.close();
  });
  afterAll(() => {
    server?.stop();
  });

  it('connects with verify-full and the authority made here, from the URL or the environment; the session is encrypted', async () => {
    const viaUrl = await PostgresStore.open(`postgres://gpualloc_app@localhost:${server.port}/postgres?schema=${schema}&sslmode=verify-full&sslrootcert=${server.ca}`, {
      env: { ...base, PGPASSWORD: PASSWORD },
    });
    expect(viaUrl.target).toBe(`postgres://gpualloc_app@localhost:${server.port}/postgres (sslmode verify-full, root certificates ${server.ca})`);
    await viaUrl.close();
    const env = { ...base, PGHOST: 'localhost', PGPORT: String(server.port), PGUSER: 'gpualloc_app', PGDATABASE: 'postgres', PGPASSWORD: PASSWORD, PGSSLMODE: 'verify-full', PGSSLROOTCERT: server.ca };
    const viaEnv = await PostgresStore.open('', { schema, env });
    try {
      expect((await viaEnv.load()).state.nodes.map((n) => n.id)).toEqual(['n0']);
    } finally {
      await viaEnv.close();
    }
    const admin = await server.admin();
    try {
      // Every TCP session of the app role so far was TLS (pg_stat_ssl shows the live ones: open one and look).
      const live = await PostgresStore.open('', { schema, env });
      const ssl = await admin.query(`SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'gpualloc_app'`);
      await live.close();
      expect(ssl.rows.length).toBeGreaterThan(0);
      expect(ssl.rows.every((r) => r.ssl === true)).toBe(true);
    } finally {
      await admin.end();
    }
  });

  it('refuses a wrong authority and a host the certificate does not name, saying so', async () => {
    const wrong = await refused(
      PostgresStore.open(`postgres://gpualloc_app@localhost:${server.port}/postgres?sslmode=verify-full&sslrootcert=${server.wrongCa}`, { env: { ...base, PGPASSWORD: PASSWORD }, retryMs: 0 }),
    );
    expect(wrong.code).toBe('STORE_UNAVAILABLE');
    expect(wrong.message).toContain(`TLS: the server's certificate is not issued by a certificate authority in sslrootcert ${server.wrongCa}`);
    expect(wrong.message).not.toContain(PASSWORD);
    // The certificate names localhost, not 127.0.0.1: verify-full refuses, verify-ca (no host check) connects.
    const host = await refused(
      PostgresStore.open(`postgres://gpualloc_app@127.0.0.1:${server.port}/postgres?sslmode=verify-full&sslrootcert=${server.ca}`, { env: { ...base, PGPASSWORD: PASSWORD }, retryMs: 0 }),
    );
    expect(host.message).toContain("TLS: the server's certificate does not name the host connected to (sslmode verify-full)");
    const ca = await PostgresStore.open(`postgres://gpualloc_app@127.0.0.1:${server.port}/postgres?schema=${schema}&sslmode=verify-ca&sslrootcert=${server.ca}`, {
      env: { ...base, PGPASSWORD: PASSWORD },
    });
    await ca.close();
    const missing = await refused(PostgresStore.open(`postgres://gpualloc_app@localhost:${server.port}/postgres?sslmode=verify-full&sslrootcert=${join(server.dir, 'nope.crt')}`, { env: base }));
    expect({ code: missing.code, field: missing.field }).toEqual({ code: 'INVALID_ARGUMENT', field: 'url.sslrootcert' });
  });

  it('takes the password from PGPASSWORD, a private password file or a service, and says when there is none', async () => {
    const url = `postgres://gpualloc_app@localhost:${server.port}/postgres?schema=${schema}&sslmode=verify-full&sslrootcert=${server.ca}`;
    const passfile = join(server.dir, 'pgpass');
    writeFileSync(passfile, `# host:port:database:user:password\nlocalhost:${server.port}:postgres:gpualloc_app:${PASSWORD.replace(/:/g, '\\:')}\n`);
    chmodSync(passfile, 0o600);
    await (await PostgresStore.open(url, { env: { ...base, PGPASSFILE: passfile } })).close();
    // A password file others can read is ignored, as libpq does.
    chmodSync(passfile, 0o644);
    const none = await refused(PostgresStore.open(url, { env: { ...base, PGPASSFILE: passfile }, retryMs: 0 }));
    expect(none.message).toContain('asks user gpualloc_app for a password and none is set (PGPASSWORD, a password file PGPASSFILE or ~/.pgpass, a service PGSERVICE, or the URL)');
    const bad = await refused(PostgresStore.open(url, { env: { ...base, PGPASSWORD: 'wrong' }, retryMs: 0 }));
    expect(bad.message).toMatch(/refused user gpualloc_app: password authentication failed/);
    expect(bad.message).not.toContain('wrong');
    const services = join(server.dir, 'services.conf');
    writeFileSync(
      services,
      `# gpualloc's store\n[scheduling]\nhost=localhost\nport=${server.port}\ndbname=postgres\nuser=gpualloc_app\npassword=${PASSWORD}\nsslmode=verify-full\nsslrootcert=${server.ca}\n`,
    );
    const viaService = await PostgresStore.open(`postgres://?service=scheduling&schema=${schema}`, { env: { ...base, PGSERVICEFILE: services } });
    await viaService.close();
    await (await PostgresStore.open('', { schema, env: { ...base, PGSERVICEFILE: services, PGSERVICE: 'scheduling' } })).close();
  });

  it('the CLI finds the store in GPUALLOC_STORE, warns when --store shows a password, and never prints it', async () => {
    const store = `postgres://gpualloc_app@localhost:${server.port}/postgres?schema=${schema}&sslmode=verify-full&sslrootcert=${server.ca}`;
    const env = { ...base, PGPASSWORD: PASSWORD, GPUALLOC_STORE: store };
    const listed = await cli(['state', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).slots).toEqual([]);
    expect(listed.stderr).toBe('');
    const committed = await cli(['plan', '--memory', '10GiB', '--tp', '1', '--commit', '--json'], env);
    expect({ code: committed.code, committed: JSON.parse(committed.stdout).committed }).toEqual({ code: 0, committed: 'slot-1' });
    // --state FILE wins over GPUALLOC_STORE; --store too.
    const shown = store.replace('gpualloc_app@', `gpualloc_app:${encodeURIComponent(PASSWORD)}@`);
    const warned = await cli(['state', 'list', '--store', shown], { ...base, GPUALLOC_STORE: 'postgres://nobody@localhost:1/x' });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('gpualloc: warning: the password in --store is visible to other users');
    expect(warned.stdout + warned.stderr).not.toContain(PASSWORD);
    expect(warned.stdout + warned.stderr).not.toContain(encodeURIComponent(PASSWORD));
    const wrong = await cli(['state', 'list', '--store', shown.replace(encodeURIComponent(PASSWORD), 'not-it'), '--json'], { ...base, GPUALLOC_STORE_RETRY_MS: '0' });
    expect(wrong.code).toBe(2);
    expect(wrong.stdout + wrong.stderr).not.toContain('not-it');
    expect(JSON.parse(wrong.stdout).error.code).toBe('STORE_UNAVAILABLE');
  });
});
