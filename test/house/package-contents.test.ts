// What `npm pack` ships: what a user runs (release wasm, dist/src, dist/bindings, types, README,
// LICENSE), never the debug wasm, .wat text, source maps, the bench or test fixtures.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

function packedFiles(): string[] {
  // --ignore-scripts: list what the files field selects from the dist/ the global setup built.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const [entry] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
  return entry.files.map((f) => f.path).sort();
}

describe('npm pack', () => {
  const files = packedFiles();

  it('ships the release wasm, the built API, the NVML bindings, their types, README and LICENSE', () => {
    for (const path of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/build/release.wasm',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/cli/main.js',
      'dist/bindings/index.js',
      'dist/bindings/index.d.ts',
    ]) {
      expect(files, path).toContain(path);
    }
  });

  it('ships nothing a user does not run: no debug wasm, .wat, source maps, bench or tests', () => {
    const extra = files.filter(
      (f) =>
        /debug\.wasm|\.wat$|\.map$|^dist\/bench\/|^dist\/test\/|^build\//.test(f) || !/^(LICENSE|README\.md|package\.json|dist\/(src|bindings)\/.*\.(js|d\.ts)|dist\/build\/release\.wasm)$/.test(f),
    );
    expect(extra).toEqual([]);
  });

  it('ships JavaScript that points at no source map (none is shipped)', () => {
    const pointing = files.filter((f) => f.endsWith('.js') && /sourceMappingURL=/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(pointing).toEqual([]);
  });

  it('declares no side effects, and Node >= 20.19 (require() of ES modules)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { sideEffects: unknown; engines: { node: string } };
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toBe('>=20.19');
  });

  it('installs only what every user needs; what one feature needs is an optional peer (and a dev dependency here)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    // re2js: CEL's matches() on every DRA path, in browsers too.
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@assemblyscript/loader', '@marcbachmann/cel-js', 're2js']);
    const peers = ['koffi', 'pg', 'smol-toml', 'yaml'];
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(peers);
    for (const name of peers) {
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(Object.keys(pkg.devDependencies)).toContain(name);
    }
  });

  it('every file the package.json entry points name is in the tarball', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      main: string;
      types: string;
      exports: Record<string, string | { types: string; default: string }>;
    };
    const named = [...Object.values(pkg.bin), pkg.main, pkg.types];
    for (const target of Object.values(pkg.exports)) if (typeof target !== 'string') named.push(target.types, target.default);
    for (const path of named) expect(files, path).toContain(path.replace(/^\.\//, ''));
  });

  it('the LICENSE is the Apache License 2.0 that package.json declares', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
  });
});
