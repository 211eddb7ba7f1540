// Node labels (Kubernetes' syntax): what a cluster node, an inventory and a topology constraint
// name, such as `nvidia.com/gpu.clique` or `topology.kubernetes.io/zone`. Checked once, here.

import { parsePath } from './errors.js';
import { fail, requireObject, requireString } from './validate.js';

/** A node's labels: key → value, as Kubernetes writes them. */
export type Labels = Record<string, string>;

/** Most labels on one node. */
export const MAX_LABELS = 64;

/** A label name (the part after an optional `prefix/`): 1-63 alphanumerics, `-`, `_`, `.`, alphanumeric at both ends. */
const NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A label key's prefix: a DNS subdomain of at most 253 characters. */
const PREFIX = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
/** A label value: empty, or like a name. */
const VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Why `key` is not a label key (Kubernetes' rule), or undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) return 'a label key whose prefix (before /) is a DNS subdomain of at most 253 characters';
  if (!NAME.test(name)) return 'a label key: [prefix/]name, the name 1-63 letters, digits, -, _ or ., starting and ending with a letter or digit';
  return undefined;
}

/** A label key, checked (INVALID_ARGUMENT naming `field`). */
export function requireLabelKey(field: string, value: unknown): string {
  const key = requireString(field, value, 317, true);
  const problem = labelKeyProblem(key);
  if (problem !== undefined) fail('INVALID_ARGUMENT', field, problem, key);
  return key;
}

/** A node's labels, checked and copied (keys in the order given); the field of a bad key or value is named. */
export function requireLabels(field: string, value: unknown): Labels {
  const o = requireObject(field, value);
  const keys = Object.keys(o);
  if (keys.length > MAX_LABELS) fail('LIMIT_EXCEEDED', field, `at most ${MAX_LABELS} labels`, `${keys.length} labels`);
  const out: Labels = {};
  for (const key of keys) {
    const problem = labelKeyProblem(key);
    if (problem !== undefined) fail('INVALID_ARGUMENT', `${field}`, problem, key);
    // A key such as nvidia.com/gpu.clique holds dots: the path names it as one segment.
    const at = [...parsePath(field), key];
    const v = o[key];
    if (typeof v !== 'string') fail('INVALID_ARGUMENT', at, 'a string', v);
    if (!VALUE.test(v)) fail('INVALID_ARGUMENT', at, 'a label value: at most 63 letters, digits, -, _ or ., starting and ending with a letter or digit', v);
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
