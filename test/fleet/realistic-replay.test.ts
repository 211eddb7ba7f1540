// The realistic fleet of bench/fleet.bench.ts (bench/fleet-realistic.ts): a valid state with a
// topology on every multi-GPU node, GPUs partly used by other processes and models already placed;
// replaying pods on it through the pod scheduler and state.commit gives the same choices on both
// backends, never over-allocates, and never puts a whole-GPU pod on a GPU that others use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realisticNodes, replay } from '../../bench/fleet-realistic.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const podsFile = join(ROOT, 'data/openb/openb_pod_list_default.csv');
// A slice of the trace: 120 nodes and the pods that fill them past 100 %.
const nodes = validateNodes('nodes', parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')).slice(0, 120));
const pods = validatePods('pods', parsePodCsv(podsFile, readFileSync(podsFile, 'utf8')).slice(0, 900));

describe('fleet: the realistic bench state', () => {
  it('has a topology on every multi-GPU node, used memory on some GPUs and models on every tenth node', () => {
    const real = realisticNodes(nodes, 7);
    expect(real.map((n) => n.id)).toEqual(nodes.map((n) => n.id));
    for (const [k, n] of real.entries()) {
      if (n.gpus.length > 1) expect(n.topology?.gpus).toBe(n.gpus.length);
      expect(n.slots !== undefined).toBe(k % 10 === 0 && n.gpus.length > 0);
    }
    const gpus = real.flatMap((n) => n.gpus);
    const used = gpus.filter((g) => (g.memoryUsed ?? 0) > 0).length;
    expect(used).toBeGreaterThan(gpus.length * 0.15);
    expect(used).toBeLessThan(gpus.length * 0.35);
    // Deterministic for the seed.
    expect(realisticNodes(nodes, 7)).toEqual(real);
  });

  it('replays to the same state on both backends without over-allocating', async () => {
    const { wasm, ts } = await engines();
    const a = replay(wasm, realisticNodes(nodes, 7), nodes, pods, 'fgd-close', 42);
    const b = replay(ts, realisticNodes(nodes, 7), nodes, pods, 'fgd-close', 42);
    expect(a.placed).toBeGreaterThan(0);
    expect(a.failed).toBeGreaterThan(0);
    expect(b.state.toJSON()).toEqual(a.state.toJSON());
    const json = a.state.toJSON();
    // restore re-checks every GPU, CPU and host-memory total (OVERSCHEDULED otherwise).
    expect(() => wasm.restoreClusterState(json)).not.toThrow();
    const byId = new Map(realisticNodes(nodes, 7).map((n) => [n.id, n]));
    for (const node of json.nodes) {
      const used = new Set(
        byId
          .get(node.id)!
          .gpus.filter((g) => (g.memoryUsed ?? 0) > 0)
          .map((g) => g.index),
      );
      for (const slot of node.slots) if (slot.milli === 1000) for (const g of slot.gpus) expect(used.has(g)).toBe(false);
    }
  });
});
