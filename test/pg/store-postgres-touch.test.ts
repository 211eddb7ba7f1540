// Activity through PostgresStore: the shared touch scenario (test/support/touch-scenario.ts), the
// rows themselves, and the CLI's touch and gc --dry-run on --store printing what they print for a file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { cli } from '../support/cli.js';
import { TOUCH_NODES, TOUCH_NOW, touchScenario } from '../support/touch-scenario.js';
import { freshSchema, freshStore, noPg, pgUrl, sql } from './pg-context.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-pg-touch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noPg)('PostgresStore touch', () => {
  it('runs the touch scenario; the slot row holds the activity', async () => {
    const { store, engine, schema } = await freshStore('touch', TOUCH_NODES);
    try {
      await touchScenario(engine, store);
      const rows = await sql();
      try {
        const r = await rows.query(`SELECT id, last_activity FROM ${schema}.slots`);
        expect(r.rows).toEqual([{ id: 's0', last_activity: TOUCH_NOW }]);
      } finally {
        await rows.end();
      }
    } finally {
      await store.close();
    }
  });

  it('state touch, stale --clear and gc [--dry-run] on --store print what they print for a state file', async () => {
    const url = `${pgUrl}&schema=${freshSchema('cli_touch')}`;
    const file = join(dir, 'touch.json');
    const DAY = 86_400_000;
    const nodes = [0, 1, 2].map((k) => ({ id: `n${k}`, gpus: [{ index: 0, memoryTotal: 80 * 2 ** 30 }] }));
    const engine = await openEngine({ backend: 'ts' });
    const state = engine.createClusterState({ nodes });
    const now = Date.now();
    [9, 9, 1].forEach((d, k) => state.commit({ node: `n${k}`, gpus: [0], memoryPerGpu: 2 ** 30, model: `m${k}`, evict: [], score: 0 }, { id: `s${k}`, lastActivity: now - d * DAY }));
    writeFileSync(file, JSON.stringify(state.toJSON()));
    const seed = await PostgresStore.open(url);
    await seed.init(state);
    await seed.close();
    const steps: string[][] = [
      ['state', 'gc', '--older-than', '7d', '--dry-run'],
      ['state', 'touch', 's0'],
      ['state', 'stale', 's2'],
      ['state', 'stale', 's2', '--clear'],
      ['state', 'touch', 's1', 'nope'],
      ['state', 'gc', '--older-than', '7d', '--json'],
      ['state', 'gc', '--older-than', '7d'],
    ];
    for (const step of steps) {
      const onFile = await cli([...step, '--state', file]);
      const onStore = await cli([...step, '--store', url]);
      expect({ step, code: onStore.code }).toEqual({ step, code: onFile.code });
      const scrub = (t: string) =>
        t
          .replaceAll(file, 'STATE')
          .replaceAll(url.replace(/:[^:@/]*@/, ':***@'), 'STATE')
          .replaceAll(url, 'STATE')
          .replace(/"lastActivity": \d+/g, '"lastActivity": T');
      expect({ step, out: scrub(onStore.stdout) }).toEqual({ step, out: scrub(onFile.stdout) });
    }
    const list = JSON.parse((await cli(['state', 'list', '--store', url, '--json'])).stdout);
    expect(list.slots.map((s: { id: string }) => s.id)).toEqual(['s0', 's2']);
  });
});
