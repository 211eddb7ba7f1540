// Builds the wasm core before the suites when it is missing or older than its sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  const wasm = join(root, 'build', 'release.wasm');
  const newest = Math.max(...readdirSync(join(root, 'assembly')).map((f) => statSync(join(root, 'assembly', f)).mtimeMs));
  if (!existsSync(wasm) || statSync(wasm).mtimeMs < newest) {
    execFileSync(process.execPath, [join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js'), 'assembly/index.ts', '--target', 'release'], { cwd: root, stdio: 'inherit' });
  }
}
