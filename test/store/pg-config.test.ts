// Where a PostgresStore connects (src/store/pg-config.ts), without a server: the URL, then a service,
// then the libpq variables, then defaults; TLS modes to node:tls options; the password file's
// format and privacy rule; unknown URL parameters, bad modes and unreadable files refused by name.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServiceFile, passwordFromPassfile, redactUrl, resolveTarget, urlHasPassword } from '../../src/store/pg-config.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-pg-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const none = { HOME: dir, USER: 'alice' };

describe('store connection settings', () => {
  it('the URL wins over a service, which wins over PG* variables, which win over defaults', async () => {
    const services = join(dir, 'services.conf');
    writeFileSync(services, '[sched]\nhost = db.internal\nport=6543\nuser=svc\n# comment\n[other]\nhost=elsewhere\n');
    expect(await resolveTarget('', none)).toMatchObject({ host: 'localhost', port: 5432, user: 'alice', database: 'alice', sslmode: 'prefer', ssl: false });
    const env = { ...none, PGHOST: 'env-host', PGPORT: '7000', PGUSER: 'envuser', PGDATABASE: 'envdb', PGSERVICEFILE: services };
    expect(await resolveTarget('', env)).toMatchObject({ host: 'env-host', port: 7000, user: 'envuser', database: 'envdb' });
    expect(await resolveTarget('', { ...env, PGSERVICE: 'sched' })).toMatchObject({ host: 'db.internal', port: 6543, user: 'svc', database: 'envdb' });
    const t = await resolveTarget('postgres://urluser@url-host/urldb?service=sched&schema=s1&application_name=app', env);
    expect(t).toMatchObject({ host: 'url-host', port: 6543, user: 'urluser', database: 'urldb', schema: 's1', applicationName: 'app' });
    expect(t.display).toBe('postgres://urluser@url-host:6543/urldb (no TLS (sslmode prefer))');
    expect(await resolveTarget('postgres://u@x/db?host=/run/pg&port=5433', none)).toMatchObject({
      host: '/run/pg',
      port: 5433,
      ssl: false,
      display: 'postgres://u@/run/pg/.s.PGSQL.5433/db (Unix socket)',
    });
    expect((await resolveTarget('postgres://u@x/db?connect_timeout=1', none)).connectTimeoutMs).toBe(2000);
    expect((await resolveTarget('', { ...none, PGCONNECT_TIMEOUT: '7' })).connectTimeoutMs).toBe(7000);
  });

  it('maps sslmode to node:tls as libpq means it', async () => {
    const ca = join(dir, 'ca.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
    expect((await resolveTarget('postgres://u@h/d?sslmode=disable', none)).ssl).toBe(false);
    expect((await resolveTarget('postgres://u@h/d?sslmode=allow', none)).ssl).toBe(false);
    expect((await resolveTarget('postgres://u@h/d?sslmode=require', none)).ssl).toMatchObject({ rejectUnauthorized: false });
    // require with a root certificate verifies the chain (libpq), but not the host name.
    const req = await resolveTarget(`postgres://u@h/d?sslmode=require&sslrootcert=${ca}`, none);
    expect(req.ssl).toMatchObject({ rejectUnauthorized: true, ca: expect.stringContaining('not checked here') });
    expect((req.ssl as { checkServerIdentity?: unknown }).checkServerIdentity).toBeTypeOf('function');
    const full = await resolveTarget('', { ...none, PGHOST: 'db', PGSSLMODE: 'verify-full', PGSSLROOTCERT: ca });
    expect(full.ssl).toMatchObject({ rejectUnauthorized: true, servername: 'db' });
    expect((full.ssl as { checkServerIdentity?: unknown }).checkServerIdentity).toBeUndefined();
    expect(full.display).toBe(`postgres://alice@db:5432/alice (sslmode verify-full, root certificates ${ca})`);
    // No root certificate named and none in ~/.postgresql: the system's authorities (sslrootcert=system).
    const system = (await resolveTarget('postgres://u@h/d?sslmode=verify-full', none)).ssl as { rejectUnauthorized?: boolean; ca?: unknown };
    expect([system.rejectUnauthorized, 'ca' in system]).toEqual([true, false]);
    // TLS does not apply to a Unix socket.
    expect((await resolveTarget('postgres://u@h/d?host=/run/pg&sslmode=verify-full', none)).ssl).toBe(false);
  });

  it('reads a password file only when private, with escapes and wildcards; never shows a password', async () => {
    const text = '# comment\nother:*:*:*:no\ndb:5432:*:bob:se\\:cr\\\\et\n*:*:*:*:fallback\n';
    expect(passwordFromPassfile(text, { host: 'db', port: 5432, database: 'x', user: 'bob' })).toBe('se:cr\\et');
    expect(passwordFromPassfile(text, { host: 'db', port: 5433, database: 'x', user: 'bob' })).toBe('fallback');
    expect(passwordFromPassfile('localhost:5432:*:bob:sock\n', { host: '/run/pg', port: 5432, database: 'x', user: 'bob' })).toBe('sock');
    const file = join(dir, 'pgpass');
    writeFileSync(file, 'h:5432:*:bob:pw\n');
    chmodSync(file, 0o600);
    expect((await resolveTarget('postgres://bob@h/d', { ...none, PGPASSFILE: file })).password).toBe('pw');
    chmodSync(file, 0o640);
    expect((await resolveTarget('postgres://bob@h/d', { ...none, PGPASSFILE: file })).password).toBeUndefined();
    expect((await resolveTarget('postgres://bob@h/d', { ...none, PGPASSFILE: file, PGPASSWORD: 'env' })).password).toBe('env');
    expect((await resolveTarget('postgres://bob:url%40pw@h/d', { ...none, PGPASSWORD: 'env' })).password).toBe('url@pw');
    const t = await resolveTarget('postgres://bob:hunter2@h/d', none);
    expect(JSON.stringify({ ...t, password: undefined })).not.toContain('hunter2');
    expect(redactUrl('postgres://bob:hunter2@h/d?password=x2&sslmode=require')).toBe('postgres://bob:***@h/d?password=***&sslmode=require');
    expect([urlHasPassword('postgres://bob:pw@h/d'), urlHasPassword('postgres://h/d?password=pw'), urlHasPassword('postgres://bob@h/d')]).toEqual([true, true, false]);
  });

  it('refuses unknown parameters, bad values and missing files by name', async () => {
    await expect(resolveTarget('postgres://h/d?sslmod=require', none)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'url.sslmod' });
    await expect(resolveTarget('postgres://h/d?sslmode=always', none)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'url.sslmode' });
    await expect(resolveTarget('', { ...none, PGSSLMODE: 'on' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'PGSSLMODE' });
    await expect(resolveTarget('', { ...none, PGPORT: '99999' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'PGPORT' });
    await expect(resolveTarget('mysql://h/d', none)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'url' });
    await expect(resolveTarget(`postgres://h/d?sslmode=verify-full&sslrootcert=${join(dir, 'missing.crt')}`, none)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'url.sslrootcert',
      message: expect.stringContaining('missing.crt'),
    });
    await expect(resolveTarget('postgres://h/d?service=nowhere', { ...none, PGSYSCONFDIR: dir })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'service',
      message: expect.stringContaining('"nowhere" is in none of'),
    });
    expect(() => parseServiceFile('[s]\nhost=a\nsslmod=x\n', 'svc.conf', 's')).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', field: 'svc.conf:3' }));
    expect(() => parseServiceFile('[s]\njust words\n', 'svc.conf', 's')).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', field: 'svc.conf:2' }));
    expect(parseServiceFile('[a]\nhost=x\n', 'svc.conf', 'b')).toBeUndefined();
  });
});
