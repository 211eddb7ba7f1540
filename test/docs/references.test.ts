// The README, CONTRIBUTING, bench/README, docs/ and the doc comments of the shipped code point only at
// files that exist in the repository (issue 18, point 10): no DESIGN.md outside the repo, no moved file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/** Files under `dir` (relative to the root) whose names match `pattern`, recursively. */
function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  if (!existsSync(join(ROOT, dir))) return out;
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...filesUnder(path, pattern));
    else if (pattern.test(entry.name)) out.push(path);
  }
  return out;
}

const DOCS = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...filesUnder('docs', /\.md$/)];
const CODE = ['src', 'bindings', 'bench', 'assembly', 'web'].flatMap((d) => filesUnder(d, /\.(ts|mjs|html)$/));
// Build outputs named on purpose (they exist after a build, and .gitignore lists them).
const BUILT = /^(dist|build|web\/dist)(\/|$)/;
const PATH = /(?<![\w./-])((?:src|test|bench|docs|assembly|bindings|web|schema)\/[\w./-]*\w)(\*|-\*)?/g;

/** Repository paths a text names that do not exist (a path followed by `*` is a pattern: its prefix must match a file). */
function missingPaths(text: string): string[] {
  const missing: string[] = [];
  for (const m of text.matchAll(PATH)) {
    const path = m[1];
    if (BUILT.test(path)) continue;
    if (m[2] !== undefined) {
      const slash = path.lastIndexOf('/');
      const dir = path.slice(0, slash);
      const prefix = path.slice(slash + 1);
      if (!existsSync(join(ROOT, dir)) || !readdirSync(join(ROOT, dir)).some((name) => name.startsWith(prefix))) missing.push(`${path}*`);
    } else if (!existsSync(join(ROOT, path))) missing.push(path);
  }
  return missing;
}

/** The comments of a source file (// lines and block comments). */
function commentsOf(text: string): string {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|<!--[\s\S]*?-->/g)].map((m) => m[0]).join('\n');
}

describe('documentation points at files that exist', () => {
  it('finds the documents and the code it checks', () => {
    expect(DOCS).toContain('README.md');
    expect(CODE).toContain('src/index.ts');
  });

  for (const doc of DOCS) {
    it(`${doc}: every repository path it names exists`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      expect(missingPaths(text)).toEqual([]);
      expect(text.match(/[\w./]*DESIGN\.md/g) ?? []).toEqual([]);
    });
  }

  it('doc comments of the code name only files that exist, and never DESIGN.md (not in the repository)', () => {
    const bad: string[] = [];
    for (const file of CODE) {
      const comments = commentsOf(readFileSync(join(ROOT, file), 'utf8'));
      for (const path of missingPaths(comments)) bad.push(`${file}: ${path}`);
      if (/DESIGN\.md/.test(comments)) bad.push(`${file}: DESIGN.md`);
    }
    expect(bad).toEqual([]);
  });

  it('the checker itself flags a missing path and accepts an existing one and a pattern', () => {
    expect(missingPaths('see `src/no-such-module.ts` and `src/shared/units.ts`')).toEqual(['src/no-such-module.ts']);
    expect(missingPaths('the suites `test/robustness-*.test.ts`')).toEqual([]);
    expect(missingPaths('the suites `test/nothing-like-this-*.test.ts`')).toEqual(['test/nothing-like-this*']);
  });
});
