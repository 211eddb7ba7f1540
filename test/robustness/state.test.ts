// ClusterState under random interleavings of plan / commit / release / markStale / restore (10^4
// operations per seed, several seeds, both backends in lockstep): no GPU is ever over-scheduled, no slot
// is lost or duplicated, toJSON → restore → toJSON is byte-identical; corrupted or truncated state text
// is INVALID_STATE; and `gpualloc plan --state FILE --commit` leaves a bad state file untouched.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../src/cluster/state.js';
import { Prng } from '../../src/fleet/prng.js';
import { cli, inTempDir } from '../support/cli.js';
import { depth } from '../support/depth.js';
import { codeOf, engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
// Operations a seed: 1,000 in npm test (four seeds), 10,000 in the deep suite.
const OPS = depth(1_000, 10_000);

const init = {
  nodes: [
    {
      id: 'a',
      gpus: [80, 80, 40, 40].map((t, index) => ({ index, memoryTotal: t * G })),
      topology: {
        gpus: 4,
        links: [
          { a: 0, b: 1, nvlink: 12 },
          { a: 2, b: 3, pcie: 'PIX' as const },
        ],
      },
    },
    { id: '__proto__', gpus: [24, 24].map((t, index) => ({ index, memoryTotal: t * G })) },
    {
      id: 'c',
      gpus: [
        { index: 3, memoryTotal: 48 * G },
        { index: 7, memoryTotal: 48 * G },
      ],
    },
  ],
};

/** Every GPU within its total; usage() equals the sum of its slots; slot IDs unique. */
function checkInvariant(state: ClusterState, live: Set<string>): void {
  const json = state.toJSON();
  const ids: string[] = [];
  const usage = new Map(state.usage().map((u) => [`${u.node}/${u.gpu}`, u.allocated]));
  for (const node of json.nodes) {
    for (const g of node.gpus) {
      let sum = 0;
      for (const s of node.slots) if (s.gpus.includes(g.index)) sum += s.memoryPerGpu;
      expect(sum, `GPU ${node.id}/${g.index} over-scheduled`).toBeLessThanOrEqual(g.memoryTotal);
      expect(usage.get(`${node.id}/${g.index}`)).toBe(sum);
    }
    for (const s of node.slots) ids.push(s.id);
  }
  expect(new Set(ids).size, 'a slot is duplicated').toBe(ids.length);
  expect(new Set(ids), 'a slot was lost or appeared').toEqual(live);
}

describe('ClusterState under random interleavings', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: ${OPS} operations, wasm and ts in lockstep, invariants hold after each`, () => {
      // The simulator's seeded PRNG (mulberry32): the seeds make every run reproducible.
      const prng = new Prng(seed);
      const random = () => prng.float();
      let sw = wasm.createClusterState(init);
      let st = ts.createClusterState(init);
      const live = new Set<string>();
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
      let commits = 0;
      let conflicts = 0;
      for (let op = 0; op < OPS; op++) {
        const r = random();
        if (r < 0.45) {
          const req = { memory: Math.ceil(random() * 90) * G, model: pick(['m1', 'm2', 'm3']), policy: pick(['spread', 'pack'] as const), limit: 3 };
          const pw = sw.plan(req);
          expect(pw).toEqual(st.plan(req));
          if (pw.options.length > 0) {
            const option = pick(pw.options);
            // Sometimes commit a stale option after another commit (a raced plan): CONFLICT or success, the same on both.
            const cw = codeOf(() => live.add(sw.commit(option)));
            const ct = codeOf(() => st.commit(option));
            expect(cw).toBe(ct);
            if (cw === undefined) commits++;
            else conflicts++;
            if (random() < 0.3) {
              const again = codeOf(() => live.add(sw.commit(option, {})));
              expect(again).toBe(codeOf(() => st.commit(option, {})));
            }
          }
        } else if (r < 0.7) {
          if (live.size === 0) continue;
          const id = pick([...live]);
          sw.release(id);
          st.release(id);
          live.delete(id);
          expect(codeOf(() => sw.release(id))).toBe('UNKNOWN_SLOT');
        } else if (r < 0.85) {
          if (live.size === 0) continue;
          const id = pick([...live]);
          const stale = random() < 0.7;
          sw.markStale(id, stale);
          st.markStale(id, stale);
        } else {
          // Restore from JSON text (wasm) and from the object (ts): byte-identical round trip.
          const text = JSON.stringify(sw.toJSON());
          sw = wasm.restoreClusterState(text);
          st = ts.restoreClusterState(JSON.parse(text));
          expect(JSON.stringify(sw.toJSON())).toBe(text);
          expect(JSON.stringify(st.toJSON())).toBe(text);
        }
        // Evictions remove slots: follow them from the state itself, then check nothing else changed.
        for (const id of [...live]) if (!sw.listSlots().some((s) => s.id === id)) live.delete(id);
        checkInvariant(sw, live);
        expect(JSON.stringify(sw.toJSON())).toBe(JSON.stringify(st.toJSON()));
      }
      expect(commits).toBeGreaterThan(100);
      expect(conflicts + commits).toBeGreaterThan(0);
    });
  }
});

describe('concurrent gpualloc plan --commit on one state file', () => {
  it('8 commits at once: each lands, none is lost, the file stays valid, only the (never deleted) lock file is left beside it', async () => {
    await inTempDir('gpualloc-race-', async (dir) => {
      const file = join(dir, 'state.json');
      const first = await cli(['plan', '--memory', '1GiB', '--preset', 'dgx-a100', '--state', file, '--commit', '--json']);
      expect(first.code).toBe(0);
      const runs = await Promise.all(Array.from({ length: 8 }, () => cli(['plan', '--memory', '1GiB', '--state', file, '--commit', '--json'])));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const ids = [first, ...runs].map((r) => JSON.parse(r.stdout).committed as string);
      expect(new Set(ids).size).toBe(9);
      const saved = ts.restoreClusterState(readFileSync(file, 'utf8'));
      expect(
        saved
          .listSlots()
          .map((s) => s.id)
          .sort(),
      ).toEqual([...ids].sort());
      expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.lock']);
    });
  });

  it('a lock file left by a process that is gone does not block a commit (flock is released by the kernel)', async () => {
    await inTempDir('gpualloc-lock-', async (dir) => {
      const file = join(dir, 'state.json');
      const stale = await cli(['plan', '--memory', '1GiB', '--preset', 'dgx-a100', '--state', file, '--commit', '--json']);
      expect(stale.code).toBe(0);
      const before = readFileSync(file, 'utf8');
      // A pid that no process has (above the kernel's pid_max): a stale lock.
      writeFileSync(`${file}.lock`, '99999999');
      const taken = await cli(['plan', '--memory', '1GiB', '--state', file, '--commit', '--json']);
      expect(taken.code, taken.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).not.toBe(before);
      expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.lock']);
    });
  });
});

describe('corrupted and truncated state', () => {
  const state = ts.createClusterState(init);
  state.commit(state.plan({ memory: 100 * G, model: 'm1' }).options[0]);
  state.commit(state.plan({ memory: 20 * G, model: 'm2' }).options[0]);
  const text = JSON.stringify(state.toJSON(), null, 2);

  it('every truncation of the state text is INVALID_STATE on both backends', () => {
    for (let cut = 0; cut < text.length; cut += 7) {
      for (const e of [wasm, ts])
        expect(
          codeOf(() => e.restoreClusterState(text.slice(0, cut))),
          `cut ${cut}`,
        ).toBe('INVALID_STATE');
    }
  });

  it('corruptions (over-scheduled GPU, duplicate slot, unknown GPU, bad version, flipped bytes) are INVALID_STATE or a faithful state', () => {
    const json = state.toJSON();
    const variants: unknown[] = [
      { ...json, version: 2 },
      { ...json, nextSlot: -1 },
      { ...json, nodes: [{ ...json.nodes[0], slots: [...json.nodes[0].slots, { id: 'x', gpus: [0], memoryPerGpu: 81 * G }] }, ...json.nodes.slice(1)] },
      { ...json, nodes: [{ ...json.nodes[0], slots: [...json.nodes[0].slots, json.nodes[0].slots[0]] }, ...json.nodes.slice(1)] },
      { ...json, nodes: [{ ...json.nodes[0], slots: [{ id: 'y', gpus: [9], memoryPerGpu: 1 }] }, ...json.nodes.slice(1)] },
      { ...json, nodes: [...json.nodes, json.nodes[0]] },
      { ...json, nodes: null },
      [],
      'null',
    ];
    for (const v of variants)
      for (const e of [wasm, ts])
        expect(
          codeOf(() => e.restoreClusterState(v)),
          JSON.stringify(v).slice(0, 200),
        ).toBe('INVALID_STATE');
    for (let k = 0; k < 200; k++) {
      const bytes = Buffer.from(text);
      bytes[(k * 7919) % bytes.length] ^= 1 << (k % 7);
      const flipped = bytes.toString('latin1');
      const code = codeOf(() => wasm.restoreClusterState(flipped));
      expect(code).toBe(codeOf(() => ts.restoreClusterState(flipped)));
      if (code !== undefined) expect(code).toBe('INVALID_STATE');
      else expect(wasm.restoreClusterState(flipped).toJSON()).toEqual(ts.restoreClusterState(flipped).toJSON());
    }
  });

  it('gpualloc plan --state FILE --commit: a corrupt or truncated file is rejected (exit 2) and left byte-identical', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      for (const bad of [text.slice(0, text.length >> 1), text.replace('"memoryPerGpu"', '"memoryPerGpu" x'), '', '{"version":1}']) {
        writeFileSync(file, bad);
        for (const json of [false, true]) {
          const r = await cli(['plan', '--memory', '10GiB', '--state', file, '--commit', ...(json ? ['--json'] : [])]);
          expect(r.code).toBe(2);
          expect(r.stderr).toMatch(/INVALID_STATE|state/i);
          expect(r.stderr).toMatch(/left untouched/);
          if (json) expect(JSON.parse(r.stdout).error.code).toBe('INVALID_STATE');
          else expect(r.stdout).toBe('');
          expect(readFileSync(file, 'utf8')).toBe(bad);
        }
      }
      // A good file: the commit lands through a temporary file and a rename, and no temporary file is left behind.
      writeFileSync(file, text);
      const ok = await cli(['plan', '--memory', '10GiB', '--state', file, '--commit', '--json']);
      expect(ok.code).toBe(0);
      const committed = JSON.parse(ok.stdout).committed as string;
      const after = ts.restoreClusterState(readFileSync(file, 'utf8'));
      expect(after.listSlots().map((s) => s.id)).toContain(committed);
      expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.lock']);
      // A state file that cannot be written (its folder does not exist): IO_ERROR, exit 2, nothing left behind.
      const nowhere = join(dir, 'no-such-folder', 'state.json');
      const failed = await cli(['plan', '--memory', '10GiB', '--preset', 'dgx-a100', '--state', nowhere, '--commit', '--json']);
      expect(failed.code).toBe(2);
      expect(JSON.parse(failed.stdout).error.code).toBe('IO_ERROR');
      expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.lock']);
    });
  });
});
