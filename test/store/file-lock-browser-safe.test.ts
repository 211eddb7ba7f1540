// src/store/file-lock.ts is Node-only but must never break the browser build: it imports node:fs and
// koffi lazily (inside its functions, never at the top level). That the package entry (src/index.ts),
// which the page imports, never reaches it is test/store/browser-safe.test.ts's check.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/** The specifiers of a module's static imports (`import ... from 'x'`), type-only imports excluded. */
function staticImports(source: string): string[] {
  return [...source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)';/gm)].map((m) => m[1]);
}

describe('file-lock stays out of the browser', () => {
  it('imports no Node-only module at the top level', () => {
    const imports = staticImports(readFileSync(join(ROOT, 'src', 'store', 'file-lock.ts'), 'utf8'));
    expect(imports).toEqual(['../shared/errors.js', '../shared/optional.js', './abort.js']);
  });
});
