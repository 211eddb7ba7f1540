// The documentation's slow examples (blocks marked `<!-- doc-test: research: … -->`, such as the
// ten-seed replay of the openb trace behind docs/fleet.md's numbers), checked as
// test/docs/examples.test.ts checks the others.
import { afterAll, describe, expect, it } from 'vitest';
import { checkExamples, docRunner, parseDocs } from '../support/doc-examples.js';

const blocks = parseDocs()
  .map((d) => ({ file: d.file, examples: d.examples.filter((e) => e.research !== undefined) }))
  .filter((d) => d.examples.length > 0);
const runner = docRunner();
afterAll(() => runner.close());

describe('the documentation examples that reproduce measured results', () => {
  it('there are some', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  for (const { file, examples } of blocks) {
    it(`${file}: ${examples.length} examples print what the document shows`, async ({ expect: check }) => {
      await checkExamples(runner, file, examples, (actual, label, expected) => check.soft(actual, label).toBe(expected));
    });
  }
});
