// Crash rounds as an operator meets them. Throughout, two writer processes commit and release with a
// LISTEN open, and two more keep setting connections up (connect, 8 loads at once, close). Each round, 8
// `gpualloc plan --commit --store …` processes start, and while they run the server crashes the way
// that finds connections idle: SIGKILL to the postmaster first, the backends a few milliseconds
// later, so every backend that notices its postmaster gone (an idle pooled connection, the LISTEN
// connection, one just set up) sends its client the FATAL "terminating connection due to unexpected
// postmaster exit" with no query waiting for it. Then crash recovery. Every CLI run must end in an
// answer the README defines: exit 0 with its slot, exit 1 only with a reason (nothing fits, or every
// attempt lost a race), exit 2/4 with a `gpualloc:` message; never an uncaught error or a bare stack
// trace; no writer process may die. At the end the rows must match what every process reported.
// The connection churn makes the rare moment (a connection set up in the instant of the crash) likely
// in every round, so a few dozen crashes show what hundreds of CLI runs per crash would.
//
// GPUALLOC_CRASH_ROUNDS rounds (default 1; 3 in CI, .ci/run; `npm run test:faults` runs 40, the long
// version). The totals are printed at the end.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { type FaultServer, startFaultServer } from './fault-server.js';
import { add, CHURN, type Counts, checkRows, type Line, reported, runCli, startWriter, stats, until, type Writer } from './fault-writers.js';
import { freshSchema, noPg, uniformNodes } from './pg-context.js';

const GiB = 2 ** 30;
/** Rounds in a row (GPUALLOC_CRASH_ROUNDS; default 1). */
const ROUNDS = Number(process.env.GPUALLOC_CRASH_ROUNDS ?? 1);
/** CLI processes per round. */
const CLI_RUNS = 8;
/** How long the backends outlive their postmaster, by round (they send their FATALs meanwhile). */
const LINGER_MS = [50, 150, 300];
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

/** A process that ended badly: non-zero, or anything on stderr. */
const died = (e: { code: number | null; stderr: string }) => e.code !== 0 || e.stderr !== '';

describe.skipIf(noPg)('gpualloc plan --commit --store, writers and listeners through crash rounds that find connections idle', () => {
  let server: FaultServer;
  let schema: string;
  let url: string;
  /** The writers (with a LISTEN open) and churners now running; replaced when one dies. */
  const writers: Writer[] = [];
  const churners: Writer[] = [];
  /** What every process reported, for the rows check at the end. */
  const lines: Line[] = [];
  const totals: Counts = {};
  const started = Date.now();
  let spawned = 0;
  const startWriters = () => {
    while (writers.length < 2) writers.push(startWriter({ url, schema, writer: spawned, seed: 9000 + spawned++, watch: true, options: WRITER_OPTIONS }));
    while (churners.length < 2) churners.push(startWriter({ url, schema, writer: spawned++, seed: 0, watch: false, options: {} }, CHURN));
  };
  /** Removes ended processes, returning how many ended badly (their lines are kept). */
  const reap = (list: Writer[]): number => {
    let bad = 0;
    for (const w of [...list]) {
      if (w.child.exitCode === null && w.child.signalCode === null) continue;
      list.splice(list.indexOf(w), 1);
      lines.push(...w.lines);
      bad++;
    }
    return bad;
  };

  beforeAll(async () => {
    server = startFaultServer();
    schema = freshSchema('crash');
    const engine = await openEngine({ backend: 'ts' });
    const seed = await PostgresStore.open(server.url, { schema });
    await seed.init(engine.createClusterState({ nodes: uniformNodes(8, 8, 80 * GiB) }));
    await seed.close();
    url = `${server.url}&schema=${schema}`;
    startWriters();
    await until('the writers to work', () => writers.every((w) => w.lines.length >= 2), 120_000);
  });
  afterAll(() => {
    const s = ((Date.now() - started) / 1000).toFixed(1);
    console.info(
      `crash rounds: ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} in ${s} s: ${Object.entries(totals)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    for (const w of [...writers, ...churners]) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    try {
      server?.stop();
    } catch {
      // Already down: its folder is removed either way.
    }
  });

  it.each(Array.from({ length: ROUNDS }, (_, k) => k + 1))(
    'round %i: 8 CLI commits, two listeners and two connection churners through a postmaster-first SIGKILL: every exit code tells the truth',
    { timeout: 300_000 },
    async (round) => {
      const dead = reap(writers) + reap(churners);
      startWriters();
      // The crash lands after 1 to 4 of the round's CLI runs finished (the rest in flight), with a different linger each round.
      const killAt = 1 + (round % 4);
      const linger = LINGER_MS[round % LINGER_MS.length];
      const writerOps = () => writers.reduce((t, w) => t + w.lines.length, 0);
      let mark = 0;
      let crash: Promise<void> | undefined;
      const runs: Run[] = [];
      await Promise.all(
        Array.from({ length: CLI_RUNS }, async (_, k) => {
          const requestId = `crash-${round}-${k}`;
          const r = await runCli(['plan', '--memory', '4GiB', '--tp', '1', '--commit', '--request-id', requestId, '--json', '--store', url], { GPUALLOC_STORE_RETRY_MS: '30000' });
          runs.push({ ...r, requestId });
          if (runs.length === killAt) {
            mark = writerOps();
            crash = (async () => {
              await server.killPostmasterFirst(linger);
              await new Promise((done) => setTimeout(done, 200));
              server.start();
            })();
          }
        }),
      );
      await crash;
      // The writers go on after the crash (or die, which the next round counts).
      await until('the writers to go on after the crash', () => writerOps() >= mark + 4 || writers.some((w) => w.child.exitCode !== null), 120_000);
      for (const r of runs) {
        const committed = r.code === 0 ? (JSON.parse(r.stdout) as { committed?: string }).committed : undefined;
        lines.push({ op: 'commit', requestId: r.requestId, ok: r.code === 0, id: committed, outcome: r.code === 4 ? 'unknown' : 'none' });
      }
      const diedNow = [...writers, ...churners].filter((w) => w.child.exitCode !== null && w.child.exitCode !== 0).length;
      const counts: Counts = {
        rounds: 1,
        'CLI runs': runs.length,
        'exit 0': runs.filter((r) => r.code === 0).length,
        'exit 1 (with a reason)': runs.filter((r) => r.code === 1 && infeasible(r)).length,
        'exit 1 not infeasible': runs.filter((r) => r.code === 1 && !infeasible(r)).length,
        'exit 2': runs.filter((r) => r.code === 2).length,
        'exit 4': runs.filter((r) => r.code === 4).length,
        'CLI uncaught errors': runs.filter(uncaught).length,
        'writer processes died': dead + diedNow,
      };
      console.info(
        `crash round ${round} (after ${killAt} runs, linger ${linger} ms): ${Object.entries(counts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
      // A writer that died last round is counted once (this round's `dead`); one dying now, next round or at the end.
      add(totals, { ...counts, 'writer processes died': dead });
      const lies = runs.filter((r) => uncaught(r) || (r.code === 1 && !infeasible(r))).map((r) => ({ code: r.code, stderr: r.stderr.slice(0, 400) }));
      expect(lies).toEqual([]);
      expect({ 'writer processes died': dead + diedNow }).toEqual({ 'writer processes died': 0 });
    },
  );

  it('afterwards: no process died, the listeners subscribed again after each crash, and the rows match every reported outcome', { timeout: 120_000 }, async () => {
    const ended = await Promise.all([...writers, ...churners].map((w) => w.stop()));
    const bad = ended.filter(died);
    totals['writer processes died'] = (totals['writer processes died'] ?? 0) + bad.length;
    totals['connections churned'] = ended.reduce((t, e) => t + (e.lines.find((l) => l.op === 'churn')?.cycles ?? 0), 0);
    for (const e of ended) lines.push(...e.lines);
    expect(bad.map((e) => ({ code: e.code, stderr: e.stderr.slice(0, 400) }))).toEqual([]);
    const counts: Counts = {};
    for (const e of ended.slice(0, writers.length)) add(counts, stats(e.lines));
    add(totals, counts);
    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    try {
      await checkRows(db, schema, reported(lines));
    } finally {
      await db.end();
    }
    // Each crash cut both listeners; a listener still reconnecting (backoff up to 5 s) when the next
    // crash came hears the two as one, so at least one resubscription per crash, not two.
    expect(counts.resubscribes).toBeGreaterThanOrEqual(ROUNDS);
  });
});
