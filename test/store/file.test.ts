// JsonFileStore: the CLI's state file as a store. Changes re-read the file under FILE.lock and
// replace it atomically, so replicas on one file (here 8, in one process, each with its own lock
// descriptor) never over-schedule and never lose a commit; the file keeps the CLI's exact format.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { JsonFileStore } from '../../src/store/file.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { inTempDir } from '../support/cli.js';

const nodes = ['a', 'b'].map((id) => ({ id, gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 100 })) }));

describe('JsonFileStore', () => {
  it('init writes the CLI format and refuses to overwrite; a corrupt file is INVALID_STATE and left untouched', async () => {
    const engine = await openEngine({ backend: 'ts' });
    await inTempDir('gpualloc-file-store-', async (dir) => {
      const path = join(dir, 'state.json');
      const store = JsonFileStore.create(path);
      await expect(store.load()).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('does not exist') });
      const state = engine.createClusterState({ nodes });
      await store.init(state);
      expect(readFileSync(path, 'utf8')).toBe(JSON.stringify(state.toJSON(), null, 2) + '\n');
      await expect(store.init(engine.createClusterState({ nodes: nodes.slice(0, 1) }))).rejects.toMatchObject({ code: 'STORE_NOT_EMPTY' });
      expect((await store.load()).state).toEqual(state.toJSON());
      writeFileSync(path, '{"version": 1, "nodes": [');
      const opened = openClusterState(engine, store);
      await expect(opened).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining(path) });
      expect(readFileSync(path, 'utf8')).toBe('{"version": 1, "nodes": [');
    });
  });

  it('8 replicas committing at once: every commit lands, none over-schedules, versions only grow', async () => {
    const engine = await openEngine({ backend: 'ts' });
    await inTempDir('gpualloc-file-store-', async (dir) => {
      const path = join(dir, 'state.json');
      await JsonFileStore.create(path).init(engine.createClusterState({ nodes }));
      const replicas = await Promise.all(Array.from({ length: 8 }, (_, w) => openClusterState(engine, JsonFileStore.create(path), { replica: w })));
      const results = await Promise.all(replicas.map((r, w) => r.commitWithRetry({ memory: 60, tensorParallelSizes: [1] }, { id: `w${w}`, attempts: 10 })));
      expect(results.map((r) => r.committed)).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7']);
      expect(results.reduce((n, r) => n + r.conflicts, 0)).toBeGreaterThan(0);
      const stored = await JsonFileStore.create(path).load();
      const slots = stored.state.nodes.flatMap((n) => n.slots.map((s) => `${n.id}:${s.gpus.join(',')}`));
      expect(new Set(slots).size).toBe(8); // 8 GPUs of 100, 60 each: exactly one slot per GPU
      const versions = replicas.map((r) => r.version('a')!);
      for (const v of versions) expect(v).toBeGreaterThan(0);
      // A ninth commit finds no room: a result with a reason, not an error, and the file unchanged.
      const before = readFileSync(path, 'utf8');
      const ninth = await replicas[0].commitWithRetry({ memory: 60, tensorParallelSizes: [1] });
      expect(ninth.committed).toBeUndefined();
      expect(ninth.reason?.code).toBe('NO_VIABLE_OPTION');
      expect(readFileSync(path, 'utf8')).toBe(before);
    });
  });

  it('quick successive changes each get a higher version, so a replica applies every one', async () => {
    const engine = await openEngine({ backend: 'ts' });
    await inTempDir('gpualloc-file-store-', async (dir) => {
      const path = join(dir, 'state.json');
      const store = JsonFileStore.create(path);
      await store.init(engine.createClusterState({ nodes }));
      const seen: number[] = [];
      for (let k = 0; k < 10; k++) {
        const out = await store.commit({ node: 'a', gpus: [k % 4], memoryPerGpu: 1, evict: [], score: 0 });
        seen.push(out.nodes[0].version);
      }
      for (let k = 1; k < seen.length; k++) expect(seen[k]).toBeGreaterThan(seen[k - 1]);
      const replica = await openClusterState(engine, store);
      await replica.release('slot-1');
      await replica.release('slot-2');
      expect(replica.listSlots('a').map((s) => s.id)).toEqual(['slot-3', 'slot-4', 'slot-5', 'slot-6', 'slot-7', 'slot-8', 'slot-9', 'slot-10']);
      expect(replica.toJSON()).toEqual((await store.load()).state);
    });
  });
});
