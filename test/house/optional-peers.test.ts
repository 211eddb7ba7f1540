// The optional peer dependencies (pg, koffi, yaml, smol-toml) are never imported at the top of a
// shipped module for their values: only `import type` (erased) or `import('NAME')` inside
// importOptional (NVML's loader, which says the same in its own error, guards its one import of
// koffi with isMissingModule), so an install without them loads every entry and says which package
// to install on use.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../support/source-imports.js';

const PEERS = ['pg', 'koffi', 'yaml', 'smol-toml'];
const files = [...sourceFiles(SRC), ...sourceFiles(join(SRC, '..', 'bindings'))];

describe('optional peer dependencies', () => {
  it('are imported for their values only through importOptional', () => {
    const bad: string[] = [];
    let dynamic = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const peer of PEERS) {
        const quoted = `['"]${peer.replace('-', '\\-')}['"]`;
        for (const m of text.matchAll(new RegExp(`^import (?!type )[^;]*from ${quoted}`, 'gm'))) bad.push(`${relative(SRC, file)}: ${m[0]}`);
        for (const m of text.matchAll(new RegExp(`(?<!typeof )import\\(${quoted}\\)`, 'g'))) {
          const before = text.slice(Math.max(0, (m.index ?? 0) - 200), m.index);
          const after = text.slice(m.index, (m.index ?? 0) + 600);
          if (before.slice(before.lastIndexOf('\n')).includes('importOptional(') || after.includes(`isMissingModule(cause, '${peer}')`)) dynamic++;
          else bad.push(`${relative(SRC, file)}: ${m[0]} outside importOptional`);
        }
      }
    }
    expect(bad).toEqual([]);
    // pg, koffi (store lock and NVML), yaml (policy files, dumps), smol-toml: each has its lazy import.
    expect(dynamic).toBeGreaterThanOrEqual(5);
  });
});
