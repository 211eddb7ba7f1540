// Crash rounds as an operator meets them: 8 loops run `gpualloc plan --commit --store …` (2 runs
// each, 16 CLI processes a round) while two writer processes keep a LISTEN open and two more keep
// setting connections up (connect, load, close), and once a round the server crashes the way that
// finds connections idle: SIGKILL to the postmaster first, the backends a few milliseconds later,
// so every backend that notices its postmaster gone (an idle pooled connection, a LISTEN
// connection, one just set up) sends its client the FATAL "terminating connection due to
// unexpected postmaster exit" with no query waiting for it. Then crash recovery. The connection
// churn makes the rare moment (a connection set up in the same instant) likely in every round, so
// a few dozen crashes show what a few hundred CLI runs per crash would.
// Every CLI run must end in an answer the README defines: exit 0 with its slot, exit 1 only with a
// reason (nothing fits, or every attempt lost a race), exit 2/4 with a `gpualloc:` message; never an
// uncaught error, never a bare stack trace. The rows must match what each process reported.
//
// GPUALLOC_CRASH_ROUNDS rounds (default 1; 3 in CI, .ci/run; `npm run test:faults` runs 40, the
// long version). The totals are printed at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { startFaultServer, type FaultServer } from './fault-server.js';
import { add, CHURN, checkRows, reported, runCli, startWriter, stats, until, type Counts, type Line, type Writer } from './fault-writers.js';
import { freshSchema, noPg, uniformNodes } from './pg-context.js';

const GiB = 2 ** 30;
/** Rounds in a row (GPUALLOC_CRASH_ROUNDS; default 1). */
const ROUNDS = Number(process.env.GPUALLOC_CRASH_ROUNDS ?? 1);
/** CLI loops, and runs of each per round. */
const LOOPS = 8;
const RUNS_PER_LOOP = 2;
/** How long the backends outlive their postmaster, by round (they send their FATALs meanwhile). */
const LINGER_MS = [5, 20, 50];
/** Writer bounds: a crash is ridden out (retryMs) and nothing waits long on a dead server. */
const WRITER_OPTIONS = { lockTimeoutMs: 2_000, statementTimeoutMs: 5_000, connectTimeoutMs: 3_000, retryMs: 30_000 };

/** What one CLI run came to. */
type Run = { code: number | null; stdout: string; stderr: string; requestId: string };

/** Whether a run's stderr shows something other than gpualloc's own messages (a stack trace, Node's report of an uncaught error) or an internal fault. */
function uncaught(r: Run): boolean {
  if (r.code === null || r.code === 3) return true;
  return r.stderr.split('\n').some((line) => line !== '' && (!line.startsWith('gpualloc: ') || line.startsWith('gpualloc: internal error')));
}

/** Whether an exit 1 is a result with a reason (infeasible, or every attempt lost), as the README defines it. */
function infeasible(r: Run): boolean {
  try {
    const json = JSON.parse(r.stdout) as { reason?: { code?: unknown }; committed?: unknown };
    return typeof json.reason?.code === 'string' && json.committed === undefined;
  } catch {
    return false;
  }
}

describe.skipIf(noPg)('gpualloc plan --commit --store through crash rounds that find connections idle', () => {
  let server: FaultServer;
  const totals: Counts = {};
  const started = Date.now();
  beforeAll(() => {
    server = startFaultServer();
  });
  afterAll(() => {
    const s = ((Date.now() - started) / 1000).toFixed(1);
    console.info(`crash rounds: ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} in ${s} s: ${Object.entries(totals).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    try {
      server?.stop();
    } catch {
      // Already down: its folder is removed either way.
    }
  });

  it.each(Array.from({ length: ROUNDS }, (_, k) => k + 1))('round %i: 16 CLI commits, two listeners and two connection churners through a postmaster-first SIGKILL: every exit code tells the truth', { timeout: 300_000 }, async (round) => {
    const schema = freshSchema('crash');
    const engine = await createEngine({ backend: 'ts' });
    const seed = await PostgresStore.connect(server.url, { schema });
    await seed.init(engine.createClusterState({ nodes: uniformNodes(4, 8, 80 * GiB) }));
    await seed.close();
    const url = `${server.url}&schema=${schema}`;
    // Two long-lived writers with a LISTEN open (and idle pooled connections) through the crash.
    const writers: Writer[] = [0, 1].map((w) => startWriter({ url, schema, writer: w, seed: 9000 + 10 * round + w, watch: true, options: WRITER_OPTIONS }));
    const churners: Writer[] = [2, 3].map((w) => startWriter({ url, schema, writer: w, seed: 0, watch: false, options: {} }, CHURN));
    const runs: Run[] = [];
    try {
      await until('both writers to work', () => writers.every((w) => w.lines.length >= 2), 60_000);
      // The crash lands after a different number of finished CLI runs each round (the rest in flight), with a different linger.
      const killAt = 1 + (round % (LOOPS * RUNS_PER_LOOP - 2));
      const linger = LINGER_MS[round % LINGER_MS.length];
      let crash: Promise<void> | undefined;
      let writerOps = 0;
      const loop = async (l: number) => {
        for (let k = 0; k < RUNS_PER_LOOP; k++) {
          const requestId = `crash-${round}-${l}-${k}`;
          const r = await runCli(['plan', '--memory', '10GiB', '--tp', '1', '--commit', '--request-id', requestId, '--json', '--store', url], { GPUALLOC_STORE_RETRY_MS: '30000' });
          runs.push({ ...r, requestId });
          if (runs.length === killAt) {
            writerOps = writers.reduce((t, w) => t + w.lines.length, 0);
            crash = (async () => {
              await server.killPostmasterFirst(linger);
              await new Promise((done) => setTimeout(done, 200));
              server.start();
            })();
          }
        }
      };
      await Promise.all(Array.from({ length: LOOPS }, (_, l) => loop(l)));
      await crash;
      await until('the writers to go on after the crash', () => writers.reduce((t, w) => t + w.lines.length, 0) >= writerOps + 4, 60_000);

      const ended = await Promise.all(writers.map((w) => w.stop()));
      const churned = await Promise.all(churners.map((w) => w.stop()));
      const lines: Line[] = ended.flatMap((e) => e.lines);
      // The CLI processes, as changes: exit 0 done, exit 4 unknown, any other nothing changed.
      for (const r of runs) {
        const committed = r.code === 0 ? (JSON.parse(r.stdout) as { committed?: string }).committed : undefined;
        lines.push({ op: 'commit', requestId: r.requestId, ok: r.code === 0, id: committed, outcome: r.code === 4 ? 'unknown' : 'none' });
      }
      const counts: Counts = {
        rounds: 1, 'CLI runs': runs.length,
        'exit 0': runs.filter((r) => r.code === 0).length,
        'exit 1 (with a reason)': runs.filter((r) => r.code === 1 && infeasible(r)).length,
        'exit 1 not infeasible': runs.filter((r) => r.code === 1 && !infeasible(r)).length,
        'exit 2': runs.filter((r) => r.code === 2).length,
        'exit 4': runs.filter((r) => r.code === 4).length,
        'uncaught errors': runs.filter(uncaught).length + [...ended, ...churned].filter((e) => e.code !== 0 || e.stderr !== '').length,
        'writer processes died': [...ended, ...churned].filter((e) => e.code !== 0).length,
        'connections churned': churned.reduce((t, e) => t + (e.lines.find((l) => l.op === 'churn')?.cycles ?? 0), 0),
      };
      if (counts['uncaught errors'] === 0) {
        for (const e of ended) add(counts, stats(e.lines));
      }
      console.info(`crash round ${round} (after ${killAt} runs, linger ${linger} ms): ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      add(totals, counts);
      const lies = [...runs.filter((r) => uncaught(r) || (r.code === 1 && !infeasible(r))).map((r) => ({ code: r.code, stderr: r.stderr.slice(0, 400) })), ...[...ended, ...churned].filter((e) => e.code !== 0 || e.stderr !== '').map((e) => ({ code: e.code, stderr: e.stderr.slice(0, 400) }))];
      expect(lies).toEqual([]);
      // The listeners heard the crash as a lost connection and subscribed again.
      expect(counts.resubscribes).toBeGreaterThanOrEqual(2);
      const db = new pg.Client({ connectionString: server.url });
      await db.connect();
      try {
        await checkRows(db, schema, reported(lines));
      } finally {
        await db.end();
      }
    } finally {
      for (const w of [...writers, ...churners]) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
  });
});
