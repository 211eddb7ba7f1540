// `noUncheckedIndexedAccess` for the folders that have opted in. tsc checks every file of a program
// and has no per-folder switch, so this runs it once over tsconfig.json with the flag on and keeps
// only the errors in the opted-in paths below; the rest of the program still type-checks without
// the flag (`tsc -p tsconfig.json`). docs/architecture.md says what `!` marks in opted-in code and
// what checking a hot path's reads instead would cost.
//   node scripts/check-indexed-access.mjs          exits 1 on an error in an opted-in path
//   node scripts/check-indexed-access.mjs --all    prints the error count of every folder too
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Opted-in paths, relative to the repository root: a folder (ends in `/`) or one file. */
const OPTED_IN = [
  'bindings/',
  'src/baseline/',
  'src/shared/',
  'src/models/',
  'src/hardware/',
  'src/cluster/',
  'src/store/',
  'src/dra/',
  'src/devices/',
  'src/placement/',
  'src/wasm/',
  'src/simulation/',
  'src/cli/',
  'src/fleet/',
  'bench/',
];

const optedIn = (file) => OPTED_IN.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--noUncheckedIndexedAccess', '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8' });
if (run.error) throw run.error;

// An error starts a line `file(line,col): error TSnnnn: …`; the lines under it that start with a
// space continue its message. An error without a file (a bad config) is always reported.
const errors = [];
for (const line of run.stdout.split('\n')) {
  if (line === '') continue;
  if (line.startsWith(' ') && errors.length > 0) errors[errors.length - 1].text += `\n${line}`;
  else {
    const m = /^(.+?)\(\d+,\d+\): error TS\d+/.exec(line);
    errors.push({ file: m ? m[1].replaceAll('\\', '/') : null, text: line });
  }
}

if (process.argv.includes('--all')) {
  const byFolder = new Map();
  for (const e of errors) {
    const folder =
      e.file === null
        ? '(no file)'
        : e.file
            .split('/')
            .slice(0, e.file.startsWith('src/') ? 2 : 1)
            .join('/');
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
  }
  for (const [folder, n] of [...byFolder].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(5)}  ${folder}`);
}

const failing = errors.filter((e) => e.file === null || optedIn(e.file));
for (const e of failing) console.error(e.text);
if (failing.length > 0) {
  console.error(`\nnoUncheckedIndexedAccess: ${failing.length} error(s) in opted-in paths (scripts/check-indexed-access.mjs lists them)`);
  process.exit(1);
}
if (run.status !== 0 && errors.length === 0) {
  console.error(run.stdout + run.stderr);
  process.exit(run.status ?? 1);
}
console.log(`noUncheckedIndexedAccess: ${OPTED_IN.length} opted-in paths clean (${errors.length} error(s) elsewhere, outside the check)`);
