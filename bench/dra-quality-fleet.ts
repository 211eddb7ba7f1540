// The fleet's FGD policy (src/fleet: the FGD paper's scheduler of fractional GPUs, Weng et al.,
// ATC'23) on the DRA placement-quality streams, where every claim of the stream maps to a fleet pod
// without losing a rule: whole GPUs (`gpu:k`, `example:k`), a share of one GPU by memory
// (`shared:<GiB>`: milli = GiB × 1000 / 80, the GPU's 80 GiB), and a GPU + NIC pair under one PCIe
// root where each root has one GPU and one NIC (`dgx-h100`: a root's NIC is free exactly while its
// GPU is, so the pair is one GPU). A MIG profile has no such pod: the fleet's model has no memory
// slices and no placement rules (a 4g.40gb would fit beside any 3g.40gb), so streams with MIG
// claims get no fleet row. The fleet's nodes are the DRA fleet's (each node's GPUs in minor order,
// 80 GiB each; CPU and host memory untracked), and FGD's typical pods are the stream's shape mix.
import type { Engine } from '../src/engine.js';
import type { Fleet, StreamClaim } from './dra-fleets/index.js';
import { type QualityRun, StreamTally } from './dra-quality-tally.js';

const GIB = 2 ** 30;

/** A fleet pod for a claim's shape (`id` aside), or undefined where the shape has no faithful one on `fleet`. */
export function fleetPodOf(shape: string, fleet: Fleet): { gpus: number; milli: number } | undefined {
  const [kind, arg] = shape.split(':');
  if (kind === 'gpu' || kind === 'example') return { gpus: Number(arg), milli: 1000 };
  if (kind === 'shared') return { gpus: 1, milli: (Number(arg) * 1000) / 80 };
  if (kind === 'pair' && oneGpuPerRoot(fleet)) return { gpus: 1, milli: 1000 };
  return undefined;
}

/** Whether each PCIe root of the fleet holds exactly one GPU (and so, with its NIC, a pair is one GPU). */
function oneGpuPerRoot(fleet: Fleet): boolean {
  const perRoot = new Map<string, number>();
  for (const g of fleet.gpus.values()) perRoot.set(g.root, (perRoot.get(g.root) ?? 0) + 1);
  return [...perRoot.values()].every((n) => n === 1);
}

/** Whether every shape of a mix maps to a fleet pod on `fleet`. */
export function fleetMaps(shapes: readonly string[], fleet: Fleet): boolean {
  return shapes.every((s) => fleetPodOf(s, fleet) !== undefined);
}

/**
 * Replays `stream` on a fresh cluster state of `engine` with the `fgd` pod scheduler (typical pods:
 * `mix`, each shape its weight in copies): a pod with no plan is skipped, as the protocol skips a
 * claim. Counts as runStream does: GPUs allocated (a share its memory / 80 GiB), claims placed
 * before the first failure, multi-GPU claims across PCIe roots and whether a root with enough
 * untouched GPUs could have held them, µs per claim (plan and commit).
 */
export function runFleetStream(engine: Engine, fleet: Fleet, stream: readonly StreamClaim[], mix: ReadonlyArray<{ shape: string; weight: number }>, seed: number): QualityRun {
  const nodes = fleet.nodes.map((n) => {
    const name = (n.metadata as { name: string }).name;
    const minors = [...fleet.gpus.values()].filter((g) => g.node === name).map((g) => g.minor);
    return { id: name, gpuModel: 'GPU', gpus: minors.sort((a, b) => a - b).map((index) => ({ index, memoryTotal: 80 * GIB })) };
  });
  const state = engine.createClusterState({ nodes });
  // Each shape's pod, mapped once.
  const pods = new Map<string, { gpus: number; milli: number }>();
  const podOf = (shape: string): { gpus: number; milli: number } => {
    let pod = pods.get(shape);
    if (pod === undefined) {
      pod = fleetPodOf(shape, fleet);
      if (pod === undefined) throw new Error(`runFleetStream: shape ${shape} has no fleet pod on ${fleet.name}`);
      pods.set(shape, pod);
    }
    return pod;
  };
  const typical = mix.flatMap((m, i) => Array.from({ length: Math.round(m.weight) }, (_, k) => ({ id: `t-${i}-${k}`, cpu: 0, memoryMiB: 0, ...podOf(m.shape) })));
  const scheduler = state.podScheduler({ policy: 'fgd', typical });
  const tally = new StreamTally(fleet, seed, stream.length);
  try {
    stream.forEach((c, i) => {
      const pod = podOf(c.shape);
      tally.place(c, () => {
        const option = scheduler.plan({ id: `c-${i}`, cpu: 0, memoryMiB: 0, ...pod }).options[0];
        if (option === undefined) return undefined;
        state.commit(option, { id: `c-${i}` });
        return { line: `${option.node}:${option.gpus.join(',')}`, gpus: option.gpus.map((minor) => `${option.node}/${minor}`) };
      });
    });
  } finally {
    scheduler.close();
  }
  return tally.finish();
}
