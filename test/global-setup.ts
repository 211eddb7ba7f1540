// Builds the wasm core (release and debug) before the suites when missing or older than its sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  const newest = Math.max(...readdirSync(join(root, 'assembly')).map((f) => statSync(join(root, 'assembly', f)).mtimeMs));
  for (const target of ['release', 'debug']) {
    const wasm = join(root, 'build', `${target}.wasm`);
    if (!existsSync(wasm) || statSync(wasm).mtimeMs < newest) {
      execFileSync(process.execPath, [join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js'), 'assembly/index.ts', '--target', target], { cwd: root, stdio: 'inherit' });
    }
  }
}
