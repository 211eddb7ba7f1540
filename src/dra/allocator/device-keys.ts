// Candidates as text, for grouping interchangeable devices (symmetry.ts): the part of a device that
// does not change between calls on one node, kept by the objective's per-node set-up.
import type { AllocationModel } from '../model/index.js';

/** JSON of a value with bigints (int attributes) as text; equal text means equal fields. */
export function keyOf(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Each candidate's fields but its name and attributes, with its pool and slice placement, as text (what does not change between calls on one node). */
export function deviceFieldKeys(model: AllocationModel): string[] {
  return model.candidates.map((c) => {
    const { name: _name, attributes: _attributes, ...fields } = c.device;
    const s = c.slice;
    return keyOf([c.pool.id, s.nodeName, s.nodeSelector, s.allNodes, s.perDeviceNodeSelection, fields]);
  });
}

/**
 * What a node's set-up keeps for the classes: each candidate's fields as text, and per set of
 * attribute names read, each candidate's key without its allocated state (the last few sets).
 */
export interface SymmetryKeys {
  fieldKeys: readonly string[];
  byRead: Map<string, string[]>;
}
