// A throwaway PostgreSQL server of its own for the fault tests (bench/pg-server.ts's startPg), which
// they stop and start: a fast shutdown (pg_ctl stop -m fast) and a crash (SIGKILL of the postmaster
// and every backend, then crash recovery on start). Its settings go into postgresql.conf so every
// restart keeps them. synchronous_commit stays on: a COMMIT the server acknowledged is in the WAL
// the kernel holds, so a killed server recovers it (fsync stays off: the machine does not crash).
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startPg } from '../../bench/pg-server.js';

export type FaultServer = {
  /** URL through the server's Unix socket (superuser postgres). */
  url: string;
  /** The Unix socket the server listens on (a proxy's upstream). */
  socket: string;
  /** The server's folder (data, log). */
  dir: string;
  /** pg_ctl stop -m fast, waiting until it is down. */
  stopFast(): void;
  /** SIGKILL to the postmaster and every backend (a crash); resolves once all are gone. */
  kill(): void;
  /**
   * A crash that finds connections idle: SIGKILL to the postmaster alone, then, `lingerMs` later, to
   * every process it left. Meanwhile each backend that notices its postmaster gone (an idle one at
   * once) sends its client the FATAL "terminating connection due to unexpected postmaster exit"
   * where no query is waiting for it. Resolves once all are gone.
   */
  killPostmasterFirst(lingerMs: number): Promise<void>;
  /** pg_ctl start, waiting until it accepts connections (after crash recovery when killed). */
  start(): void;
  /** Stops it for good and removes its folder. */
  stop(): void;
};

function asPostgres(bin: string, args: string[]): void {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root) execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'pipe' });
  else execFileSync(bin, args, { stdio: 'pipe' });
}

/** The parent pid of `pid` from /proc (Linux), or undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs (a zombie waiting for its parent to reap it does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Starts a server with `settings` (name → value as postgresql.conf writes it) on top of startPg's. */
export function startFaultServer(settings: Record<string, string> = {}): FaultServer {
  const all: Record<string, string> = { synchronous_commit: 'on', max_connections: '200', ...settings };
  const server = startPg(all);
  const data = join(server.dir, 'data');
  // startPg passed its settings on the command line; a restart through pg_ctl reads postgresql.conf.
  const conf: Record<string, string> = { unix_socket_directories: `'${server.dir}'`, port: '5432', listen_addresses: "''", fsync: 'off', full_page_writes: 'off', shared_buffers: '32MB', ...all };
  appendFileSync(
    join(data, 'postgresql.conf'),
    Object.entries(conf)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join(''),
  );
  const bin = server.bin;
  const pgCtl = join(bin, 'pg_ctl');
  /** The postmaster, frozen (so it cannot start a backend between the listing of its children and the kill), and its children. */
  const freeze = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGSTOP');
    const children = readdirSync('/proc')
      .filter((p) => /^[0-9]+$/.test(p))
      .map(Number)
      .filter((pid) => parentOf(pid) === postmaster);
    return { postmaster, children };
  };
  const signal = (pids: number[]) => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  };
  const gone = (pids: number[]) => {
    const deadline = Date.now() + 30_000;
    while (pids.some(alive)) {
      if (Date.now() > deadline) throw new Error('the killed server did not go away');
      execFileSync('sleep', ['0.02']);
    }
    // Its lock files name a pid that may linger as a zombie (where nothing reaps orphans), which a
    // new postmaster would take for a running server: the files are stale, as after a power cut.
    rmSync(join(data, 'postmaster.pid'), { force: true });
    rmSync(join(server.dir, '.s.PGSQL.5432.lock'), { force: true });
  };
  return {
    url: server.url,
    socket: join(server.dir, '.s.PGSQL.5432'),
    dir: server.dir,
    stopFast() {
      asPostgres(pgCtl, ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60']);
    },
    kill() {
      const { postmaster, children } = freeze();
      signal([...children, postmaster]);
      gone([postmaster, ...children]);
    },
    async killPostmasterFirst(lingerMs) {
      const { postmaster, children } = freeze();
      signal([postmaster]);
      await new Promise((r) => setTimeout(r, lingerMs));
      signal(children);
      gone([postmaster, ...children]);
    },
    start() {
      try {
        asPostgres(pgCtl, ['start', '-D', data, '-w', '-t', '60', '-l', join(server.dir, 'server.log')]);
      } catch (error) {
        const log = readFileSync(join(server.dir, 'server.log'), 'utf8').split('\n').slice(-15).join('\n');
        throw new Error(`${(error as Error).message}\nserver.log:\n${log}`);
      }
    },
    stop() {
      server.stop();
    },
  };
}
