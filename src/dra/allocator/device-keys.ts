// Candidates as text, for grouping interchangeable devices (symmetry.ts): the part of a device that
// does not change between calls on one node (or on any node of a class), kept by the objective's set-up.
import type { AllocationModel } from '../model/index.js';

/** JSON of a value with bigints (int attributes) as text; equal text means equal fields. */
export function keyOf(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/**
 * Each candidate's fields but its name and attributes, with its pool (by position) and slice
 * placement, as text: what does not change between calls on one node. A slice naming the node
 * itself is written without the name, so nodes with the same devices get the same keys.
 */
export function deviceFieldKeys(model: AllocationModel): string[] {
  return model.candidates.map((c) => {
    const { name: _name, attributes: _attributes, ...fields } = c.device;
    const s = c.slice;
    return keyOf([c.poolIndex, s.nodeName === model.node.name ? '' : s.nodeName, s.nodeSelector, s.allNodes, s.perDeviceNodeSelection, fields]);
  });
}

/**
 * What a set-up keeps for the classes: each candidate's fields as text, per set of attribute names
 * read each candidate's class without its allocated state (the last few sets), and the names each
 * selector expression may read.
 */
export interface SymmetryKeys {
  fieldKeys: readonly string[];
  /** Per set of attribute names read: each candidate's static class (equal numbers: same fields and read attributes; -1: a share, a class of its own). */
  byRead: Map<string, Int32Array>;
  /** Per text of what a call's claims read (their selectors and constraint attributes, in order): the static classes byRead gave it (made on first use). */
  byCall?: Map<string, Int32Array>;
  /** namesRead of each selector expression met (undefined: it may read any attribute). */
  namesRead: Map<string, string[] | undefined>;
  /** Attributes whose values may differ between the nodes the keys serve: a call reading one gets keys of its own. */
  varies?: (key: string) => boolean;
  /** Every attribute key the candidates publish, sorted (made on first use): byRead's keys name the ones read. */
  attributeKeys?: readonly string[];
}
