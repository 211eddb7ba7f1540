// Issue 21, point 5: 8 writer processes, each with its own StoredClusterState on one database,
// 2,000 commits and releases in total on 4 nodes x 8 GPUs (sizes chosen so the cluster stays near
// full and writers race). Afterwards the rows themselves show: no GPU over its total, every commit
// reported as a success has its slot (node, GPUs, memory as reported), every reported failure and
// every release left nothing, and each node's version counts exactly the changes made to it.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../../src/store/postgres.js';
import { freshStore, noPg, pgUrl, runWriter, sql, uniformNodes } from './pg-context.js';

const GiB = 2 ** 30;
const WRITERS = 8;
const TOTAL_OPS = 2000;
const WRITER = join(import.meta.dirname, '..', 'fixtures', 'store-writer.mjs');
/** Runs in a row, each on a schema of its own with seeds of its own (GPUALLOC_CONTENTION_RUNS=20 for a soak, as .ci/run does; default 1). */
const RUNS = Number(process.env.GPUALLOC_CONTENTION_RUNS ?? 1);

type Line = { op: 'commit' | 'release' | 'start'; id: string; ok?: boolean; node?: string; gpus?: number[]; memoryPerGpu?: number; code?: string; conflicts?: number };

describe.skipIf(noPg)('PostgresStore under contention', () => {
  let store: PostgresStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it.each(Array.from({ length: RUNS }, (_, k) => k + 1))('run %i: 8 writers, 2,000 commits and releases: no GPU over its total, every reported outcome matches the rows', async (run) => {
    const fresh = await freshStore('contention', uniformNodes(4, 8, 80 * GiB));
    store = fresh.store;
    const schema = fresh.schema;
    const per = TOTAL_OPS / WRITERS;
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, w) => runWriter<Line>(WRITER, { url: pgUrl, schema, writer: w, ops: per, seed: 1000 + 100 * (run - 1) + w, watch: w % 2 === 1 })),
    );
    const lines = results.flat();
    expect(lines.length).toBe(TOTAL_OPS);
    const committed = new Map<string, Line>();
    const failed = new Set<string>();
    const changes = new Map<string, number>();
    let conflicts = 0;
    for (const l of lines) {
      conflicts += l.conflicts ?? 0;
      if (l.op === 'commit' && l.ok) {
        committed.set(l.id, l);
        changes.set(l.node!, (changes.get(l.node!) ?? 0) + 1);
      } else if (l.op === 'commit') failed.add(l.id);
      else if (l.op === 'release') {
        expect(committed.has(l.id)).toBe(true);
        committed.delete(l.id);
        changes.set(l.node!, (changes.get(l.node!) ?? 0) + 1);
      }
    }
    console.info(
      `contention: ${committed.size} slots held at the end, ${lines.filter((l) => l.op === 'commit' && l.ok).length} commits, ${failed.size} failures, ${conflicts} conflicts, ${lines.filter((l) => l.op === 'release').length} releases`,
    );
    // Writers raced: some commits met a store that had moved since their plan.
    expect(conflicts).toBeGreaterThan(0);
    expect(failed.size).toBeGreaterThan(0);
    const db = await sql();
    try {
      const over = await db.query(`SELECT node, index, allocated, memory_total FROM ${schema}.gpu_usage WHERE allocated > memory_total`);
      expect(over.rows).toEqual([]);
      const rows = await db.query(`SELECT id, node, gpus, memory_per_gpu::float8 AS memory FROM ${schema}.slots ORDER BY id`);
      expect(new Set(rows.rows.map((r) => r.id))).toEqual(new Set(committed.keys()));
      for (const r of rows.rows) {
        const l = committed.get(r.id)!;
        expect({ node: r.node, gpus: r.gpus, memory: r.memory }).toEqual({ node: l.node, gpus: l.gpus, memory: l.memoryPerGpu });
        expect(failed.has(r.id)).toBe(false);
      }
      const versions = await db.query(`SELECT id, version::float8 AS version FROM ${schema}.nodes ORDER BY id`);
      for (const v of versions.rows) expect(v.version).toBe(1 + (changes.get(v.id) ?? 0));
    } finally {
      await db.end();
    }
    // A fresh reader loads exactly the rows.
    const snapshot = await fresh.store.load();
    expect(
      snapshot.state.nodes
        .flatMap((n) => n.slots)
        .map((s) => s.id)
        .sort(),
    ).toEqual([...committed.keys()].sort());
  });
});
