// ClusterState: plan and commit placements across nodes without over-scheduling (issue 5; placeholder).
import type { Kernels } from './kernels.js';

/** Initial nodes of a cluster state. */
export type ClusterInit = { nodes: Array<{ id: string; gpus: Array<{ index: number; memoryTotal: number }>; topology?: unknown; slots?: unknown[] }> };

/** Holds GPUs and slots of one or many nodes. */
export class ClusterState {
  private constructor() {}
  /** Creates a state. */
  static create(_kernels: Kernels, _init: ClusterInit): ClusterState {
    throw new Error('ClusterState: not built yet (issue 5)');
  }
  /** Restores a state from toJSON's output. */
  static restore(_kernels: Kernels, _json: unknown): ClusterState {
    throw new Error('ClusterState: not built yet (issue 5)');
  }
}
