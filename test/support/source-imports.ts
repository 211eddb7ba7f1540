// The files of src/ and the src/ files each one imports, read with TypeScript's pre-processor
// (static imports, re-exports and dynamic imports of relative paths; value and type imports
// alike): what every house test builds its graph from.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** The repository's src/ folder. */
export const SRC = join(import.meta.dirname, '..', '..', 'src');

/** Every .ts file under `dir` (declaration files left out). */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Absolute paths of the files of src/ that `file` imports. */
export function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), ref.fileName);
    const target = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile());
    if (target?.startsWith(SRC)) out.push(target);
  }
  return out;
}
