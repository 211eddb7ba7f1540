// `gpualloc plan --store URL [--commit]`: the same output and exit codes as --state FILE (the same
// commands against a state file and against the database print the same text), exit 1 when nothing
// fits, and usage errors for a non-PostgreSQL URL or both --state and --store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFromInventory } from '../../src/cluster/node.js';
import { openEngine } from '../../src/engine.js';
import { getPreset } from '../../src/hardware/presets.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { cli } from '../support/cli.js';
import { freshSchema, noPg, pgUrl } from './pg-context.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-store-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new schema holding the dgx-a100 preset's node; returns its --store URL. */
async function seeded(prefix: string): Promise<string> {
  const schema = freshSchema(prefix);
  const engine = await openEngine({ backend: 'ts' });
  const store = await PostgresStore.open(pgUrl, { schema });
  await store.init(engine.createClusterState({ nodes: [nodeFromInventory(getPreset('dgx-a100'))] }));
  await store.close();
  return `${pgUrl}&schema=${schema}`;
}

describe.skipIf(noPg)('gpualloc plan --store URL', () => {
  it('plans and commits as --state FILE does: same text, same JSON, same exit codes', async () => {
    const url = await seeded('cli_plan');
    const file = join(dir, 'plan.json');
    const steps: string[][] = [
      ['plan', '--preset', 'dgx-a100', '--memory', '140GiB', '--commit'],
      ['plan', '--preset', 'dgx-a100', '--memory', '60GiB', '--tp', '1', '--commit', '--json'],
      ['plan', '--memory', '300GiB'],
      ['plan', '--memory', '10TiB', '--commit'],
      ['plan', '--memory', '10TiB', '--commit', '--json'],
    ];
    for (const step of steps) {
      const onFile = await cli([...step, '--state', file]);
      const onStore = await cli([...step, '--store', url]);
      expect({ step, code: onStore.code, out: onStore.stdout }).toEqual({ step, code: onFile.code, out: onFile.stdout });
    }
    expect((await cli(['plan', '--memory', '10TiB', '--commit', '--store', url])).code).toBe(1);
    const committed = JSON.parse((await cli(['plan', '--memory', '1GiB', '--commit', '--json', '--store', url])).stdout).committed;
    expect(committed).toBe('slot-3');
    const store = await PostgresStore.open(pgUrl, { schema: new URL(url).searchParams.get('schema')! });
    try {
      const slots = (await store.load()).state.nodes[0].slots;
      expect(slots.map((s) => s.id)).toEqual(['slot-1', 'slot-2', 'slot-3']);
      expect(slots[2].lastActivity).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      await store.close();
    }
  });

  it('a non-PostgreSQL URL, or --state with --store, is a usage error (exit 2)', async () => {
    const bad = await cli(['plan', '--memory', '1GiB', '--store', 'mysql://x/y', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.message).toContain('postgres://');
    expect((await cli(['plan', '--memory', '1GiB', '--store', pgUrl, '--state', join(dir, 'x.json')])).code).toBe(2);
    const empty = await cli(['plan', '--memory', '1GiB', '--store', `${pgUrl}&schema=${freshSchema('cli_empty')}`]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('state init');
  });

  it('a commit that evicts names the evicted slots, as with --state FILE', async () => {
    const url = await seeded('cli_evict');
    const file = join(dir, 'evict.json');
    // The same stale slot in both homes: a whole-node model of another name.
    for (const home of [
      ['--state', file],
      ['--store', url],
    ]) {
      const made = JSON.parse((await cli(['plan', '--preset', 'dgx-a100', '--memory', '600GiB', '--tp', '8', '--model', 'old', '--commit', '--json', ...home])).stdout);
      expect((await cli(['state', 'stale', made.committed, ...home])).code).toBe(0);
    }
    const onFile = await cli(['plan', '--memory', '600GiB', '--tp', '8', '--model', 'new', '--commit', '--state', file]);
    const onStore = await cli(['plan', '--memory', '600GiB', '--tp', '8', '--model', 'new', '--commit', '--store', url]);
    expect(onStore.stdout).toBe(onFile.stdout);
    expect(onStore.stdout).toContain('evicted slot slot-1 (model old, 75 GiB on each of GPUs 0,1,2,3,4,5,6,7 of dgx-a100)\n');
    const json = JSON.parse((await cli(['plan', '--memory', '600GiB', '--tp', '8', '--model', 'newer', '--commit', '--json', '--store', url])).stdout);
    expect(json).toMatchObject({ options: [] });
  });
});
