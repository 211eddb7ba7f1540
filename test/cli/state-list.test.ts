// `gpualloc state list` and `state show SLOT`: every slot with node, GPUs, memory per GPU, model, age
// and stale flag, as a table or as the JSON the issue fixes; `plan --commit --json` names the new slot
// as `committed` and `state list` finds it; an unknown slot ID is exit 2 naming the ID.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;
const HOUR = 3_600_000;

/** A two-node state: three slots with known ages, one stale, one without model or activity. */
function sampleState(now: number): string {
  const state = ts.createClusterState({
    nodes: [
      { id: 'box-a', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })) },
      { id: 'box-b', gpus: [0, 1, 2, 3].map((index) => ({ index, memoryTotal: 40 * G })) },
    ],
  });
  state.commit({ node: 'box-a', gpus: [0, 1], memoryPerGpu: 35 * G, model: 'llama-70b', evict: [], score: 0 }, { id: 'chat', lastActivity: now - 3 * HOUR });
  state.commit({ node: 'box-b', gpus: [2], memoryPerGpu: 10 * G, model: 'embed', evict: [], score: 0 }, { id: 'emb', lastActivity: now - 90_000 });
  state.commit({ node: 'box-b', gpus: [0], memoryPerGpu: 1 * G, evict: [], score: 0 }, { id: 'manual' });
  state.markStale('emb');
  return JSON.stringify(state.toJSON(), null, 2);
}

describe('gpualloc state list / show', () => {
  it('--json is { slots: [ { id, node, gpus, memoryPerGpu, model, lastActivity, stale } ] } in node order', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      const now = Date.now();
      writeFileSync(file, sampleState(now));
      const r = await cli(['state', 'list', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toStrictEqual({
        slots: [
          { id: 'chat', node: 'box-a', gpus: [0, 1], memoryPerGpu: 35 * G, model: 'llama-70b', lastActivity: now - 3 * HOUR, stale: false },
          { id: 'emb', node: 'box-b', gpus: [2], memoryPerGpu: 10 * G, model: 'embed', lastActivity: now - 90_000, stale: true },
          { id: 'manual', node: 'box-b', gpus: [0], memoryPerGpu: 1 * G, model: null, lastActivity: null, stale: false },
        ],
      });
    });
  });

  it('the table shows ages and the stale flag; show prints one slot; an empty state says so', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, sampleState(Date.now()));
      const r = await cli(['state', 'list', '--state', file]);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(`3 slots in ${file}:`);
      expect(lines[1].split(/\s+/)).toEqual(['ID', 'NODE', 'GPUS', 'MEMORY/GPU', 'MODEL', 'IDLE', 'STALE']);
      expect(lines[3].split(/\s{2,}/)).toEqual(['chat', 'box-a', '0,1', '35 GiB', 'llama-70b', '3h', '-']);
      expect(lines[4].split(/\s{2,}/)).toEqual(['emb', 'box-b', '2', '10 GiB', 'embed', '1m', 'yes']);
      expect(lines[5].split(/\s{2,}/)).toEqual(['manual', 'box-b', '0', '1 GiB', '-', '?', '-']);
      const show = await cli(['state', 'show', 'chat', '--state', file]);
      expect(show.stdout).toMatch(/^slot chat\n  node +box-a\n  gpus +0,1\n  memory\/gpu +35 GiB \(70 GiB in all\)\n  model +llama-70b\n  last activity +\S+Z \(3h ago\)\n  stale +no\n$/);
      const showJson = JSON.parse((await cli(['state', 'show', 'emb', '--state', file, '--json'])).stdout);
      expect(showJson.slot).toMatchObject({ id: 'emb', node: 'box-b', stale: true });
      writeFileSync(file, JSON.stringify(ts.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: G }] }] }).toJSON()));
      expect((await cli(['state', 'list', '--state', file])).stdout).toBe(`no slots in ${file}\n`);
      expect(JSON.parse((await cli(['state', 'list', '--state', file, '--json'])).stdout)).toStrictEqual({ slots: [] });
    });
  });

  it('plan --commit --json names the new slot as committed, and state list shows it with its model and a fresh lastActivity', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      const before = Date.now();
      const r = await cli(['plan', '--memory', '100GiB', '--model', 'qwen', '--preset', 'dgx-a100', '--state', file, '--commit', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const { committed, options } = JSON.parse(r.stdout);
      expect(typeof committed).toBe('string');
      const listed = JSON.parse((await cli(['state', 'list', '--state', file, '--json'])).stdout).slots;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ id: committed, node: options[0].node, gpus: options[0].gpus, memoryPerGpu: options[0].memoryPerGpu, model: 'qwen', stale: false });
      expect(listed[0].lastActivity).toBeGreaterThanOrEqual(before);
      expect(listed[0].lastActivity).toBeLessThanOrEqual(Date.now());
    });
  });

  it('an unknown slot ID is exit 2 naming the ID (text and --json); a missing file or action is exit 2', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, sampleState(Date.now()));
      const text = readFileSync(file, 'utf8');
      for (const action of ['show', 'release', 'stale']) {
        const r = await cli(['state', action, 'no-such-slot', '--state', file]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/slot "no-such-slot" is not in .*state\.json \(its slots: chat, emb, manual\)/);
        const j = await cli(['state', action, 'no-such-slot', '--state', file, '--json']);
        expect(j.code).toBe(2);
        expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'UNKNOWN_SLOT' });
        expect(JSON.parse(j.stdout).error.message).toContain('"no-such-slot"');
      }
      expect(readFileSync(file, 'utf8')).toBe(text);
      const missing = await cli(['state', 'release', 'chat', '--state', join(dir, 'nope.json')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/nope\.json: no such file/);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect((await cli(['state', 'list'])).stderr).toMatch(/--state FILE is required/);
      expect((await cli(['state', 'drop', '--state', file])).stderr).toMatch(/unknown action "drop"/);
      expect((await cli(['state', 'show', '--state', file])).stderr).toMatch(/expected a slot ID/);
      for (const r of [await cli(['state', 'list']), await cli(['state', 'drop', '--state', file]), await cli(['state', 'show', '--state', file])]) expect(r.code).toBe(2);
    });
  });
});
