// Where the replica allocation policy comes from, as NVIDIA's device plugin takes it: the request, else
// the flag --allocation-policy, else GPUALLOC_ALLOCATION_POLICY, else a YAML config file
// (flags.plugin.allocationPolicy), else 'distributed'. Pure: the caller reads files and the environment.
import { parse } from 'yaml';
import { AllocationError, type AllocationErrorCode } from './errors.js';
import { describeValue } from './validate.js';
import { DEFAULT_REPLICA_POLICY, REPLICA_POLICIES, type ReplicaPolicy } from './replicas.js';

/** The environment variable that names the policy. */
export const POLICY_ENV_VAR = 'GPUALLOC_ALLOCATION_POLICY';

/** The command-line flag that names the policy. */
export const POLICY_FLAG = '--allocation-policy';

/** Path of the policy inside the YAML config (the device plugin's layout). */
export const POLICY_CONFIG_PATH = 'flags.plugin.allocationPolicy';

/** Which setting decided the policy, highest precedence first. */
export type PolicySource = 'request' | 'flag' | 'env' | 'config' | 'default';

/** Every place a policy may come from; absent ones are skipped. */
export type PolicySettings = {
  /** The request's own `policy` field. */
  request?: unknown;
  /** Value of --allocation-policy. */
  flag?: string;
  /** The environment (only GPUALLOC_ALLOCATION_POLICY is read; an empty value counts as unset). */
  env?: Readonly<Record<string, string | undefined>>;
  /** A YAML config file's text and a name for it in messages (such as its path as given). */
  config?: { text: string; origin: string };
};

/** The resolved policy, which setting decided it, and that setting's name for messages. */
export type ResolvedPolicy = { policy: ReplicaPolicy; source: PolicySource; origin: string };

function _invalid(code: AllocationErrorCode, where: string, field: string, expected: string, value: unknown): never {
  throw new AllocationError(code, `${where}: expected ${expected}, got ${describeValue(value)}`, { field, details: { where } });
}

const EXPECTED_POLICY = `one of ${REPLICA_POLICIES.map((p) => `'${p}'`).join(', ')}`;

/** A policy name from `where`; unknown names throw UNKNOWN_POLICY naming `where`, non-strings `nonString`. */
function _policy(where: string, field: string, value: unknown, nonString: AllocationErrorCode): ReplicaPolicy {
  if (typeof value !== 'string') _invalid(nonString, where, field, EXPECTED_POLICY, value);
  if (!(REPLICA_POLICIES as readonly string[]).includes(value)) _invalid('UNKNOWN_POLICY', where, field, EXPECTED_POLICY, value);
  return value as ReplicaPolicy;
}

function _mapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The policy a device-plugin style YAML config sets at flags.plugin.allocationPolicy, or undefined
 * when it sets none (an empty file, or a missing or null key). Throws INVALID_CONFIG for YAML that
 * does not parse or has the wrong shape, UNKNOWN_POLICY for an unknown name; messages name `origin`.
 */
export function policyFromConfig(text: string, origin: string): ReplicaPolicy | undefined {
  let root: unknown;
  try {
    root = parse(text);
  } catch (cause) {
    const first = ((cause as Error).message ?? String(cause)).split('\n')[0];
    throw new AllocationError('INVALID_CONFIG', `config file ${origin}: not valid YAML: ${first}`, { field: 'config', cause });
  }
  if (root === null || root === undefined) return undefined;
  let node: unknown = root;
  let path = '';
  for (const key of ['flags', 'plugin']) {
    if (!_mapping(node)) _invalid('INVALID_CONFIG', `config file ${origin}: ${path || '(top level)'}`, path || 'config', 'a mapping', node);
    node = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
    path = path ? `${path}.${key}` : key;
    if (node === undefined || node === null) return undefined;
  }
  if (!_mapping(node)) _invalid('INVALID_CONFIG', `config file ${origin}: ${path}`, path, 'a mapping', node);
  const value = Object.prototype.hasOwnProperty.call(node, 'allocationPolicy') ? node.allocationPolicy : undefined;
  if (value === undefined || value === null) return undefined;
  return _policy(`config file ${origin}: ${POLICY_CONFIG_PATH}`, POLICY_CONFIG_PATH, value, 'INVALID_CONFIG');
}

/**
 * Resolves the policy: request, else flag, else environment, else config file, else 'distributed'.
 * Every setting that is given is checked, even when a higher one decides, so a bad value anywhere is
 * an AllocationError (UNKNOWN_POLICY or INVALID_CONFIG) whose message says where it came from.
 */
export function resolveAllocationPolicy(settings: PolicySettings = {}): ResolvedPolicy {
  const found: ResolvedPolicy[] = [];
  if (settings.request !== undefined) found.push({ policy: _policy('policy (request)', 'policy', settings.request, 'UNKNOWN_POLICY'), source: 'request', origin: 'the request' });
  if (settings.flag !== undefined) found.push({ policy: _policy(POLICY_FLAG, 'allocationPolicy', settings.flag, 'UNKNOWN_POLICY'), source: 'flag', origin: POLICY_FLAG });
  const envValue = settings.env?.[POLICY_ENV_VAR];
  if (envValue !== undefined && envValue !== '') {
    found.push({ policy: _policy(`environment variable ${POLICY_ENV_VAR}`, POLICY_ENV_VAR, envValue, 'UNKNOWN_POLICY'), source: 'env', origin: POLICY_ENV_VAR });
  }
  if (settings.config !== undefined) {
    const policy = policyFromConfig(settings.config.text, settings.config.origin);
    if (policy !== undefined) found.push({ policy, source: 'config', origin: `${settings.config.origin} (${POLICY_CONFIG_PATH})` });
  }
  return found[0] ?? { policy: DEFAULT_REPLICA_POLICY, source: 'default', origin: 'the default' };
}
