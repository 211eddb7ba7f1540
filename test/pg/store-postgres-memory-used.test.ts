// Memory held outside gpualloc's slots (memoryUsed) counts against a GPU's total in the PostgreSQL
// store too: it survives init and load, commits are re-validated with it, and the database's own
// trigger counts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { freshStore, noPg, sql } from './pg-context.js';

const GiB = 2 ** 30;

describe.skipIf(noPg)('PostgresStore and memoryUsed', () => {
  let store: PostgresStore;
  let engine: Engine;
  let schema: string;
  const nodes = [
    {
      id: 'box',
      gpus: [
        { index: 0, memoryTotal: 80 * GiB, memoryUsed: 30 * GiB },
        { index: 1, memoryTotal: 80 * GiB },
      ],
    },
  ];
  beforeAll(async () => {
    ({ store, engine, schema } = await freshStore('used', nodes));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('loads memoryUsed back as given, plans around it, and refuses a commit that ignores it', async () => {
    expect((await store.load()).state).toEqual(engine.createClusterState({ nodes }).toJSON());
    const state = await openClusterState(engine, store, { watch: false });
    expect(state.plan({ memory: 60 * GiB, tensorParallelSizes: [1] }).options.map((o) => o.gpus)).toEqual([[1]]);
    await expect(state.commit({ node: 'box', gpus: [0], memoryPerGpu: 60 * GiB, evict: [], score: 0 })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await state.commit({ node: 'box', gpus: [0], memoryPerGpu: 50 * GiB, evict: [], score: 0 })).toBe('slot-1');
    const db = await sql();
    try {
      await expect(db.query(`INSERT INTO ${schema}.slots (id, node, gpus, memory_per_gpu) VALUES ('raw', 'box', '{0}', 1)`)).rejects.toThrow(/would put/);
      const usage = await db.query(`SELECT index, allocated::float8 AS allocated FROM ${schema}.gpu_usage ORDER BY index`);
      expect(usage.rows).toEqual([
        { index: 0, allocated: 80 * GiB },
        { index: 1, allocated: 0 },
      ]);
    } finally {
      await db.end();
    }
  });
});
