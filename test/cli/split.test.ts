import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, cli, inTempDir } from '../support/cli.js';

const GiB = 2 ** 30;

describe('gpualloc split', () => {
  it('auto-splits the TOML config as a table', async () => {
    const r = await cli(['split', '--config', 'test/fixtures/agents-auto.toml']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+DEVICE\s+COUNT\s+ASSIGNED\s+SHARE$/);
    expect(lines.find((l) => l.startsWith('agent-1') && / cuda /.test(l))).toMatch(/cuda0,cuda1,cuda2\s+37\.5%/);
    expect(lines.find((l) => l.startsWith('agent-3') && / cuda /.test(l))).toMatch(/cuda6,cuda7\s+25\.0%/);
    expect(lines.find((l) => l.startsWith('agent-1') && / cpu /.test(l))).toMatch(/0,1,2,3,4\s/);
    expect(lines.find((l) => l.startsWith('agent-2') && / mem /.test(l))).toMatch(/170 GiB/);
  });

  it('prints the manual split as JSON, with amounts in bytes', async () => {
    const r = await cli(['split', '--config', 'test/fixtures/agents-manual.toml', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.assignments.train.cuda).toEqual(['cuda0', 'cuda1']);
    expect(out.assignments.serve.cpu).toEqual(['2', '3']);
    expect(out.amounts).toEqual({ train: { mem: 48 * GiB }, serve: { mem: 16 * GiB } });
    expect(out.warnings).toEqual([{ code: 'UNASSIGNED_DEVICES', message: 'cuda: 1 device not given to any agent: cuda3' }]);
  });

  it('reports a bad manual config with exit code 2 and a JSON error', async () =>
    inTempDir('gpualloc-split-', async (dir) => {
      const file = join(dir, 'bad.toml');
      writeFileSync(
        file,
        `[resource]\nallocation-mode = "manual"\nmemory = "8GiB"\n[devices]\ncuda = ["cuda0", "cuda1"]\n[[agents]]\nid = "a"\n[agents.allocations]\ncuda = ["cuda0"]\n[[agents]]\nid = "b"\n[agents.allocations]\ncuda = ["cuda0"]\n`,
      );
      const r = await cli(['split', '--config', file, '--json']);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'DEVICE_ASSIGNED_TWICE', message: expect.stringContaining('"cuda0" is given to both agent "a" and agent "b"') } });
      expect(r.stderr).toMatch(/DEVICE_ASSIGNED_TWICE|given to both/);
    }));

  it('names the bad TOML field', async () =>
    inTempDir('gpualloc-split-', async (dir) => {
      const file = join(dir, 'mode.toml');
      writeFileSync(file, `[resource]\nallocation-mode = "greedy"\n[[agents]]\nid = "a"\n`);
      const r = await cli(['split', '--config', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/resource\.allocation-mode: expected one of shared, auto-split, manual, got "greedy"/);
    }));

  it('takes the host from a preset when the config has no devices', async () =>
    inTempDir('gpualloc-split-', async (dir) => {
      const file = join(dir, 'auto.toml');
      writeFileSync(file, `[resource]\nallocation-mode = "auto-split"\n[[agents]]\nid = "a"\n[[agents]]\nid = "b"\n`);
      const r = await cli(['split', '--config', file, '--preset', 'dgx-a100', '--json']);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.assignments.a.cuda).toHaveLength(4);
      expect(out.assignments.b.cuda).toHaveLength(4);
      expect(out.slots.a['cuda.device']).toBe(4);
    }));

  it('documents every option in --help', async () => {
    const r = await cli(['split', '--help']);
    expect(r.code).toBe(0);
    for (const option of ['--config', '--inventory', '--preset', '--backend', '--json', 'allocation-mode', 'reserved-mem']) expect(r.stdout).toContain(option);
  });

  it('runs as the installed bin', () => {
    const r = bin(['split', '--config', 'test/fixtures/agents-auto.toml', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).assignments['agent-2'].cuda).toEqual(['cuda3', 'cuda4', 'cuda5']);
  });
});
