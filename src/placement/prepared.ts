// A node validated and packed once (Engine.prepare), and the node of a planPlacement request:
// a prepared node with the request's slots, or GPUs, slots and topology validated now.

import type { Topology } from '../hardware/topology.js';
import { AllocationError } from '../shared/errors.js';
import { fail, markEngineOwned, rejectUnknownKeys, requireObject } from '../shared/validate.js';
import { positionMatrix } from './search.js';
import { type NodeGpu, type NodeModel, PREPARE_REQUEST_KEYS, type PrepareRequest } from './types.js';
import { validateCallerSlots, validateNode } from './validate.js';

/** A prepared node's validated node (no slots), pair-score matrix over positions (or null) and GPU indices (slots are validated against them). */
type Packed = { model: NodeModel; matrix: Int32Array | null; indices: ReadonlySet<number> };

/** The key of a prepared node's packed form: module-private, so only requestNode reads it. */
const PACKED = Symbol('packed');

/**
 * A node validated and packed once (Engine.prepare): its GPUs sorted by index, with memoryUsed, its
 * topology and pair-score matrix. Pass it as `node` in planPlacement instead of gpus and topology,
 * as often as needed: the engine does not copy or validate it again (slots, which change, are still
 * validated on every call). Immutable; only Engine.prepare makes one.
 */
export class PreparedNode {
  /** The node's GPUs, sorted by index (memoryUsed only where > 0). */
  readonly gpus: ReadonlyArray<Readonly<NodeGpu>>;
  /** Its validated topology, if any. */
  readonly topology?: Topology;
  /** What planPlacement reads (requestNode), under a key private to this module: not part of the handle. */
  readonly [PACKED]: Packed;

  /** @internal Use Engine.prepare (a handle made any other way is refused). */
  constructor(token: symbol, model: NodeModel) {
    if (token !== _PREPARE) throw new AllocationError('INVALID_ARGUMENT', 'PreparedNode: made by engine.prepare({ gpus, topology }) only', { field: 'node' });
    this[PACKED] = { model, matrix: positionMatrix(model.topology, model.index), indices: new Set(model.index) };
    this.gpus = Object.freeze(
      model.index.map((index, p) => {
        const memoryTotal = model.total[p]!; // the model's per-GPU lists are as long as its index
        const memoryUsed = model.used[p]!;
        const g: NodeGpu = memoryUsed > 0 ? { index, memoryTotal, memoryUsed } : { index, memoryTotal };
        if (model.mig?.[p] === true) g.mig = true;
        return Object.freeze(g);
      }),
    );
    if (model.topology !== undefined) this.topology = model.topology;
    markEngineOwned(this);
    Object.freeze(this);
  }
}

/** Only prepareNode holds it: PreparedNode's constructor refuses any other caller. */
const _PREPARE = Symbol('prepare');

/** Validates a node once into a PreparedNode (errors name `gpus[k].…` and `topology.…`). */
export function prepareNode(request: PrepareRequest): PreparedNode {
  const r = requireObject('request', request);
  rejectUnknownKeys('', r, PREPARE_REQUEST_KEYS);
  return new PreparedNode(_PREPARE, validateNode(r.gpus, undefined, r.topology, ''));
}

/** The node of a request: a prepared node (`node`) with the request's slots, or gpus / slots / topology validated now. */
export function requestNode(r: Record<string, unknown>): { node: NodeModel; matrix: Int32Array | null } {
  if (r.node === undefined) {
    const base = validateNode(r.gpus, undefined, r.topology, '');
    const node = r.slots === undefined ? base : { ...base, slots: validateCallerSlots(r.slots, 'slots', new Set(base.index)) };
    return { node, matrix: positionMatrix(node.topology, node.index) };
  }
  if (!(r.node instanceof PreparedNode)) fail('INVALID_ARGUMENT', 'node', 'a prepared node (engine.prepare({ gpus, topology }))', r.node);
  const prepared = r.node[PACKED];
  if (r.gpus !== undefined || r.topology !== undefined)
    fail('INVALID_ARGUMENT', r.gpus !== undefined ? 'gpus' : 'topology', 'nothing next to a prepared node (its GPUs and topology are in it)', r.gpus ?? r.topology);
  const slots = r.slots === undefined ? [] : validateCallerSlots(r.slots, 'slots', prepared.indices);
  return { node: { ...prepared.model, slots }, matrix: prepared.matrix };
}
