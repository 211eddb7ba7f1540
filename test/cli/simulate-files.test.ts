// gpualloc simulate and the files it names: a missing --nodes/--pods file, or an --events/--csv file
// that cannot be written, is exit 2 (IO_ERROR in --json) naming the flag and the path; an output
// path is checked before any run, so a bad --csv writes no --events file either.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir, ROOT } from '../support/cli.js';

const NODES = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const PODS = join(ROOT, 'data/openb/openb_pod_list_multigpu20.csv');

describe('gpualloc simulate: files', () => {
  it('a missing --nodes or --pods file names the flag and the path', async () => {
    await inTempDir('gpualloc-sim-files-', async (dir) => {
      const missing = join(dir, 'nope.csv');
      const nodes = await cli(['simulate', '--nodes', missing, '--pods', PODS, '--seeds', '42']);
      expect(nodes.code).toBe(2);
      expect(nodes.stderr).toMatch(/^gpualloc: --nodes: ENOENT: .*nope\.csv/);
      const pods = await cli(['simulate', '--nodes', NODES, '--pods', missing, '--seeds', '42', '--json']);
      expect(pods.code).toBe(2);
      expect(JSON.parse(pods.stdout).error).toEqual({ code: 'IO_ERROR', message: expect.stringMatching(/^--pods: ENOENT: .*nope\.csv/) });
    });
  });

  it('--csv in a missing folder fails before any run and writes no --events file', async () => {
    await inTempDir('gpualloc-sim-files-', async (dir) => {
      const events = join(dir, 'events.jsonl');
      const csv = join(dir, 'no-such-folder', 'curves.csv');
      const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd', '--seeds', '42', '--events', events, '--csv', csv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^gpualloc: --csv: ENOENT: .*no-such-folder/);
      expect(r.stdout).toBe('');
      expect(existsSync(events)).toBe(false);
    });
  });

  it('--events naming a folder is a usage error naming the flag and the path', async () => {
    await inTempDir('gpualloc-sim-files-', async (dir) => {
      const r = await cli(['simulate', '--nodes', NODES, '--pods', PODS, '--policy', 'fgd', '--seeds', '42', '--events', dir]);
      expect([r.code, r.stderr]).toEqual([2, `gpualloc: --events: ${JSON.stringify(dir)} is a folder, expected a file to write\n`]);
    });
  });
});
