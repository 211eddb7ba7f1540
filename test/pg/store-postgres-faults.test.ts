// The store survives its database: 8 writer processes commit and release, through a TCP proxy, on a
// server of their own while it (a) cuts connections at chosen protocol points, the worst right
// after the server's reply to COMMIT is sent and before the client reads it, and stalls one writer
// at COMMIT holding its node's lock; (b) the server is stopped with pg_ctl stop -m fast and started
// again; (c) it is killed (SIGKILL, every process) and recovers. A CLI commit (--request-id) rides
// out the fast restart and a CLI release the crash. Afterwards the rows show: every change reported
// done (every process that exited 0) has exactly its record and slot, every change reported failed
// (exit non-zero) has none, no other record, no GPU over its total, no request ID twice; no writer
// process died. GPUALLOC_FAULT_RUNS runs in a row (20 in CI, .ci/run); the counts are printed.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { CUT_POINTS, type CutPoint, FaultProxy, type Stall } from './fault-proxy.js';
import { type FaultServer, startFaultServer } from './fault-server.js';
import { add, type Counts, checkRows, type Line, reported, runCli, startWriter, stats, until, type Writer } from './fault-writers.js';
import { freshSchema, noPg, uniformNodes } from './pg-context.js';

const GiB = 2 ** 30;
const WRITERS = 8;
/** Runs in a row (GPUALLOC_FAULT_RUNS=20 in CI; default 1). */
const RUNS = Number(process.env.GPUALLOC_FAULT_RUNS ?? 1);
/** Tight bounds, so a stalled writer costs the others a second, not ten. */
const OPTIONS = { lockTimeoutMs: 1_000, idleInTransactionTimeoutMs: 1_500, statementTimeoutMs: 5_000, connectTimeoutMs: 3_000, retryMs: 25_000 };
/** Cuts armed per run, by point. */
const CUTS: Array<[CutPoint, number]> = [
  ['after-commit-reply', 3],
  ['before-commit', 2],
  ['after-lock', 2],
  ['before-begin', 2],
  ['stall-commit', 1],
];

describe.skipIf(noPg)('PostgresStore when the database fails: restarts, crashes, cut connections, a stalled writer', () => {
  let server: FaultServer;
  let proxy: FaultProxy;
  const totals: Counts = {};
  const started = Date.now();
  beforeAll(async () => {
    server = startFaultServer();
    proxy = await FaultProxy.start({ path: server.socket });
  });
  afterAll(async () => {
    console.info(
      `faults over ${RUNS} run${RUNS === 1 ? '' : 's'} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(totals)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    await proxy?.close();
    try {
      server?.stop();
    } catch {
      // Already down: its folder is removed either way.
    }
  });

  it.each(Array.from({ length: RUNS }, (_, k) => k + 1))('run %i: 8 writers through cuts, a stall, a fast restart and a crash: every reported outcome matches the rows', async (run) => {
    const schema = freshSchema('faults');
    const engine = await openEngine({ backend: 'ts' });
    const seed = await PostgresStore.open(server.url, { schema });
    await seed.init(engine.createClusterState({ nodes: uniformNodes(4, 4, 80 * GiB) }));
    await seed.close();
    const viaProxy = `postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${schema}`;
    const writers: Writer[] = Array.from({ length: WRITERS }, (_, w) => startWriter({ url: viaProxy, schema, writer: w, seed: 7000 + 100 * run + w, watch: w % 2 === 1, options: OPTIONS }));
    const ops = () => writers.reduce((t, w) => t + w.lines.length, 0);
    const faults: Counts = { 'fast restarts': 0, crashes: 0 };
    const cutsBefore = { ...proxy.cuts };
    const stallEnds: Array<() => void> = [];
    try {
      await until('every writer to work', () => writers.every((w) => w.lines.length >= 2), 60_000);

      // (a) Cuts at chosen points, and one writer stalled at COMMIT (also stopped: SIGSTOP) while
      // holding its node: the server's idle-in-transaction timeout ends its session and frees the node.
      const stalls: Stall[] = [];
      const onStall = (stall: Stall) => {
        stalls.push(stall);
        const w = writers.find((x) => x.appName === stall.appName);
        w?.child.kill('SIGSTOP');
        stallEnds.push(() => w?.child.kill('SIGCONT'));
      };
      proxy.on('stall', onStall);
      for (const [point, n] of CUTS) proxy.arm(point, n);
      await until('every armed cut', () => CUT_POINTS.every((p) => proxy.pending(p) === 0), 30_000).catch((error: Error) => {
        throw new Error(`${error.message}: left ${CUT_POINTS.map((p) => `${p} ${proxy.pending(p)}`).join(', ')} after ${ops()} operations`);
      });
      // The stalled session ends when the server's idle-in-transaction timeout ends it (its locks with it).
      await until('the stall', () => stalls.length > 0);
      await Promise.all(stalls.map((st) => st.ended));
      proxy.off('stall', onStall);
      for (const end of stallEnds.splice(0)) end();

      // (b) A fast shutdown and start, a CLI commit waiting it out.
      let mark = ops();
      const cliCommitId = `cli-${run}-commit`;
      const cliArgs = ['plan', '--memory', '20GiB', '--tp', '1', '--commit', '--request-id', cliCommitId, '--json', '--store', viaProxy];
      const cliCommit = runCli(cliArgs, { GPUALLOC_STORE_RETRY_MS: '25000' });
      server.stopFast();
      faults['fast restarts']++;
      await new Promise((r) => setTimeout(r, 200));
      server.start();
      const commit = await cliCommit;
      const committed = commit.code === 0 ? (JSON.parse(commit.stdout).committed as string) : undefined;
      await until('the writers to go on after the restart', () => ops() >= mark + WRITERS, 60_000);

      // (c) A crash (SIGKILL of every server process) and recovery, a CLI release waiting it out.
      mark = ops();
      const cliReleaseId = `cli-${run}-release`;
      const cliRelease =
        committed === undefined ? undefined : runCli(['state', 'release', committed, '--request-id', cliReleaseId, '--json', '--store', viaProxy], { GPUALLOC_STORE_RETRY_MS: '25000' });
      server.kill();
      faults.crashes++;
      await new Promise((r) => setTimeout(r, 200));
      server.start();
      const release = await cliRelease;
      await until('the writers to go on after the crash', () => ops() >= mark + WRITERS, 60_000);

      const ended = await Promise.all(writers.map((w) => w.stop()));
      // No writer died: each kept its pool through both restarts and every cut.
      expect(ended.map((e) => ({ code: e.code, stderr: e.stderr }))).toEqual(ended.map(() => ({ code: 0, stderr: '' })));
      const lines: Line[] = ended.flatMap((e) => e.lines);
      // The CLI processes, as changes: exit 0 done, exit 2 nothing changed, exit 4 unknown.
      lines.push({ op: 'commit', requestId: cliCommitId, ok: commit.code === 0, id: committed, outcome: commit.code === 4 ? 'unknown' : 'none' });
      if (release !== undefined) lines.push({ op: 'release', requestId: cliReleaseId, ok: release.code === 0, id: committed, outcome: release.code === 4 ? 'unknown' : 'none' });
      expect({ commit: commit.code, release: release?.code, stderr: commit.stderr + (release?.stderr ?? '') }).toEqual({ commit: 0, release: 0, stderr: '' });

      const r = reported(lines);
      const db2 = new pg.Client({ connectionString: server.url });
      await db2.connect();
      try {
        await checkRows(db2, schema, r);
      } finally {
        await db2.end();
      }
      const counts: Counts = {};
      for (const e of ended) add(counts, stats(e.lines));
      const cuts: Counts = {};
      for (const p of CUT_POINTS) cuts[`cut ${p}`] = proxy.cuts[p] - cutsBefore[p];
      // Every cut at COMMIT (before it, after its reply, or a stall) left a writer not knowing: one
      // ambiguous try each at least (a retry may meet the next armed cut, and restarts add more).
      expect(counts['ambiguous tries']).toBeGreaterThanOrEqual(cuts['cut before-commit'] + cuts['cut after-commit-reply'] + cuts['cut stall-commit']);
      // A change cut after its COMMIT reply had landed: its retry found it (never a second slot).
      expect(counts.landed).toBeGreaterThanOrEqual(cuts['cut after-commit-reply']);
      // A COMMIT dropped before the server, or stalled until the server ended it, had not: a retry made it anew.
      expect(counts.notLanded).toBeGreaterThanOrEqual(1);
      // The listening writers subscribed again after each restart.
      expect(counts.resubscribes).toBeGreaterThanOrEqual(2);
      const lockTimeouts = lines.filter((l) => l.timeout === 'lockTimeoutMs').length;
      const run_: Counts = {
        ...faults,
        ...cuts,
        'faults injected': faults['fast restarts'] + faults.crashes + Object.values(cuts).reduce((a, b) => a + b, 0),
        ...counts,
        'unknown outcomes': r.unknown.size,
        'ambiguous commits resolved': counts.landed + counts.notLanded,
        commits: r.commits.size,
        releases: r.releases.size,
        'failed (nothing changed)': r.failed.size,
        'lock timeouts': lockTimeouts,
      };
      console.info(
        `faults run ${run}: ${Object.entries(run_)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
      add(totals, run_);
    } finally {
      for (const end of stallEnds) end();
      proxy.disarm();
      for (const w of writers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    }
  });
});
