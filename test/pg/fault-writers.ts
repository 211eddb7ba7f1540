// What the fault tests share: writer processes that run until told to stop, the CLI as a process,
// the SQL checks on the rows afterwards, and the counts printed at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type pg from 'pg';
import { expect } from 'vitest';

export const WRITER = join(import.meta.dirname, '..', 'fixtures', 'store-fault-writer.mjs');
/** A process that keeps connecting, loading and closing a store (test/fixtures/store-churn.mjs). */
export const CHURN = join(import.meta.dirname, '..', 'fixtures', 'store-churn.mjs');
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/** One line a fault writer prints. */
export type Line = {
  op: 'commit' | 'release' | 'stats' | 'churn';
  ok?: boolean;
  requestId?: string;
  id?: string;
  replayed?: boolean;
  code?: string;
  outcome?: 'none' | 'unknown';
  timeout?: string;
  message?: string;
  retries?: number;
  ambiguous?: number;
  landed?: number;
  notLanded?: number;
  replays?: number;
  resubscribes?: number;
  cycles?: number;
  unavailable?: number;
};

/** A running writer: its lines so far, and stop() (closes its stdin; resolves to its exit code and lines). */
export type Writer = { child: ChildProcess; lines: Line[]; appName: string; stop(): Promise<{ code: number | null; lines: Line[]; stderr: string }> };

/** Starts fault writer `writer` (see test/fixtures/store-fault-writer.mjs; mode 'one': the one commit of `option`). */
export function startWriter(
  input: { url: string; schema: string; writer: number; seed: number; watch: boolean; options: Record<string, unknown>; mode?: 'one'; option?: unknown; requestId?: string },
  script = WRITER,
): Writer {
  const child = spawn(process.execPath, [script], { env: { ...process.env, GPUALLOC_WRITER: JSON.stringify(input) }, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Line[] = [];
  let partial = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const p of parts) if (p.trim() !== '') lines.push(JSON.parse(p) as Line);
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    lines,
    appName: `gpualloc-fault-${input.writer}`,
    async stop() {
      child.stdin!.end();
      const code = await exited;
      return { code, lines, stderr };
    },
  };
}

/** Runs the built CLI with `args`; resolves to its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Waits until `probe` is true, polling every 20 ms; fails naming `what` after `ms`. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A change a process reported as done (exit 0 / ok) or not (with nothing changed), by request ID. */
export type Reported = { commits: Map<string, string>; releases: Map<string, string>; failed: Set<string>; unknown: Set<string> };

export function reported(lines: Line[]): Reported {
  const r: Reported = { commits: new Map(), releases: new Map(), failed: new Set(), unknown: new Set() };
  for (const l of lines) {
    if (l.op === 'stats' || l.op === 'churn' || l.requestId === undefined) continue;
    if (l.ok === true) (l.op === 'commit' ? r.commits : r.releases).set(l.requestId, l.id!);
    else if (l.outcome === 'unknown') r.unknown.add(l.requestId);
    else r.failed.add(l.requestId);
  }
  return r;
}

/**
 * The rows against what the processes reported: every change reported done has its request record
 * (commit: its slot; release: its slot gone), every change reported failed has none, no record
 * without a reported change, the slots are exactly the committed less the released, each slot has
 * one commit record, no GPU is over its total, and each node's version counts its changes.
 */
export async function checkRows(db: pg.Client, schema: string, r: Reported): Promise<void> {
  expect([...r.unknown]).toEqual([]);
  const requests = new Map((await db.query(`SELECT id, op, slot, node FROM ${schema}.requests`)).rows.map((row) => [row.id as string, row as { op: string; slot: string; node: string }]));
  for (const [req, slot] of r.commits) expect({ req, ...requests.get(req) }).toMatchObject({ req, op: 'commit', slot });
  for (const [req, slot] of r.releases) expect({ req, ...requests.get(req) }).toMatchObject({ req, op: 'release', slot });
  for (const req of r.failed) expect({ req, record: requests.get(req) }).toEqual({ req, record: undefined });
  expect(new Set(requests.keys())).toEqual(new Set([...r.commits.keys(), ...r.releases.keys()]));
  const released = new Set(r.releases.values());
  const held = [...r.commits.values()].filter((s) => !released.has(s)).sort();
  const slots = (await db.query(`SELECT id FROM ${schema}.slots ORDER BY id`)).rows.map((row) => row.id as string).sort();
  expect(slots).toEqual(held);
  expect((await db.query(`SELECT slot FROM ${schema}.requests WHERE op = 'commit' GROUP BY slot HAVING count(*) > 1`)).rows).toEqual([]);
  expect((await db.query(`SELECT node, index FROM ${schema}.gpu_usage WHERE allocated > memory_total`)).rows).toEqual([]);
  const versions = await db.query(`SELECT n.id, n.version::integer AS version, (SELECT count(*)::integer FROM ${schema}.requests r WHERE r.node = n.id) AS changes FROM ${schema}.nodes n`);
  for (const v of versions.rows) expect({ node: v.id, version: v.version }).toEqual({ node: v.id, version: 1 + v.changes });
}

/** Totals over runs, printed at the end. */
export type Counts = Record<string, number>;

export function add(into: Counts, from: Counts): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export function stats(lines: Line[]): Counts {
  const s = lines.find((l) => l.op === 'stats');
  expect(s, 'the writer printed its stats').toBeDefined();
  return { retries: s!.retries!, 'ambiguous tries': s!.ambiguous!, landed: s!.landed!, notLanded: s!.notLanded!, replays: s!.replays!, resubscribes: s!.resubscribes! };
}
