// The pod index places every pod where the scan of every node places it: every policy, both backends,
// the event logs (the JSON Lines `--events` writes) compared byte for byte; and the default trace
// replicated twice (every node twice over, so scores tie across the copies and the rank decides).
// Short form: each policy on one of the bundled openb traces (the four taken in turn), on one
// backend (the two taken in turn), on the first 250 nodes, and the first
// 100 nodes twice over; deep form (test:deep): every policy on every trace, the whole trace twice over.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { FleetPolicyName } from '../../src/fleet/index.js';
import { parseNodeCsv, parsePodCsv, scaleTrace } from '../../src/fleet/index.js';
import { POLICIES } from '../../src/fleet/policies/index.js';
import type { FleetNode, FleetPod } from '../../src/fleet/types.js';
import { DEEP, depth } from '../support/depth.js';
import { engines } from '../support/engines.js';

const data = (name: string) => readFileSync(fileURLToPath(new URL(`../../data/openb/${name}`, import.meta.url)), 'utf8');
const nodes = parseNodeCsv('nodes', data('openb_node_list_gpu_node.csv'));
const TRACES = ['default', 'gpushare40', 'multigpu20', 'gpuspec33'];

/** The run's event log as `gpualloc simulate --events` writes it. */
function eventLog(engine: Engine, nodes: FleetNode[], pods: FleetPod[], policy: FleetPolicyName, seed: number, search: 'index' | 'scan'): string {
  const run = engine.simulateFleet({ nodes, pods, policy, seed, events: true, search });
  return run.events!.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** Where two logs first differ (for the failure message). */
function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  const k = la.findIndex((line, i) => line !== lb[i]);
  return k < 0 ? `same lines, lengths ${a.length} and ${b.length}` : `line ${k + 1}: scan ${la[k]} / index ${lb[k]}`;
}

describe('the pod index and the scan give the same event logs', async () => {
  const { wasm, ts } = await engines();
  // Short form: the first 250 of the trace's 1,213 nodes (the run arrives pods until they fill them:
  // 1,300 to 1,550 placed, a policy).
  const fleet = depth(nodes.slice(0, 250), nodes);
  const runs = DEEP ? POLICIES.flatMap((p) => TRACES.map((trace) => ({ policy: p.name, trace }))) : POLICIES.map((p, i) => ({ policy: p.name, trace: TRACES[i % TRACES.length]! }));
  it.each(runs)(DEEP ? '$policy on openb $trace, wasm and ts' : '$policy on openb $trace', ({ policy, trace }) => {
    const pods = parsePodCsv(trace, data(`openb_pod_list_${trace}.csv`));
    // Short form: the backends taken in turn (their parity is tested on these traces elsewhere).
    for (const engine of DEEP ? [wasm, ts] : [[wasm, ts][runs.findIndex((r) => r.policy === policy && r.trace === trace) % 2]!]) {
      const scan = eventLog(engine, fleet, pods, policy, 42, 'scan');
      const index = eventLog(engine, fleet, pods, policy, 42, 'index');
      if (index !== scan) expect.fail(`${engine.backend} ${trace} ${policy}: ${firstDifference(scan, index)}`);
      // A run of the trace places thousands of pods (no vacuous match).
      expect(scan.split('\n').filter((l) => l.includes('"node":"')).length).toBeGreaterThan(depth(1000, 5000));
    }
  });

  const twice = depth(100, nodes.length);
  it(`the first ${twice} nodes ×2 (copies tie on every score), fgd-close, wasm and ts`, () => {
    const scaled = scaleTrace(nodes.slice(0, twice), parsePodCsv('default', data('openb_pod_list_default.csv')), 2);
    for (const engine of [wasm, ts]) {
      const scan = eventLog(engine, scaled.nodes, scaled.pods, 'fgd-close', 7, 'scan');
      const index = eventLog(engine, scaled.nodes, scaled.pods, 'fgd-close', 7, 'index');
      if (index !== scan) expect.fail(`${engine.backend}: ${firstDifference(scan, index)}`);
      expect(scan.split('\n').filter((l) => l.includes('"node":"')).length).toBeGreaterThan(500);
    }
  });
});
