// Runs the CLI in-process (fresh sources) or as a child process (the built bin, as a user would).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/** Runs `gpualloc ...argv` in-process (with `stdin` as standard input when given); returns exit code, stdout and stderr. */
export async function cli(argv: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    env: { ...process.env, ...env },
    cwd: ROOT,
    ...(stdin !== undefined ? { stdin: async () => stdin } : {}),
  });
  return { code, stdout, stderr };
}

/** Runs the built bin (dist/src/cli/main.js) in a child process. */
export function bin(argv: string[], env: Record<string, string | undefined> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), ...argv], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `fn` in a fresh temporary folder (named from `prefix`), removed afterwards whatever happens. */
export async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
