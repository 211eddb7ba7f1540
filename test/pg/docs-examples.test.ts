// The documentation's `$ gpualloc … --store postgres://…` examples (blocks marked
// `<!-- doc-test: postgres: … -->`), run against this suite's throwaway server: the URL
// postgres://gpualloc@db/scheduling?schema=NAME of the documents stands for the server with a fresh
// schema, and is written back in the output before it is compared with what the document shows.
// GPUALLOC_DOCS_UPDATE=1 rewrites differing outputs, as in test/docs/examples.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { checkExamples, docRunner, parseDocs } from '../support/doc-examples.js';
import { freshSchema, noPg, pgUrl } from './pg-context.js';

const DOC_URL = /postgres:\/\/gpualloc@db\/scheduling\?schema=(\w+)/g;
const blocks = parseDocs()
  .map((d) => ({ file: d.file, examples: d.examples.filter((e) => e.postgres !== undefined) }))
  .filter((d) => d.examples.length > 0);
const runner = docRunner();
afterAll(() => runner.close());

describe.skipIf(noPg)('the documentation examples that need PostgreSQL', () => {
  it('there are some', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  for (const { file, examples } of blocks) {
    it(`${file}: ${examples.length} examples print what the document shows`, async ({ expect: check }) => {
      const schemas = new Map<string, string>();
      const real = (name: string) => {
        if (!schemas.has(name)) schemas.set(name, freshSchema(`docs_${name}`));
        return `${pgUrl}&schema=${schemas.get(name)!}`;
      };
      await checkExamples(runner, file, examples, (actual, label, expected) => check.soft(actual, label).toBe(expected), {
        command: (c) => c.replace(DOC_URL, (_, name: string) => `'${real(name)}'`),
        output: (o) => {
          for (const [name, schema] of schemas) o = o.split(`${pgUrl}&schema=${schema}`).join(`postgres://gpualloc@db/scheduling?schema=${name}`).split(schema).join(name);
          return o;
        },
      });
    });
  }
});
