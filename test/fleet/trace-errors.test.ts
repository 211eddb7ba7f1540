// A malformed trace row is an INVALID_TRACE error naming the file, line and column, and
// gpualloc simulate then writes nothing (no events, no CSV).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { cli, inTempDir, ROOT } from '../support/cli.js';
import { codeOf } from '../support/engines.js';

const NODES = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const POD_HEAD = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec';

describe('fleet trace files: errors name file, line and column', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a non-integer CPU', `${POD_HEAD}\np0,100,10,1,500,\np1,1.5,10,0,0,\n`, /pods\.csv:3: column cpu_milli: expected an integer, got "1\.5"/],
    ['a share above 1000', `${POD_HEAD}\np0,100,10,1,1500,\n`, /pods\.csv:2: column gpu_milli: expected 0\.\.1000, got 1500/],
    ['a partial share on several GPUs', `${POD_HEAD}\np0,100,10,2,500,\n`, /pods\.csv:2: column gpu_milli: expected 1000 for a pod of 2 GPUs, got 500/],
    ['a missing column', `${POD_HEAD}\np0,100,10,1\n`, /pods\.csv:2: column 5: expected 6 columns, got 4/],
    ['a duplicate pod', `${POD_HEAD}\np0,100,10,1,500,\np0,100,10,1,500,\n`, /pods\.csv:3: column name: pod "p0" appears twice/],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => {
      expect(() => parsePodCsv('pods.csv', text)).toThrow(message);
      expect(codeOf(() => parsePodCsv('pods.csv', text))).toBe('INVALID_TRACE');
    });
  }
  it('a node with GPUs and no model, and a header without a column', () => {
    expect(() => parseNodeCsv('nodes.csv', 'sn,cpu_milli,memory_mib,gpu,model\nn0,1000,10,2,\n')).toThrow(/nodes\.csv:2: column model: empty GPU model/);
    expect(() => parseNodeCsv('nodes.csv', 'sn,cpu_milli,memory_mib,gpu\nn0,1000,10,2\n')).toThrow(/nodes\.csv:1: the header lacks the column model/);
  });
  it('the published files parse: 1,213 nodes with 6,212 GPUs; 8,152 pods (the multigpu20 file has five columns)', () => {
    const nodes = parseNodeCsv('n', readFileSync(NODES, 'utf8'));
    expect([nodes.length, nodes.reduce((a, n) => a + n.gpus, 0)]).toEqual([1213, 6212]);
    expect(parsePodCsv('p', readFileSync(join(ROOT, 'data/openb/openb_pod_list_default.csv'), 'utf8'))).toHaveLength(8152);
    expect(parsePodCsv('p', readFileSync(join(ROOT, 'data/openb/openb_pod_list_multigpu20.csv'), 'utf8')).length).toBeGreaterThan(8000);
  });
  it('gpualloc simulate exits 2 and writes neither --events nor --csv', async () => {
    await inTempDir('gpualloc-trace-', async (dir) => {
      const pods = join(dir, 'pods.csv');
      writeFileSync(pods, `${POD_HEAD}\np0,100,10,1,500,\np1,100,ten,0,0,\n`);
      const r = await cli(['simulate', '--nodes', NODES, '--pods', pods, '--policy', 'fgd', '--seeds', '42', '--events', join(dir, 'e.jsonl'), '--csv', join(dir, 'c.csv')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/pods\.csv:3: column memory_mib: expected an integer, got "ten"/);
      expect(existsSync(join(dir, 'e.jsonl')) || existsSync(join(dir, 'c.csv'))).toBe(false);
    });
  });
});
