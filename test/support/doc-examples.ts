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
//   `<!-- doc-test: postgres: WHAT -->` marks a block that needs a PostgreSQL server: the PostgreSQL
//   suite (test/pg/docs-examples.test.ts, `npm run test:pg`) runs it, with the URL
//   postgres://gpualloc@db/scheduling standing for its throwaway server, instead of `npm test`.
//   `<!-- doc-test: research: WHAT -->` marks a block that takes many seconds (a measured result
//   reproduced): the research suite (test/research/docs-examples.test.ts) runs it.
// - A line starting `gpualloc ` in a fenced block without `$ ` lines is an error: write examples as
//   `$ gpualloc …` so that they run.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNvmlDoubles } from '../fixtures/nvml-double/build.js';
import { configText, dgx1Volta, dgxA100, migA100, pcieBox } from '../fixtures/nvml-double/machines.js';
import { ROOT } from './cli.js';

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
  /** Needs a PostgreSQL server (from a postgres directive): what for. */
  postgres?: string;
  /** Slow, run by the research suite (from a research directive): what it reproduces. */
  research?: string;
  /** 0-based line range [start, end) of the expected output in the file, for rewriting. */
  outputLines: [number, number];
};

/** A fenced-block line that looks like a CLI example but has no `$ ` prompt. */
export type PromptlessExample = { file: string; line: number; text: string };

const DIRECTIVE = /^<!--\s*doc-test:\s*(skip|nvml|postgres|research):\s*(.*?)\s*-->\s*$/;
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
    let postgres: string | undefined;
    let research: string | undefined;
    if (directive !== null) {
      if (directive[2] === '') errors.push(`${file}:${i}: doc-test ${directive[1]} needs ${directive[1] === 'nvml' ? 'a machine' : 'a reason'}`);
      if (directive[1] === 'skip') skip = directive[2];
      else if (directive[1] === 'nvml') nvml = directive[2];
      else if (directive[1] === 'postgres') postgres = directive[2];
      else research = directive[2];
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
        examples.push({ file, line: i + 2 + at, command, expected: body.slice(start, k), block, skip, nvml, postgres, research, outputLines: [i + 1 + start, i + 1 + k] });
      }
    }
    i = end;
  }
  return { examples, promptless, errors };
}

function escapeRegExp(text: string): string {
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
    .map((line) =>
      line === '…'
        ? '[^\\n]*(?:\\n[^\\n]*)*?'
        : line
            .split(/‹[^›\n]*›/)
            .map(escapeRegExp)
            .join('[^\\n]+?'),
    )
    .join('\\n');
  return new RegExp(`^${pattern}$`).test(got);
}

/** Whether the expected output uses a marker (and so cannot be rewritten from the actual output). */
export function hasMarkers(expected: string[]): boolean {
  return expected.some((l) => l.trim() === '…' || /‹[^›\n]*›/.test(l));
}

// ---- Running the examples (shared by the doc test and the PostgreSQL suite's doc test) ----
const MACHINES = { 'dgx-a100': dgxA100, 'dgx1-volta': dgx1Volta, 'pcie-box': pcieBox, 'mig-a100': migA100 } as const;

/** Markdown files under `dir` (relative to the root), recursively. */
function markdownUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownUnder(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : []));
}

/** The documents whose examples are checked: README.md, CONTRIBUTING.md and docs/**. */
export function docFiles(): string[] {
  return ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs')];
}

/** Every document, parsed. */
export function parseDocs(): Array<{ file: string } & ReturnType<typeof parseExamples>> {
  return docFiles().map((file) => ({ file, ...parseExamples(file, readFileSync(join(ROOT, file), 'utf8')) }));
}

/** Where examples run: a temp folder with `gpualloc` (the built bin) on the PATH, one sub-folder per document. */
export type DocRunner = {
  /** A new working folder for one document, with the repository's data/ linked in. */
  session(file: string): string;
  /** Runs one example's command in `session`: stdout and stderr on one pipe, as a terminal shows them. */
  run(example: DocExample, session: string, extraEnv?: NodeJS.ProcessEnv): Promise<string>;
  /** Removes every folder it made. */
  close(): void;
};

export function docRunner(): DocRunner {
  const work = mkdtempSync(join(tmpdir(), 'gpualloc-docs-'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gpualloc'), `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'dist', 'src', 'cli', 'main.js')}' "$@"\n`);
  chmodSync(join(bin, 'gpualloc'), 0o755);

  /** No GPUALLOC_* settings of the caller; no NVML (unless a directive gives the double). */
  function environment(session: string, example: DocExample): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GPUALLOC_') && !k.startsWith('NVML_DOUBLE_')) env[k] = v;
    env.PATH = `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    env.TZ = 'UTC';
    env.GPUALLOC_NVML_LIBRARY = join(session, '.no-nvml', 'libnvidia-ml.so.1');
    if (example.nvml !== undefined) {
      const machine = MACHINES[example.nvml as keyof typeof MACHINES];
      if (machine === undefined) throw new Error(`${example.file}:${example.line}: unknown NVML double machine ${example.nvml} (known: ${Object.keys(MACHINES).join(', ')})`);
      const config = join(session, `.nvml-${example.nvml}.txt`);
      writeFileSync(config, configText(machine()));
      env.GPUALLOC_NVML_LIBRARY = buildNvmlDoubles().current;
      env.NVML_DOUBLE_CONFIG = config;
    }
    return env;
  }

  return {
    session(file) {
      const dir = mkdtempSync(join(work, `${file.replace(/[^\w.-]/g, '_')}-`));
      symlinkSync(join(ROOT, 'data'), join(dir, 'data'));
      return dir;
    },
    run(example, session, extraEnv = {}) {
      const env = { ...environment(session, example), ...extraEnv };
      return new Promise((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', `exec 2>&1\n${example.command}`], { cwd: session, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (t: string) => void (out += t));
        child.stderr.setEncoding('utf8').on('data', (t: string) => void (out += t));
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.on('error', reject);
        child.on('close', () => {
          clearTimeout(timer);
          resolve(out);
        });
      });
    },
    close() {
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Replaces the outputs of `fixes` in `file` (bottom up, so earlier line numbers hold). */
export function rewriteOutputs(file: string, fixes: Array<{ example: DocExample; actual: string }>): void {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  for (const { example, actual } of [...fixes].sort((a, b) => b.example.outputLines[0] - a.example.outputLines[0])) {
    const [start, end] = example.outputLines;
    const kept = lines.slice(start, end);
    const trailing = kept.length - normalise(kept).length; // blank lines before the next $ line stay
    lines.splice(start, end - start, ...normalise(actual.split('\n')), ...Array<string>(trailing).fill(''));
  }
  writeFileSync(join(ROOT, file), lines.join('\n'));
}

/** Whether `npm test`'s doc test runs the example (not skipped, not left to the PostgreSQL or research suite). */
export function runByUnitSuite(e: DocExample): boolean {
  return e.skip === undefined && e.postgres === undefined && e.research === undefined;
}

/**
 * Runs one document's examples in order in a fresh session and checks each output with `check`
 * (a soft expect). `command` and `output` let a suite rewrite an example before it runs and its
 * output before it is compared. With GPUALLOC_DOCS_UPDATE=1, differing outputs that use no marker
 * are rewritten in the document.
 */
export async function checkExamples(
  runner: DocRunner,
  file: string,
  examples: DocExample[],
  check: (actual: string, label: string, expected: string) => void,
  rewrite: { command?: (c: string) => string; output?: (o: string) => string } = {},
): Promise<void> {
  const session = runner.session(file);
  const fixes: Array<{ example: DocExample; actual: string }> = [];
  for (const example of examples) {
    const command = rewrite.command?.(example.command) ?? example.command;
    const raw = await runner.run({ ...example, command }, session);
    const actual = rewrite.output?.(raw) ?? raw;
    if (outputMatches(example.expected, actual)) continue;
    if (process.env.GPUALLOC_DOCS_UPDATE === '1' && !hasMarkers(example.expected)) fixes.push({ example, actual });
    check(normalise(actual.split('\n')).join('\n'), `${file}:${example.line}: $ ${example.command}`, normalise(example.expected).join('\n'));
  }
  if (fixes.length > 0) rewriteOutputs(file, fixes);
}
