// A throwaway PostgreSQL server for the store tests and bench/store.bench.ts: initdb into a temp dir, pg_ctl start on a Unix
// socket in that dir (no TCP port to collide with), stopped and removed afterwards. The server
// binaries come from Debian's `postgresql` package (/usr/lib/postgresql/<version>/bin) or PG_BIN.
// initdb refuses to run as root, so as root every server command runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running server: its URL (superuser `postgres`, database `postgres`) and how to stop it. */
export type PgServer = { url: string; dir: string; bin: string; stop(): void };

/** The directory holding initdb and pg_ctl, or undefined when no server binaries are installed. */
export function findPgBin(): string | undefined {
  // An explicit PG_BIN is the only place looked at (PG_BIN=none: run as if no server were installed).
  const fromEnv = process.env.PG_BIN;
  if (fromEnv !== undefined && fromEnv !== '') return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : undefined;
}

function asServerUser(bin: string, args: string[], root: boolean): void {
  if (root) execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'pipe' });
  else execFileSync(bin, args, { stdio: 'pipe' });
}

/**
 * Starts a server with durability off (fsync, synchronous_commit: a test server's data is thrown
 * away; transactions and locks behave the same). `settings` adds `-c name=value` pairs.
 */
export function startPg(settings: Record<string, string> = {}): PgServer {
  const bin = findPgBin();
  if (bin === undefined) throw new Error('no PostgreSQL server binaries (install the postgresql package or set PG_BIN)');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'gpualloc-pg-'));
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const all: Record<string, string> = { listen_addresses: "''", fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '100', shared_buffers: '32MB', ...settings };
  const options = [`-k ${dir}`, '-p 5432', ...Object.entries(all).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  try {
    asServerUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--locale=C'], root);
    asServerUser(join(bin, 'pg_ctl'), ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options], root);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL from ${bin}: ${(error as { stderr?: Buffer }).stderr?.toString() ?? (error as Error).message}`);
  }
  let stopped = false;
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=5432`,
    dir,
    bin,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        asServerUser(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '30'], root);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
