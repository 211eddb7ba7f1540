// A commit that evicts says what it evicted: each evicted slot (ID, model, GPUs, memory) on a line of
// its own after `committed option …`, and as `evicted` in --json (empty when it evicted nothing).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;

/** Two 80 GiB GPUs, each taken by a stale slot of another model. */
function staleState(): string {
  const state = ts.createClusterState({ nodes: [{ id: 'box', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })) }] });
  state.commit({ node: 'box', gpus: [0, 1], memoryPerGpu: 40 * G, model: 'old-70b', evict: [], score: 0 }, { id: 'old' });
  state.commit({ node: 'box', gpus: [1], memoryPerGpu: 30 * G, evict: [], score: 0 }, { id: 'anon' });
  state.markStale('old', true);
  state.markStale('anon', true);
  return JSON.stringify(state.toJSON(), null, 2);
}

describe('plan --commit names what it evicted', () => {
  it('text: one line per evicted slot after the committed line', async () => {
    await inTempDir('gpualloc-evicted-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, staleState());
      const r = await cli(['plan', '--memory', '120GiB', '--model', 'new', '--state', file, '--commit']);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      const at = lines.findIndex((l) => l.startsWith('committed option 1 as slot '));
      // In the order the option evicts them (its EVICT column).
      expect(lines.slice(at + 1)).toEqual(['evicted slot anon (no model, 30 GiB on GPU 1 of box)', 'evicted slot old (model old-70b, 40 GiB on each of GPUs 0,1 of box)']);
      expect(lines).toContainEqual(expect.stringMatching(/^1\s+0,1\s+60 GiB\s+anon,old\s/));
    });
  });

  it('--json: evicted lists each slot; a commit that evicts nothing says evicted: []', async () => {
    await inTempDir('gpualloc-evicted-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, staleState());
      const r = await cli(['plan', '--memory', '120GiB', '--model', 'new', '--state', file, '--commit', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const json = JSON.parse(r.stdout) as { committed: string; evicted: unknown[]; options: Array<{ evict: string[] }> };
      expect(json.options[0].evict).toEqual(['anon', 'old']);
      expect(json.evicted).toEqual([
        { id: 'anon', node: 'box', model: null, gpus: [1], memoryPerGpu: 30 * G },
        { id: 'old', node: 'box', model: 'old-70b', gpus: [0, 1], memoryPerGpu: 40 * G },
      ]);
      const none = JSON.parse((await cli(['plan', '--memory', '1GiB', '--state', file, '--commit', '--json'])).stdout) as { committed: string; evicted: unknown[] };
      expect(none.committed).toMatch(/^slot-/);
      expect(none.evicted).toEqual([]);
      // Without --commit nothing was evicted, and nothing is said about it.
      expect(JSON.parse((await cli(['plan', '--memory', '1GiB', '--state', file, '--json'])).stdout)).not.toHaveProperty('evicted');
    });
  });
});
