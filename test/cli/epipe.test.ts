// A reader that goes away early (`gpualloc plan … | head -1`): the CLI stops writing quietly and ends
// with its usual exit code, without the `Unhandled 'error' event … write EPIPE` stack trace.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/** Runs the built bin with stdout closed by the reader after its first chunk. */
function closedEarly(argv: string[]): Promise<{ code: number | null; stderr: string; read: string }> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let read = '';
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    child.stdout.once('data', (c: Buffer) => {
      read = c.toString();
      child.stdout.destroy(); // as `head -1` does once it has its line
    });
    child.on('error', failed);
    child.on('close', (code) => done({ code, stderr, read }));
  });
}

describe('a closed pipe on stdout', () => {
  it('plan with 10,000 options piped into a reader that stops at once: exit 0, no stack trace', { timeout: 60_000 }, async () => {
    const r = await closedEarly(['plan', '--preset', 'dgx2', '--memory', '8GiB', '--limit', '10000']);
    expect(r.read).toMatch(/^showing 10000 of/);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(r.code).toBe(0);
  });

  it('the same as one large JSON write: exit 0, no stack trace', { timeout: 60_000 }, async () => {
    const r = await closedEarly(['plan', '--preset', 'dgx2', '--memory', '8GiB', '--limit', '2000', '--json']);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(r.code).toBe(0);
  });
});
