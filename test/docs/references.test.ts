// The README, CONTRIBUTING, CHANGELOG, bench/README, docs/ and the doc comments of the shipped code point
// only at files that exist in the repository: no DESIGN.md outside the repo, no moved file. Markdown
// links (relative ones, with their #anchors) lead to files and headings that exist. README.md and
// docs/ hold no development log: no issue numbers, no commit hashes (CHANGELOG.md keeps those).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
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

const DOCS = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md', ...filesUnder('docs', /\.md$/)];
/** The documents that describe the current state only (no development log). */
const REFERENCE = ['README.md', ...filesUnder('docs', /\.md$/)];
const CODE = ['src', 'bindings', 'bench', 'assembly', 'web'].flatMap((d) => filesUnder(d, /\.(ts|mjs|html)$/));
// Documents other branches are writing now, linked already: a link to one passes while it is missing
// and is checked like any other once it exists. Drop an entry when its document has landed.
const PENDING = new Set(['docs/api/dra.md']);
// Build outputs named on purpose (they exist after a build, and .gitignore lists them).
const BUILT = /^(dist|build|web\/dist)(\/|$)/;
const PATH = /(?<![\w./-])((?:src|test|bench|docs|assembly|bindings|web|schema|data)\/[\w./-]*\w)(\*|-\*)?/g;

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
    } else if (!existsSync(join(ROOT, path)) && !PENDING.has(path)) missing.push(path);
  }
  return missing;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text's headings (outside code blocks). */
function anchorsIn(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (h !== null) anchors.add(anchorOf(h[1]));
  }
  return anchors;
}

/** Relative markdown links of `doc` (at `file`) whose target file or #anchor does not exist. */
function brokenLinks(file: string, text: string): string[] {
  const broken: string[] = [];
  const outsideCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z]+:/i.test(link)) continue; // https:, mailto:
    const [target, anchor] = link.split('#');
    const path = target === '' ? file : normalize(join(dirname(file), target));
    if (!existsSync(join(ROOT, path))) {
      if (!PENDING.has(path)) broken.push(link);
      continue;
    }
    if (anchor !== undefined && path.endsWith('.md') && !anchorsIn(readFileSync(join(ROOT, path), 'utf8')).has(anchor)) broken.push(link);
  }
  return broken;
}

/** Development-log words in a text: issue numbers and commit hashes (a run of hex digits with both kinds, not part of a UUID). */
function developmentLog(text: string): string[] {
  const found = [...text.matchAll(/\b(?:issues?|PR|pull request)\s+#?\d+\b|(?<!\w)#\d{1,4}\b/gi)].map((m) => m[0]);
  for (const m of text.matchAll(/(?<![\w-])[0-9a-f]{7,40}(?![\w-])/g)) if (/[a-f]/.test(m[0]) && /[0-9]/.test(m[0])) found.push(m[0]);
  return found;
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

  for (const doc of DOCS.filter((d) => d.endsWith('.md'))) {
    it(`${doc}: every relative link leads to a file (and heading) that exists`, () => {
      expect(brokenLinks(doc, readFileSync(join(ROOT, doc), 'utf8'))).toEqual([]);
    });
  }

  for (const doc of REFERENCE) {
    it(`${doc}: no development log (issue numbers, commit hashes)`, () => {
      expect(developmentLog(readFileSync(join(ROOT, doc), 'utf8'))).toEqual([]);
    });
  }

  it('the link and log checkers flag what they should', () => {
    expect(brokenLinks('docs/api/x.md', '[a](../cli.md#conventions) [b](../nope.md) [c](split.md#no-such-heading) [d](https://x.org/y) `[e](nope.md)`')).toEqual([
      '../nope.md',
      'split.md#no-such-heading',
    ]);
    expect(anchorOf("The paper's table, reproduced")).toBe('the-papers-table-reproduced');
    expect(anchorOf('`gpualloc state` and the state file')).toBe('gpualloc-state-and-the-state-file');
    expect(developmentLog('fixed in issue 19 at commit 5c6faa3 (see #12); GPU-603e2bc8-d132-998c and 2026, ffffffff, 12345678')).toEqual(['issue 19', '#12', '5c6faa3']);
  });

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
