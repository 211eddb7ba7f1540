// Every `$ gpualloc …` example of README.md and docs/ is run against the built CLI and must print what
// the document shows, so a change of output fails here until the documents follow (rules in
// test/support/doc-examples.ts and docs/cli.md). With GPUALLOC_DOCS_UPDATE=1 the outputs that differ
// and use no marker are rewritten in place from what the commands printed (read the diff before
// committing it).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { hasMarkers, normalise, outputMatches, parseExamples, type DocExample } from '../support/doc-examples.js';
import { buildNvmlDoubles } from '../fixtures/nvml-double/build.js';
import { configText, dgx1Volta, dgxA100, migA100, pcieBox } from '../fixtures/nvml-double/machines.js';

/** Markdown files under `dir` (relative to the root), recursively. */
function markdownUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownUnder(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : []));
}

const DOCS = ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs')];
const PARSED = DOCS.map((file) => ({ file, ...parseExamples(file, readFileSync(join(ROOT, file), 'utf8')) }));
const MACHINES = { 'dgx-a100': dgxA100, 'dgx1-volta': dgx1Volta, 'pcie-box': pcieBox, 'mig-a100': migA100 } as const;
const UPDATE = process.env.GPUALLOC_DOCS_UPDATE === '1';

const work = mkdtempSync(join(tmpdir(), 'gpualloc-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// `gpualloc` on the PATH of the examples: the built bin.
const bin = join(work, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'gpualloc'), `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'dist', 'src', 'cli', 'main.js')}' "$@"\n`);
chmodSync(join(bin, 'gpualloc'), 0o755);

/** The environment of every example: no GPUALLOC_* settings of the caller, no NVML (unless a directive gives the double). */
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

/** Runs one example's command in a shell, stdout and stderr on one pipe as a terminal shows them. */
function runCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `exec 2>&1\n${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
}

/** A new working folder for one document, with the repository's data/ linked in. */
function newSession(file: string): string {
  const dir = mkdtempSync(join(work, `${file.replace(/[^\w.-]/g, '_')}-`));
  symlinkSync(join(ROOT, 'data'), join(dir, 'data'));
  return dir;
}

/** Replaces the outputs of `fixes` in `file` (bottom up, so earlier line numbers hold). */
function rewrite(file: string, fixes: Array<{ example: DocExample; actual: string }>): void {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  for (const { example, actual } of [...fixes].sort((a, b) => b.example.outputLines[0] - a.example.outputLines[0])) {
    const [start, end] = example.outputLines;
    const kept = lines.slice(start, end);
    const trailing = kept.length - normalise(kept).length; // blank lines before the next $ line stay
    lines.splice(start, end - start, ...normalise(actual.split('\n')), ...Array<string>(trailing).fill(''));
  }
  writeFileSync(join(ROOT, file), lines.join('\n'));
}

describe('the documentation examples', () => {
  it('finds the examples, in the documents it checks, and no malformed ones', () => {
    expect(DOCS).toContain('README.md');
    expect(DOCS.filter((d) => d.startsWith('docs/')).length).toBeGreaterThan(5);
    const all = PARSED.flatMap((p) => p.examples);
    expect(all.filter((e) => e.skip === undefined).length).toBeGreaterThan(40);
    expect(PARSED.flatMap((p) => p.errors)).toEqual([]);
  });

  it('has every CLI line of a code block written as a `$ gpualloc …` example (so it runs)', () => {
    expect(PARSED.flatMap((p) => p.promptless).map((p) => `${p.file}:${p.line}: ${p.text}`)).toEqual([]);
  });

  it('lists the examples that are not run, each with its reason', () => {
    const skipped = PARSED.flatMap((p) => p.examples).filter((e) => e.skip !== undefined);
    for (const e of skipped) expect(e.skip, `${e.file}:${e.line}`).toMatch(/\w{3,}/);
    // Few on purpose: an example that cannot run here needs a reason a reader accepts.
    expect(skipped.length).toBeLessThanOrEqual(6);
    if (skipped.length > 0) console.log(`doc examples not run:\n${skipped.map((e) => `  ${e.file}:${e.line}: $ ${e.command} (${e.skip})`).join('\n')}`);
  });

  for (const { file, examples } of PARSED) {
    const runnable = examples.filter((e) => e.skip === undefined);
    if (runnable.length === 0) continue;
    it.concurrent(`${file}: ${runnable.length} examples print what the document shows`, async ({ expect: check }) => {
      const session = newSession(file);
      const fixes: Array<{ example: DocExample; actual: string }> = [];
      for (const example of runnable) {
        const actual = await runCommand(example.command, session, environment(session, example));
        if (outputMatches(example.expected, actual)) continue;
        if (UPDATE && !hasMarkers(example.expected)) fixes.push({ example, actual });
        check.soft(normalise(actual.split('\n')).join('\n'), `${file}:${example.line}: $ ${example.command}`).toBe(normalise(example.expected).join('\n'));
      }
      if (fixes.length > 0) rewrite(file, fixes);
    });
  }
});

describe('the example checker itself', () => {
  const doc = ['intro', '<!-- doc-test: skip: needs a PostgreSQL server -->', '```', '$ gpualloc state list --store postgres://x', 'y', '```', '', '```sh', '$ gpualloc presets \\', '    --json', 'out 1', '', 'out 2', '$ cat f; echo "exit $?"', '```', '```', 'gpualloc plan --memory 1GiB', '```', ''].join('\n');
  const parsed = parseExamples('t.md', doc);

  it('reads commands, continuations, outputs, skips and promptless lines', () => {
    expect(parsed.errors).toEqual([]);
    expect(parsed.examples.map((e) => [e.line, e.command, e.expected, e.skip])).toEqual([
      [4, 'gpualloc state list --store postgres://x', ['y'], 'needs a PostgreSQL server'],
      [9, 'gpualloc presets \n    --json', ['out 1', '', 'out 2'], undefined],
      [14, 'cat f; echo "exit $?"', [], undefined],
    ]);
    expect(parsed.promptless).toEqual([{ file: 't.md', line: 17, text: 'gpualloc plan --memory 1GiB' }]);
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
