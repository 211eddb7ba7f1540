// The device plugin YAML (replicas --config), inventories (--inventory) and state files (--state) are
// read strictly: an unknown key names itself, its line and column and the closest known key; syntax
// errors keep their line and column; exit 2, nothing written (issue 18, point 3).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { CLUSTER_STATE_KEYS as STATE_FILE_KEYS } from '../../src/cluster/state.js';
import { openEngine } from '../../src/engine.js';
import { jsonPosition } from '../../src/shared/file-positions.js';
import { findUnknownKey } from '../../src/shared/validate.js';

const G = 2 ** 30;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpualloc-strict-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: dir });
  return { code, out, err };
}

const INVENTORY = {
  version: 1,
  host: 'box',
  gpus: [
    { index: 0, memoryTotal: 80 * G },
    { index: 1, memoryTotal: 80 * G },
  ],
  links: [{ a: 0, b: 1, nvlink: 4 }],
};

describe('replicas --config (device plugin YAML)', () => {
  it('an unknown key: exit 2, FILE:LINE:COLUMN, the key and the closest key', async () => {
    await writeFile(join(dir, 'plugin.yaml'), 'version: v1\nflags:\n  plugin:\n    allocationPolicyy: spread\n');
    const r = await run(['replicas', '--preset', 'dgx-a100', '--size', '1', '--config', 'plugin.yaml']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('gpualloc: config file plugin.yaml:4:5: unknown key flags.plugin.allocationPolicyy (did you mean allocationPolicy?)');
  });

  it("the upstream keys are known, and the device plugin's spelling 'packed' is accepted there", async () => {
    await writeFile(
      join(dir, 'plugin.yaml'),
      'version: v1\nflags:\n  migStrategy: none\n  failOnInitError: true\n  plugin:\n    passDeviceSpecs: false\n    deviceListStrategy: envvar\n    deviceIDStrategy: uuid\n    allocationPolicy: packed\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n',
    );
    const r = await run(['replicas', '--preset', 'dgx-a100', '--size', '2', '--config', 'plugin.yaml', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ policy: 'pack', policySource: 'config' });
  });

  it('a YAML syntax error keeps its line and column', async () => {
    await writeFile(join(dir, 'plugin.yaml'), 'flags:\n  plugin:\n    allocationPolicy: [spread\n');
    const r = await run(['replicas', '--preset', 'dgx-a100', '--size', '1', '--config', 'plugin.yaml']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: config file plugin\.yaml:\d+:\d+: not valid YAML: /);
  });
});

describe('--inventory FILE', () => {
  it('an unknown key: exit 2, the key, its line and column, the closest key', async () => {
    await writeFile(join(dir, 'inv.json'), JSON.stringify({ ...INVENTORY, gpus: [{ index: 0, memoryTotl: 80 * G }] }, null, 2));
    const r = await run(['plan', '--inventory', 'inv.json', '--memory', '10GiB']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: --inventory inv\.json:7:7: gpus\[0\]\.memoryTotl: unknown field \(did you mean memoryTotal\? allowed: /);
  });

  it('seeding a new state file from a bad inventory writes nothing', async () => {
    await writeFile(join(dir, 'inv.json'), JSON.stringify({ ...INVENTORY, hots: 'box' }));
    const r = await run(['plan', '--inventory', 'inv.json', '--memory', '10GiB', '--state', 'new-state.json', '--commit']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--inventory inv\.json:1:\d+: hots: unknown field \(did you mean host\?/);
    // No state file and no temporary file (a lock file, which a flock-based lock keeps, is not state).
    expect((await readdir(dir)).filter((f) => f === 'new-state.json' || (f.startsWith('new-state.json.') && f.endsWith('.tmp')))).toEqual([]);
  });

  it('a JSON syntax error: line and column', async () => {
    await writeFile(join(dir, 'inv.json'), '{\n  "version": 1,\n  "gpus": [\n    { "index": 0 "memoryTotal": 1 }\n  ]\n}\n');
    const r = await run(['plan', '--inventory', 'inv.json', '--memory', '10GiB', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error).toEqual({ code: 'INVALID_INVENTORY', message: expect.stringMatching(/^--inventory inv\.json:4:18: not valid JSON: /) });
  });

  it('strict for every command that reads an inventory (replicas, aligned, topo as well as plan)', async () => {
    await writeFile(join(dir, 'inv.json'), JSON.stringify({ ...INVENTORY, linkz: [] }));
    for (const argv of [['replicas', '--size', '1'], ['aligned', '--size', '1'], ['topo']]) {
      const r = await run([...argv, '--inventory', 'inv.json']);
      expect(r.code, argv[0]).toBe(2);
      expect(r.err, argv[0]).toMatch(/--inventory inv\.json:1:\d+: linkz: unknown field \(did you mean links\?/);
    }
  });
});

describe('--state FILE', () => {
  it('an unknown key: exit 2, named with its line and column; --commit writes nothing', async () => {
    const state = { version: 1, nextSlot: 2, nodes: [{ id: 'box', gpus: [{ index: 0, memoryTotal: 80 * G }], slots: [{ id: 'slot-1', gpus: [0], memoryPerGpu: G, stail: true }] }] };
    const text = JSON.stringify(state, null, 2);
    await writeFile(join(dir, 'state.json'), text);
    const r = await run(['plan', '--memory', '10GiB', '--state', 'state.json', '--commit']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: --state state\.json:20:11: unknown key nodes\[0\]\.slots\[0\]\.stail \(did you mean stale\?\) \(the file was left untouched\)\n$/);
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(text);
    expect((await readdir(dir)).filter((f) => f.startsWith('state.json.') && f.endsWith('.tmp'))).toEqual([]);
  });

  it('a bad value in a state file names its line and column', async () => {
    const text = '{\n  "version": 1,\n  "nextSlot": 0,\n  "nodes": []\n}\n';
    await writeFile(join(dir, 'state.json'), text);
    const r = await run(['plan', '--memory', '10GiB', '--state', 'state.json', '--commit']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^gpualloc: --state state\.json:3:3: state\.nextSlot: expected an integer/);
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(text);
  });

  it('every field toJSON writes is a known key (a state with used memory, topology, models, stale slots)', async () => {
    const engine = await openEngine({ backend: 'ts' });
    const state = engine.createClusterState({
      nodes: [
        {
          id: 'box',
          gpus: [
            { index: 0, memoryTotal: 80 * G, memoryUsed: G },
            { index: 1, memoryTotal: 80 * G },
          ],
          topology: { gpus: 2, links: [{ a: 0, b: 1, pcie: 'PIX', nvlink: 2 }] },
          slots: [{ id: 's', model: 'm', gpus: [0, 1], memoryPerGpu: G, lastActivity: 5, stale: true }],
        },
      ],
    });
    const json = state.toJSON();
    expect(json.nodes[0].gpus[0].memoryUsed).toBe(G);
    expect(findUnknownKey(json, STATE_FILE_KEYS)).toBeUndefined();
  });
});

describe('jsonPosition', () => {
  it('finds keys and array items, with escapes and nesting before them', () => {
    const text = '{"a": "x\\"}", "b": [1, {"c": [true]}, {"d": 2}]}';
    expect(jsonPosition(text, ['b'])).toEqual({ line: 1, column: 15 });
    expect(jsonPosition(text, ['b', 2, 'd'])).toEqual({ line: 1, column: text.indexOf('"d"') + 1 });
    expect(jsonPosition(text, ['b', 2, 'zz'])).toEqual({ line: 1, column: text.indexOf('{"d"') + 1 });
  });
});
