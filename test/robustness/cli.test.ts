// The CLI's contract under bad input: exit codes 0/1/2/3 as `gpualloc --help` documents them, messages
// on stderr, results on stdout, and with --json a JSON document on stdout even on error
// ({"error": {"code", "message"}}), for every subcommand.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, mainHelp } from '../../src/cli/main.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-cli-'));
const badJson = join(dir, 'bad.json');
writeFileSync(badJson, '{"version": 1, "gpus": [{"index": 0, "memoryTotal": -1}]');
const badInventory = join(dir, 'inv.json');
writeFileSync(badInventory, JSON.stringify({ version: 1, gpus: [{ index: 0, memoryTotal: -1 }], links: [] }));
const notGguf = join(dir, 'model.gguf');
writeFileSync(notGguf, 'not a gguf file at all, just text');
const badToml = join(dir, 'agents.toml');
writeFileSync(badToml, '[resource\nallocation-mode = ');
const missing = join(dir, 'missing.json');
const noNvml = join(dir, 'libnvidia-ml-missing.so');

/** Asserts the --json error contract and returns the error object. */
function jsonError(r: { code: number; stdout: string; stderr: string }, exit: number, context: string): { code: string; message: string } {
  expect(r.code, `${context}: exit code (stderr: ${r.stderr})`).toBe(exit);
  let doc: { error?: { code: unknown; message: unknown } };
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    expect.fail(`${context}: stdout is not JSON: ${JSON.stringify(r.stdout.slice(0, 300))}`);
  }
  expect(Object.keys(doc), context).toEqual(['error']);
  expect(typeof doc.error!.code, context).toBe('string');
  expect(typeof doc.error!.message, context).toBe('string');
  expect((doc.error!.message as string).length, context).toBeGreaterThan(0);
  expect(r.stderr, `${context}: the message also goes to stderr`).toContain(doc.error!.message as string);
  return doc.error as { code: string; message: string };
}

describe('exit codes are documented', () => {
  it('gpualloc --help lists 0, 1, 2, 3 and the --json error shape', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(mainHelp());
    for (const line of ['0  success', '1  infeasible request', '2  usage or input error', '3  hardware / NVML error']) expect(r.stdout).toContain(line);
    expect(r.stdout).toContain('{"error": {"code": "...", "message": "..."}}');
  });

  it('no command: help on stderr, exit 2; unknown command: exit 2, JSON with --json', async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Exit codes');
    expect(jsonError(await cli(['frobnicate', '--json']), 2, 'unknown command').code).toBe('USAGE');
  });
});

describe('every subcommand: an unknown option with --json is a JSON error, exit 2', () => {
  for (const c of COMMANDS) {
    it(c.name, async () => {
      const e = jsonError(await cli([c.name, '--no-such-option', '--json']), 2, c.name);
      expect(e.code).toBe('USAGE');
      expect(e.message).toMatch(/no-such-option/);
    });
  }
});

describe('input errors of each subcommand with --json (exit 2) and without (message on stderr, nothing on stdout)', () => {
  const cases: Array<[string, string[], number, RegExp]> = [
    ['demo: inventory file missing (demo has no --json option: with it, a USAGE error in JSON)', ['demo', '--inventory', missing], 2, /INVALID_INVENTORY|USAGE/],
    ['demo: unknown preset', ['demo', '--preset', 'dgx-9000'], 2, /UNKNOWN_PRESET|USAGE/],
    ['split: no --config', ['split'], 2, /USAGE/],
    ['split: malformed TOML', ['split', '--config', badToml, '--preset', 'dgx-a100'], 2, /INVALID_CONFIG/],
    ['replicas: size is not a number', ['replicas', '--preset', 'dgx-a100', '--size', 'NaN'], 2, /USAGE|INVALID_ARGUMENT/],
    ['replicas: unknown policy', ['replicas', '--preset', 'dgx-a100', '--size', '1', '--policy', 'chaos'], 2, /UNKNOWN_POLICY|INVALID_CONFIG/],
    ['replicas: inventory not JSON', ['replicas', '--inventory', badJson, '--size', '1'], 2, /INVALID_INVENTORY/],
    ['aligned: inventory fails the schema', ['aligned', '--inventory', badInventory, '--size', '2'], 2, /INVALID_INVENTORY/],
    ['aligned: size missing', ['aligned', '--preset', 'dgx-a100'], 2, /USAGE/],
    ['plan: bad memory', ['plan', '--memory', '5 parsecs', '--preset', 'dgx-a100'], 2, /INVALID_ARGUMENT/],
    ['plan: --commit without --state', ['plan', '--memory', '1GiB', '--commit'], 2, /USAGE/],
    ['plan: --tp garbage', ['plan', '--memory', '1GiB', '--preset', 'dgx-a100', '--tp', '1,x'], 2, /USAGE/],
    ['estimate: not a GGUF file', ['estimate', notGguf], 2, /INVALID_GGUF/],
    ['estimate: no file', ['estimate'], 2, /USAGE/],
    ['estimate: file missing', ['estimate', missing], 2, /INVALID_GGUF|IO_ERROR|INVALID_ARGUMENT/],
    ['presets: unknown preset', ['presets', 'dgx-9000'], 2, /UNKNOWN_PRESET|USAGE/],
    ['topo: unknown preset', ['topo', '--preset', 'dgx-9000'], 2, /UNKNOWN_PRESET/],
  ];
  for (const [name, argv, exit, code] of cases) {
    it(name, async () => {
      const e = jsonError(await cli([...argv, '--json']), exit, name);
      expect(e.code).toMatch(code);
      const text = await cli(argv);
      expect(text.code, name).toBe(exit);
      expect(text.stdout, `${name}: nothing on stdout on error`).toBe('');
      expect(text.stderr).toMatch(/^gpualloc: /m);
    });
  }
});

describe('infeasible (exit 1) and hardware (exit 3) outcomes', () => {
  it('plan: nothing fits is exit 1, and --json stdout is the plan (valid JSON with a reason)', async () => {
    const r = await cli(['plan', '--memory', '100TiB', '--preset', 'dgx-a100', '--json']);
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout);
    expect(plan.options).toEqual([]);
    expect(plan.reason.code).toBe('NO_VIABLE_OPTION');
  });

  it('replicas: more than exist is exit 1 with valid JSON', async () => {
    const r = await cli(['replicas', '--preset', 'dgx-a100', '--size', '1000', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).reason.code).toBe('INSUFFICIENT_DEVICES');
  });

  it('discover: no NVML library is exit 3, JSON with --json', async () => {
    const e = jsonError(await cli(['discover', '--library', noNvml, '--refresh', '--json']), 3, 'discover');
    expect(e.code).toMatch(/^NVML_/);
  });

  it('the built bin exits with the same codes and writes JSON errors (child process)', async () => {
    // dist/ is built before the suites when older than its sources (test/support/global-setup.ts).
    const { bin } = await import('../support/cli.js');
    const r = bin(['plan', '--memory', 'lots', '--preset', 'dgx-a100', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('INVALID_ARGUMENT');
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
