// The engine runs under a strict Content-Security-Policy (no 'unsafe-eval'): no source file builds
// code from strings at run time.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('source', () => {
  it('has no new Function, eval or string timers in src/', () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const found = files(root).filter((f) => /\bnew Function\s*\(|\beval\s*\(|setTimeout\s*\(\s*['"`]/.test(readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });
});
