// Pods under contention (issue 20): 8 writer processes, each with its own StoredClusterState on one
// database (half of them following the others by LISTEN), plan CPU-heavy pods (CPU-only, GPU shares,
// whole GPUs) with the state's pod scheduler (StoredClusterState.podScheduler, bestfit) and commit and
// release them on 4 nodes, so CPU runs out before GPUs and writers race for the same node.
// Afterwards the rows show: no node over its CPU or host memory, no GPU over its bytes or its 1000
// milli, every commit reported as a success is there with the fields reported, every reported
// failure and every release left nothing, and each node's version counts exactly its changes.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { freshStore, noPg, pgUrl, runWriter, sql } from './pg-context.js';

const G = 2 ** 30;
const WRITERS = 8;
const OPS_PER_WRITER = 100;
const WRITER = join(import.meta.dirname, '..', 'fixtures', 'store-pod-writer.mjs');
/** Runs in a row, each on a schema of its own with seeds of its own (GPUALLOC_CONTENTION_RUNS=20 for a soak, as .ci/run does; default 1). */
const RUNS = Number(process.env.GPUALLOC_CONTENTION_RUNS ?? 1);

type Line = {
  op: 'commit' | 'release';
  id: string;
  ok?: boolean;
  node?: string;
  gpus?: number[];
  memoryPerGpu?: number;
  milli?: number | null;
  cpu?: number | null;
  hostMemory?: number | null;
  code?: string;
  conflicts?: number;
};

/** 4 nodes of 4 × 16 GiB GPUs, 32 CPUs and 96 GiB of host memory each. */
const NODES: ClusterNode[] = Array.from({ length: 4 }, (_, k) => ({
  id: `n${k}`,
  gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 16 * G })),
  cpu: 32_000,
  hostMemory: 96 * G,
  gpuModel: 'T4',
}));

describe.skipIf(noPg)('PostgresStore with pods under contention', () => {
  let store: PostgresStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it.each(Array.from({ length: RUNS }, (_, k) => k + 1))(
    'run %i: 8 writers committing and releasing CPU-heavy pods: no node over CPU, host memory or GPU; every outcome matches the rows',
    async (run) => {
      const fresh = await freshStore(`pod_contention_${run}`, NODES);
      store = fresh.store;
      const schema = fresh.schema;
      const results = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) => runWriter<Line>(WRITER, { url: pgUrl, schema, writer: w, ops: OPS_PER_WRITER, seed: 2000 + 100 * run + w, watch: w % 2 === 1 })),
      );
      const lines = results.flat();
      expect(lines.length).toBe(WRITERS * OPS_PER_WRITER);
      const committed = new Map<string, Line>();
      const failed = new Set<string>();
      const changes = new Map<string, number>();
      let conflicts = 0;
      let cpuOnly = 0;
      let shares = 0;
      for (const l of lines) {
        conflicts += l.conflicts ?? 0;
        if (l.op === 'commit' && l.ok) {
          committed.set(l.id, l);
          changes.set(l.node!, (changes.get(l.node!) ?? 0) + 1);
          if (l.gpus!.length === 0) cpuOnly++;
          else if (l.milli !== null && l.milli! < 1000) shares++;
        } else if (l.op === 'commit') failed.add(l.id);
        else {
          expect(committed.has(l.id)).toBe(true);
          committed.delete(l.id);
          changes.set(l.node!, (changes.get(l.node!) ?? 0) + 1);
        }
      }
      const successes = lines.filter((l) => l.op === 'commit' && l.ok).length;
      console.info(`pod contention: ${successes} commits (${cpuOnly} CPU-only, ${shares} shares), ${failed.size} failures, ${conflicts} conflicts, ${committed.size} pods held at the end`);
      // Writers raced, and CPU ran out: some commits lost to another writer, some found no node at all.
      expect(conflicts).toBeGreaterThan(0);
      expect(failed.size).toBeGreaterThan(0);
      expect(cpuOnly).toBeGreaterThan(0);
      expect(shares).toBeGreaterThan(0);
      const db = await sql();
      try {
        const overNode = await db.query(`SELECT n.id, sum(sl.cpu)::float8 AS cpu, n.cpu::float8 AS cpu_total, sum(sl.host_memory)::float8 AS host, n.host_memory::float8 AS host_total
        FROM ${schema}.nodes n JOIN ${schema}.slots sl ON sl.node = n.id GROUP BY n.id HAVING sum(sl.cpu) > n.cpu OR sum(sl.host_memory) > n.host_memory`);
        expect(overNode.rows).toEqual([]);
        const overGpu = await db.query(`SELECT node, index, allocated, memory_total FROM ${schema}.gpu_usage WHERE allocated > memory_total`);
        expect(overGpu.rows).toEqual([]);
        const overMilli = await db.query(`SELECT sl.node, g, sum(sl.milli) AS milli FROM ${schema}.slots sl, unnest(sl.gpus) g GROUP BY sl.node, g HAVING sum(sl.milli) > 1000`);
        expect(overMilli.rows).toEqual([]);
        const rows = await db.query(`SELECT id, node, gpus, memory_per_gpu::float8 AS memory, milli, cpu::float8 AS cpu, host_memory::float8 AS host FROM ${schema}.slots ORDER BY id`);
        expect(new Set(rows.rows.map((r) => r.id))).toEqual(new Set(committed.keys()));
        for (const r of rows.rows) {
          const l = committed.get(r.id)!;
          expect({ node: r.node, gpus: r.gpus, memory: r.memory, milli: r.milli, cpu: r.cpu, host: r.host }).toEqual({
            node: l.node,
            gpus: l.gpus,
            memory: l.memoryPerGpu,
            milli: l.milli,
            cpu: l.cpu,
            host: l.hostMemory,
          });
          expect(failed.has(r.id)).toBe(false);
        }
        const versions = await db.query(`SELECT id, version::float8 AS version FROM ${schema}.nodes ORDER BY id`);
        for (const v of versions.rows) expect(v.version).toBe(1 + (changes.get(v.id) ?? 0));
      } finally {
        await db.end();
      }
      // A fresh reader loads exactly the rows, and they restore into a valid state (nothing over-scheduled).
      const snapshot = await fresh.store.load();
      expect(
        snapshot.state.nodes
          .flatMap((n) => n.slots)
          .map((s) => s.id)
          .sort(),
      ).toEqual([...committed.keys()].sort());
      expect(fresh.engine.restoreClusterState(snapshot.state).toJSON()).toEqual(snapshot.state);
    },
  );
});
