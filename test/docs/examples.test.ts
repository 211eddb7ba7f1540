// Every `$ gpualloc …` example of README.md and docs/ is run against the built CLI and must print what
// the document shows, so a change of output fails here until the documents follow (the rules are in
// test/support/doc-examples.ts and docs/cli.md). Blocks marked as needing PostgreSQL run in the
// PostgreSQL suite (test/pg/docs-examples.test.ts), slow ones in the research suite
// (test/research/docs-examples.test.ts). `npm test` runs the README's examples; the deep suite
// (`npm run test:deep`, run by CI) runs every document's. With GPUALLOC_DOCS_UPDATE=1 the outputs that
// differ and use no marker are rewritten in place from what the commands printed (read the diff
// before committing it).
import { afterAll, describe, expect, it } from 'vitest';
import { DEEP } from '../support/depth.js';
import { checkExamples, docRunner, outputMatches, parseDocs, parseExamples, runByUnitSuite } from '../support/doc-examples.js';

const PARSED = parseDocs();
const runner = docRunner();
afterAll(() => runner.close());

describe('the documentation examples', () => {
  it('finds the examples, in the documents it checks, and no malformed ones', () => {
    expect(PARSED.map((p) => p.file)).toContain('README.md');
    expect(PARSED.filter((p) => p.file.startsWith('docs/api/')).length).toBeGreaterThanOrEqual(9);
    const all = PARSED.flatMap((p) => p.examples);
    expect(all.filter(runByUnitSuite).length).toBeGreaterThan(60);
    expect(PARSED.flatMap((p) => p.errors)).toEqual([]);
  });

  it('has every CLI line of a code block written as a `$ gpualloc …` example (so it runs)', () => {
    expect(PARSED.flatMap((p) => p.promptless).map((p) => `${p.file}:${p.line}: ${p.text}`)).toEqual([]);
  });

  it('lists the examples that are not run here, each with its reason', () => {
    const all = PARSED.flatMap((p) => p.examples);
    const skipped = all.filter((e) => e.skip !== undefined);
    for (const e of skipped) expect(e.skip, `${e.file}:${e.line}`).toMatch(/\w{3,}/);
    // Few on purpose: an example that cannot run needs a reason a reader accepts.
    expect(skipped.length).toBeLessThanOrEqual(3);
    const elsewhere = all.filter((e) => e.postgres !== undefined || e.research !== undefined);
    const lines = [
      ...skipped.map((e) => `  ${e.file}:${e.line}: $ ${e.command} (not run: ${e.skip})`),
      ...elsewhere.map((e) => `  ${e.file}:${e.line}: $ ${e.command} (run by npm run test:${e.postgres !== undefined ? 'pg' : 'research'})`),
    ];
    if (lines.length > 0) console.log(`doc examples not run by npm test:\n${lines.join('\n')}`);
  });

  for (const { file, examples } of PARSED.filter((p) => DEEP || p.file === 'README.md')) {
    const runnable = examples.filter(runByUnitSuite);
    if (runnable.length === 0) continue;
    it.concurrent(`${file}: ${runnable.length} examples print what the document shows`, async ({ expect: check }) => {
      await checkExamples(runner, file, runnable, (actual, label, expected) => check.soft(actual, label).toBe(expected));
    });
  }
});

describe('the example checker itself', () => {
  const doc = [
    'intro',
    '<!-- doc-test: skip: needs a PostgreSQL server -->',
    '```',
    '$ gpualloc state list --store postgres://x',
    'y',
    '```',
    '',
    '```sh',
    '$ gpualloc presets \\',
    '    --json',
    'out 1',
    '',
    'out 2',
    '$ cat f; echo "exit $?"',
    '```',
    '```',
    'gpualloc plan --memory 1GiB',
    '```',
    '<!-- doc-test: postgres: a server -->',
    '```',
    '$ gpualloc state list --store postgres://gpualloc@db/scheduling',
    '```',
    '',
  ].join('\n');
  const parsed = parseExamples('t.md', doc);

  it('reads commands, continuations, outputs, directives and promptless lines', () => {
    expect(parsed.errors).toEqual([]);
    expect(parsed.examples.map((e) => [e.line, e.command, e.expected, e.skip, e.postgres])).toEqual([
      [4, 'gpualloc state list --store postgres://x', ['y'], 'needs a PostgreSQL server', undefined],
      [9, 'gpualloc presets \n    --json', ['out 1', '', 'out 2'], undefined, undefined],
      [14, 'cat f; echo "exit $?"', [], undefined, undefined],
      [21, 'gpualloc state list --store postgres://gpualloc@db/scheduling', [], undefined, 'a server'],
    ]);
    expect(parsed.promptless).toEqual([{ file: 't.md', line: 17, text: 'gpualloc plan --memory 1GiB' }]);
    expect(parseExamples('u.md', '<!-- doc-test: skip: -->\n```\n$ gpualloc demo\n```\n').errors).toEqual(['u.md:1: doc-test skip needs a reason']);
  });

  it('compares line by line, with ‹…› for a varying part and … for lines left out', () => {
    expect(outputMatches(['a  b', 'c'], 'a  b   \nc\n\n')).toBe(true);
    expect(outputMatches(['a  b', 'c'], 'a  b\nc\nd\n')).toBe(false);
    expect(outputMatches(['a  b', 'c'], 'a b\nc\n')).toBe(false);
    expect(outputMatches(['age ‹age› ago'], 'age 3s ago\n')).toBe(true);
    expect(outputMatches(['age ‹age› ago'], 'age  ago\n')).toBe(false);
    expect(outputMatches(['age ‹age› ago'], 'age 3s\nago\n')).toBe(false);
    expect(outputMatches(['head', '…', 'tail'], 'head\n1\n2\n3\ntail\n')).toBe(true);
    expect(outputMatches(['head', '…', 'tail'], 'head\ntail\n')).toBe(false);
    expect(outputMatches(['head', '…'], 'head\n')).toBe(false);
    expect(outputMatches(['x (1+1) [y]*'], 'x (1+1) [y]*\n')).toBe(true);
    expect(outputMatches([], '')).toBe(true);
    expect(outputMatches([], 'something\n')).toBe(false);
  });
});
