// The CLI's state command on a PostgreSQL store: `state init --store URL`, and --store URL wherever --state FILE is
// taken (plan --commit, state list|show|release|stale|gc), with the same output and exit codes as
// the file: the same commands against a state file and against the database print the same text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/hardware/presets.js';
import { cli } from '../support/cli.js';
import { freshSchema, noPg, pgUrl } from './pg-context.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-store-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The suite's URL with a schema of its own. */
function storeUrl(prefix: string): string {
  return `${pgUrl}&schema=${freshSchema(prefix)}`;
}

describe.skipIf(noPg)('gpualloc --store URL', () => {
  it('state init creates the schema and the node once; a second init is exit 2 unless --replace', async () => {
    const url = storeUrl('cli_init');
    const first = await cli(['state', 'init', '--store', url, '--preset', 'dgx-a100']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^initialised postgres:\/\/.*\(schema cli_init_\d+_\d+, version 5\)\n  node dgx-a100: 8 GPUs, 640 GiB\n$/);
    const again = await cli(['state', 'init', '--store', url, '--preset', 'dgx-a100', '--json']);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout).error.code).toBe('STORE_NOT_EMPTY');
    const replaced = await cli(['state', 'init', '--store', url, '--preset', 'dgx1-volta', '--replace', '--json']);
    expect(replaced.code).toBe(0);
    const volta = getPreset('dgx1-volta');
    expect(JSON.parse(replaced.stdout).nodes).toEqual([{ id: 'dgx1-volta', gpus: volta.gpus.length, memoryTotal: volta.gpus.reduce((t, g) => t + g.memoryTotal, 0), memoryUsed: 0 }]);
    expect((await cli(['state', 'init', '--store', url])).code).toBe(2); // no --preset / --inventory
  });

  it('plan --commit, state list/show/stale/release/gc print what they print for a state file', async () => {
    const url = storeUrl('cli_same');
    const file = join(dir, 'same.json');
    expect((await cli(['state', 'init', '--store', url, '--preset', 'dgx-a100'])).code).toBe(0);
    const steps: string[][] = [
      ['plan', '--preset', 'dgx-a100', '--memory', '140GiB', '--commit'],
      ['plan', '--preset', 'dgx-a100', '--memory', '60GiB', '--tp', '1', '--commit', '--json'],
      ['state', 'show', 'slot-1'],
      ['state', 'stale', 'slot-2'],
      ['plan', '--preset', 'dgx-a100', '--memory', '10TiB', '--commit'],
      ['state', 'release', 'slot-1', '--json'],
      ['state', 'release', 'slot-9'],
      ['state', 'gc', '--older-than', '1d'],
    ];
    for (const step of steps) {
      const onFile = await cli([...step, '--state', file]);
      const onStore = await cli([...step, '--store', url]);
      expect({ step, code: onStore.code }).toEqual({ step, code: onFile.code });
      const scrub = (t: string) =>
        t
          .replaceAll(file, 'STATE')
          .replaceAll(url, 'STATE')
          .replace(/"lastActivity": \d+/g, '"lastActivity": T')
          .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z \(\d+s ago\)/g, 'WHEN');
      if (step[0] === 'plan' || step[1] !== 'release' || step[2] !== 'slot-9') expect({ step, out: scrub(onStore.stdout) }).toEqual({ step, out: scrub(onFile.stdout) });
    }
    const list = await cli(['state', 'list', '--store', url, '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).slots.map((s: { id: string; stale: boolean }) => [s.id, s.stale])).toEqual([['slot-2', true]]);
  });

  it('rejects a non-PostgreSQL URL, and --state with --store, as usage errors', async () => {
    expect((await cli(['state', 'list', '--store', 'mysql://x/y'])).code).toBe(2);
    expect((await cli(['plan', '--memory', '1GiB', '--store', pgUrl, '--state', join(dir, 'x.json')])).code).toBe(2);
  });
});
