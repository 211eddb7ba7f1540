// JsonFileStore.update and current: what `--state FILE` is made of. An update is one read-change-write
// under FILE.lock (concurrent updates never lose one another); a missing file is undefined, or an error
// before FILE.lock is made when it must exist; a bad file is INVALID_STATE at the line and column.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { JsonFileStore } from '../../src/store/file.js';
import { inTempDir } from '../support/cli.js';

const G = 2 ** 30;
const node = { id: 'box', gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 80 * G })) };

describe('JsonFileStore.update / current', () => {
  it('creates a missing file, then each of 12 concurrent updates lands (none reads a stale copy)', async () => {
    const engine = await openEngine({ backend: 'ts' });
    await inTempDir('gpualloc-file-update-', async (dir) => {
      const path = join(dir, 'state.json');
      const store = JsonFileStore.create(path);
      expect(await store.current()).toBeUndefined();
      const made = await store.update((saved) => ({ value: saved, write: engine.createClusterState({ nodes: [node] }) }));
      expect(made).toBeUndefined();
      await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          JsonFileStore.create(path).update((saved) => {
            const state = engine.restoreClusterState(saved);
            state.commit(state.plan({ memory: G, tensorParallelSizes: [1] }).options[0], { id: `s${k}` });
            return { value: k, write: state };
          }),
        ),
      );
      const slots = (await store.current())!.nodes[0].slots;
      expect(slots.map((s) => s.id).sort()).toEqual(Array.from({ length: 12 }, (_, k) => `s${k}`).sort());
      // Returning no state writes nothing.
      const before = readFileSync(path, 'utf8');
      expect(await store.update(() => ({ value: 'kept' }))).toBe('kept');
      expect(readFileSync(path, 'utf8')).toBe(before);
    });
  });

  it('mustExist: a missing file is INVALID_STATE (details.missing) and no FILE.lock is made', async () => {
    await inTempDir('gpualloc-file-update-', async (dir) => {
      const path = join(dir, 'none.json');
      await expect(JsonFileStore.create(path).update(() => ({ value: 1 }), { mustExist: true })).rejects.toMatchObject({ code: 'INVALID_STATE', origin: path, details: { missing: true } });
      expect(existsSync(`${path}.lock`)).toBe(false);
    });
  });

  it('a bad file: INVALID_STATE from the file at the line and column of the fault, left untouched', async () => {
    await inTempDir('gpualloc-file-update-', async (dir) => {
      const path = join(dir, 'state.json');
      const store = JsonFileStore.create(path);
      const cases: Array<[string, object]> = [
        [
          '{\n  "version": 1,\n  "nextSlot": 0,\n  "nodes": []\n}\n',
          {
            position: { line: 3, column: 3 },
            field: 'state.nextSlot',
            message: expect.stringMatching(/^.*state\.json:3:3: state\.nextSlot: expected an integer in \[1, .*\(the file was left untouched\)$/),
          },
        ],
        [
          '{\n  "version": 1,\n  "nextSlot": 1,\n  "nodez": []\n}\n',
          { position: { line: 4, column: 3 }, field: 'nodez', message: expect.stringContaining('state.json:4:3: unknown key nodez (did you mean nodes?) (the file was left untouched)') },
        ],
        ['{\n  "version": 1,\n', { position: { line: 3, column: 1 }, message: expect.stringContaining('state.json:3:1: not valid JSON') }],
      ];
      for (const [text, expected] of cases) {
        writeFileSync(path, text);
        await expect(store.current()).rejects.toMatchObject({ code: 'INVALID_STATE', origin: path, ...expected });
        await expect(store.update(() => ({ value: 0 }))).rejects.toMatchObject({ code: 'INVALID_STATE' });
        expect(readFileSync(path, 'utf8')).toBe(text);
      }
    });
  });
});
