// The CLI's last line of defence: an exception nothing caught or a rejection nothing awaited (a
// driver's stray 'error' event, a bug) ends the real `gpualloc` process with `gpualloc: internal
// error: …` and exit 3 (INTERNAL), never Node's bare stack trace and exit 1, which means "infeasible".
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

const PRELOAD = join(ROOT, 'test', 'fixtures', 'cli-late-fault.mjs');

function cliWithFault(kind: 'throw' | 'reject', argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, join(ROOT, 'dist', 'src', 'cli', 'main.js'), ...argv], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GPUALLOC_TEST_FAULT: kind },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    child.on('error', failed);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('a fault nothing caught, in the gpualloc process', () => {
  it('an uncaught exception: "gpualloc: internal error: …", exit 3, no stack trace', { timeout: 60_000 }, async () => {
    const r = await cliWithFault('throw', ['presets']);
    expect(r.stderr).toContain('gpualloc: internal error: an error event nobody listened to\n');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(3);
  });

  it('an unhandled rejection, with --json: the INTERNAL error object on stdout, exit 3', { timeout: 60_000 }, async () => {
    const r = await cliWithFault('reject', ['presets', '--json']);
    expect(r.stderr).toContain('gpualloc: internal error: a promise rejected with nobody awaiting it\n');
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string } };
    expect(last.error).toEqual({ code: 'INTERNAL', message: 'internal error: a promise rejected with nobody awaiting it' });
    expect(r.code).toBe(3);
  });
});
