// A throwaway PostgreSQL server on 127.0.0.1 with TLS and password authentication, for the
// credential tests: a certificate authority and a server certificate for `localhost` made here with
// Debian's openssl, a second, unrelated authority (the wrong one), and pg_hba.conf asking every TCP
// client for a SCRAM password. The Unix socket stays trusted, for setting it up.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPg } from '../../bench/pg-server.js';

export type TlsServer = {
  port: number;
  /** The trusted Unix socket folder (superuser postgres, no password). */
  socketDir: string;
  /** The authority that signed the server's certificate. */
  ca: string;
  /** An authority that did not. */
  wrongCa: string;
  /** Folder for the test's own files (password and service files). */
  dir: string;
  /** A superuser client through the socket. */
  admin(): Promise<pg.Client>;
  stop(): void;
};

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startTlsServer(): Promise<TlsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gpualloc-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=gpualloc test CA'], dir);
  openssl(['req', '-x509', ...ec, '-keyout', 'wrong.key', '-out', 'wrong.crt', '-days', '2', '-subj', '/CN=some other CA'], dir);
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'ext.cnf'], dir);
  // The server reads its key as the postgres user and refuses one that others can read.
  chmodSync(join(dir, 'server.key'), 0o600);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
    for (const f of ['server.key', 'server.crt']) chownSync(join(dir, f), uid, gid);
  }
  const port = await freePort();
  const server = startPg({ listen_addresses: "'127.0.0.1'", port: String(port) });
  const admin = async () => {
    const c = new pg.Client({ host: server.dir, port, user: 'postgres', database: 'postgres' });
    await c.connect();
    return c;
  };
  const c = await admin();
  try {
    await c.query(`ALTER SYSTEM SET ssl = on`);
    await c.query(`ALTER SYSTEM SET ssl_cert_file = '${join(dir, 'server.crt')}'`);
    await c.query(`ALTER SYSTEM SET ssl_key_file = '${join(dir, 'server.key')}'`);
    const hba = (await c.query(`SHOW hba_file`)).rows[0].hba_file as string;
    writeFileSync(hba, 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n');
    await c.query(`SELECT pg_reload_conf()`);
  } finally {
    await c.end();
  }
  return {
    port,
    socketDir: server.dir,
    ca: join(dir, 'ca.crt'),
    wrongCa: join(dir, 'wrong.crt'),
    dir,
    admin,
    stop() {
      try {
        server.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
