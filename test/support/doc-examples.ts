// The command-line examples of the documentation, as the doc test (test/docs/examples.test.ts) reads
// and checks them. The rules, which docs/cli.md also states for authors:
//
// - An example is a line `$ COMMAND` inside a fenced code block, followed by the output it prints
//   (stdout and stderr together, as a terminal shows them) up to the next `$ ` line or the fence.
//   A command ending in ` \` continues on the next line.
// - Every `$ ` line of a block that runs gpualloc somewhere is run, in a shell, in order; the blocks of
//   one document share one fresh temporary folder as the working directory (so a file one example
//   writes is there for the next), with `data/` of the repository linked into it.
// - Output is compared line by line after trimming trailing spaces. Two markers, used sparingly:
//   `‹what›` inside a line stands for text that differs from run to run (a time, an age), and a line
//   holding only `…` stands for one or more lines left out.
// - A comment `<!-- doc-test: skip: REASON -->` on the line before a block's fence keeps its examples
//   from running; the reason is required and the test lists every skipped example.
//   `<!-- doc-test: nvml: MACHINE -->` runs the block against the NVML test double emulating MACHINE.
// - A line starting `gpualloc ` in a fenced block without `$ ` lines is an error: write examples as
//   `$ gpualloc …` so that they run.

/** One `$ command` and the output shown under it. */
export type DocExample = {
  file: string;
  /** 1-based line of the `$ ` line in the file. */
  line: number;
  command: string;
  expected: string[];
  /** Index (in the file) of the block holding it. */
  block: number;
  /** Why it is not run (from a skip directive). */
  skip?: string;
  /** The NVML double's machine (from an nvml directive). */
  nvml?: string;
  /** 0-based line range [start, end) of the expected output in the file, for rewriting. */
  outputLines: [number, number];
};

/** A fenced-block line that looks like a CLI example but has no `$ ` prompt. */
export type PromptlessExample = { file: string; line: number; text: string };

const DIRECTIVE = /^<!--\s*doc-test:\s*(skip|nvml):\s*(.*?)\s*-->\s*$/;
const FENCE = /^\s*(```|~~~)/;

/** The examples of one markdown document, and the promptless CLI lines it holds. */
export function parseExamples(file: string, text: string): { examples: DocExample[]; promptless: PromptlessExample[]; errors: string[] } {
  const lines = text.split('\n');
  const examples: DocExample[] = [];
  const promptless: PromptlessExample[] = [];
  const errors: string[] = [];
  let block = -1;
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]);
    if (fence === null) continue;
    // A fenced block: lines i+1 .. end-1.
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence[1])) end++;
    block++;
    const body = lines.slice(i + 1, end);
    const directive = i > 0 ? DIRECTIVE.exec(lines[i - 1]) : null;
    let skip: string | undefined;
    let nvml: string | undefined;
    if (directive !== null) {
      if (directive[2] === '') errors.push(`${file}:${i}: doc-test ${directive[1]} needs ${directive[1] === 'skip' ? 'a reason' : 'a machine'}`);
      if (directive[1] === 'skip') skip = directive[2];
      else nvml = directive[2];
    }
    // In a block with no `$ ` line, a line starting `gpualloc ` is an example nobody runs.
    if (!body.some((l) => l.startsWith('$ '))) {
      body.forEach((l, k) => {
        if (/^gpualloc\s/.test(l)) promptless.push({ file, line: i + 2 + k, text: l });
      });
    }
    const runs = body.some((l) => l.startsWith('$ ') && /(^|[\s|;&(])gpualloc(\s|$)/.test(l.slice(2)));
    if (runs) {
      let k = 0;
      while (k < body.length && !body[k].startsWith('$ ')) {
        if (body[k].trim() !== '') errors.push(`${file}:${i + 2 + k}: output before the first $ line of a block`);
        k++;
      }
      while (k < body.length) {
        const at = k;
        let command = body[k].slice(2);
        while (command.endsWith(' \\') && k + 1 < body.length) {
          k++;
          command = `${command.slice(0, -1)}\n${body[k]}`;
        }
        k++;
        const start = k;
        while (k < body.length && !body[k].startsWith('$ ')) k++;
        examples.push({ file, line: i + 2 + at, command, expected: body.slice(start, k), block, skip, nvml, outputLines: [i + 1 + start, i + 1 + k] });
      }
    }
    i = end;
  }
  return { examples, promptless, errors };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Lines without trailing spaces, and no trailing empty lines. */
export function normalise(lines: string[]): string[] {
  const out = lines.map((l) => l.trimEnd());
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** Whether the output shown (with its ‹…› and … markers) matches what the command printed. */
export function outputMatches(expected: string[], actual: string): boolean {
  const want = normalise(expected);
  const got = normalise(actual.split('\n')).join('\n');
  const pattern = want
    .map((line) => (line === '…' ? '[^\\n]*(?:\\n[^\\n]*)*?' : line.split(/‹[^›\n]*›/).map(escape).join('[^\\n]+?')))
    .join('\\n');
  return new RegExp(`^${pattern}$`).test(got);
}

/** Whether the expected output uses a marker (and so cannot be rewritten from the actual output). */
export function hasMarkers(expected: string[]): boolean {
  return expected.some((l) => l.trim() === '…' || /‹[^›\n]*›/.test(l));
}
