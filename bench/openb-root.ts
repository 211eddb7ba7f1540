// Where the bundled OpenB trace is, for the fleet scripts run from bench/ (sources) or dist/bench/ (built).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (the folder holding data/openb/) next to the calling script `importMetaUrl`. */
export function openbRoot(importMetaUrl: string): string {
  const here = dirname(fileURLToPath(importMetaUrl));
  const root = [join(here, '..'), join(here, '..', '..')].find((d) => {
    try {
      readFileSync(join(d, 'data/openb/openb_node_list_gpu_node.csv'));
      return true;
    } catch {
      return false;
    }
  });
  if (root === undefined) throw new Error('data/openb/ not found next to the bench folder');
  return root;
}
