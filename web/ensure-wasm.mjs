// Builds the wasm core when it is missing or older than assembly/: the page bundles build/release.wasm.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const wasm = join(root, 'build', 'release.wasm');
const newest = Math.max(...readdirSync(join(root, 'assembly')).map((f) => statSync(join(root, 'assembly', f)).mtimeMs));
if (!existsSync(wasm) || statSync(wasm).mtimeMs < newest) {
  console.log('build:web: building the wasm core (build/release.wasm is missing or stale)');
  execFileSync(process.execPath, [join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js'), 'assembly/index.ts', '--target', 'release'], { cwd: root, stdio: 'inherit' });
}
