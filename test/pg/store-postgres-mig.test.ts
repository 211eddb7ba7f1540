// GPUs in MIG mode in PostgresStore (migration 4, gpus.mig): the store keeps the flag as a state file
// does, so a state loaded from it plans as the file's state (MIG GPUs left out unless allowMig), and
// a commit on a MIG GPU that the caller allowed is re-validated and stored like any other.
import { describe, expect, it } from 'vitest';
import { nodeFromInventory } from '../../src/cluster/node.js';
import { getPreset } from '../../src/hardware/presets.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { freshStore, noPg, sql } from './pg-context.js';

const G = 2 ** 30;

describe.skipIf(noPg)('PostgresStore and MIG mode', () => {
  it('keeps gpus.mig, plans as the in-memory state does, and stores an allowed commit on a MIG GPU', async () => {
    const node = nodeFromInventory(getPreset('dgx-a100-mig'));
    const { store, engine, schema } = await freshStore('mig', [node]);
    try {
      const expected = engine.createClusterState({ nodes: [node] });
      expect((await store.load()).state).toEqual(expected.toJSON());
      const rows = await sql();
      try {
        expect((await rows.query(`SELECT index FROM ${schema}.gpus WHERE mig ORDER BY index`)).rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
      } finally {
        await rows.end();
      }
      const state = await openClusterState(engine, store, { watch: false });
      const request = { memory: 140 * G };
      expect(state.plan(request)).toEqual(expected.plan(request));
      expect(state.plan(request).options[0].gpus).toEqual([6, 7]);
      const allowed = state.plan({ ...request, allowMig: true });
      expect(allowed.options[0].gpus).toEqual([0, 1]);
      expect(await state.commit(allowed.options[0], { id: 'on-mig' })).toBe('on-mig');
      const fresh = (await store.load()).state;
      expect(fresh.nodes[0].slots.map((s) => [s.id, s.gpus])).toEqual([['on-mig', [0, 1]]]);
      expect(fresh.nodes[0].gpus.filter((g) => g.mig === true).length).toBe(5);
      await state.close();
    } finally {
      await store.close();
    }
  });
});
