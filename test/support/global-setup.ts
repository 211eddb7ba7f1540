// Builds what the suites run before they start, when missing or older than its sources: the wasm
// core (release and debug), and dist/ (the TypeScript build that child-process tests run: the bin,
// the engine under --disallow-code-generation-from-strings), so no test runs stale code.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under `dir` (recursively) whose names end in `ext`. */
function newest(dir: string, ext: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) t = Math.max(t, newest(path, ext));
    else if (entry.name.endsWith(ext)) t = Math.max(t, statSync(path).mtimeMs);
  }
  return t;
}

function olderThan(file: string, time: number): boolean {
  return !existsSync(file) || statSync(file).mtimeMs < time;
}

export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  const assembly = newest(join(root, 'assembly'), '.ts');
  for (const target of ['release', 'debug']) {
    if (olderThan(join(root, 'build', `${target}.wasm`), assembly)) {
      execFileSync(process.execPath, [join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js'), 'assembly/index.ts', '--target', target], { cwd: root, stdio: 'inherit' });
    }
  }
  // dist/ as `npm run build:ts` makes it: tsc over src, bindings and bench, then the wasm copied in.
  const sources = Math.max(...['src', 'bindings', 'bench'].map((d) => newest(join(root, d), '.ts')), statSync(join(root, 'build', 'release.wasm')).mtimeMs);
  if (
    olderThan(join(root, 'dist', 'src', 'cli', 'main.js'), sources) ||
    olderThan(join(root, 'dist', 'src', 'shared', 'validate.js'), sources) ||
    olderThan(join(root, 'dist', 'build', 'release.wasm'), sources)
  ) {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    cpSync(join(root, 'build'), join(root, 'dist', 'build'), { recursive: true });
  }
}
