// Where the replica allocation policy comes from, as NVIDIA's device plugin takes it: the request, else
// the flag --allocation-policy, else GPUALLOC_ALLOCATION_POLICY, else a YAML config file
// (flags.plugin.allocationPolicy), else 'distributed'. Pure: the caller reads files and the environment.
import type { Node as YamlNode } from 'yaml';
import { AllocationError, type AllocationErrorCode, type FilePosition, type PathSegment } from '../shared/errors.js';
import { positionAt } from '../shared/file-positions.js';
import { importOptional } from '../shared/optional.js';
import { didYouMean } from '../shared/suggest.js';
import { describeValue, findUnknownKey, type KeyShape, unknownKeyError } from '../shared/validate.js';
import { DEFAULT_REPLICA_POLICY, REPLICA_POLICIES, type ReplicaPolicy, UPSTREAM_POLICY_ALIASES, upstreamSpellingHint } from './replicas.js';

/** The environment variable that names the policy. */
export const POLICY_ENV_VAR = 'GPUALLOC_ALLOCATION_POLICY';

/** The command-line flag that names the policy. */
export const POLICY_FLAG = '--allocation-policy';

/** Path of the policy inside the YAML config (the device plugin's layout). */
export const POLICY_CONFIG_PATH = 'flags.plugin.allocationPolicy';

/** The device plugin's own spellings of the policies, accepted in its config file only. */
export { UPSTREAM_POLICY_ALIASES };

/**
 * Every key of the device plugin's config file (k8s-device-plugin, api/config/v1), plus
 * flags.plugin.allocationPolicy, the key gpualloc reads. Any other key is an error naming it.
 */
export const DEVICE_PLUGIN_CONFIG_KEYS: KeyShape = {
  version: null,
  flags: {
    migStrategy: null,
    failOnInitError: null,
    mpsRoot: null,
    nvidiaDriverRoot: null,
    nvidiaDevRoot: null,
    gdsEnabled: null,
    mofedEnabled: null,
    useNodeFeatureAPI: null,
    deviceDiscoveryStrategy: null,
    plugin: { passDeviceSpecs: null, deviceListStrategy: null, deviceIDStrategy: null, cdiAnnotationPrefix: null, nvidiaCTKPath: null, containerDriverRoot: null, allocationPolicy: null },
    gfd: { oneshot: null, noTimestamp: null, sleepInterval: null, outputFile: null, machineTypeFile: null },
  },
  resources: { gpus: { pattern: null, name: null }, mig: { pattern: null, name: null } },
  sharing: {
    timeSlicing: { renameByDefault: null, failRequestsGreaterThanOne: null, resources: { name: null, rename: null, devices: null, replicas: null } },
    mps: { renameByDefault: null, failRequestsGreaterThanOne: null, resources: { name: null, rename: null, devices: null, replicas: null } },
  },
  imex: { channelIDs: null, required: null },
};

/** Where the node at `path` (a key, or an item of a sequence) starts in the YAML text. */
function _yamlPosition(yaml: Pick<typeof import('yaml'), 'isMap' | 'isScalar' | 'isSeq'>, text: string, root: unknown, path: readonly PathSegment[]): FilePosition | undefined {
  const { isMap, isScalar, isSeq } = yaml;
  let node = root as YamlNode | null | undefined;
  let offset: number | undefined;
  for (const seg of path) {
    if (isMap(node) && typeof seg === 'string') {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (pair === undefined) break;
      if (isScalar(pair.key) && pair.key.range) offset = pair.key.range[0];
      node = pair.value as YamlNode | null;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as YamlNode | undefined;
      if (item === undefined) break;
      if (item.range) offset = item.range[0];
      node = item;
    } else break;
  }
  return offset === undefined ? undefined : positionAt(text, offset);
}

/** Which setting decided the policy, highest precedence first. */
export type PolicySource = 'request' | 'flag' | 'env' | 'config' | 'default';

/** Every place a policy may come from; absent ones are skipped. */
export type PolicySettings = {
  /** The request's own `policy` field. */
  request?: unknown;
  /** What messages call the request's policy (default `policy (request)`; the CLI says `--policy`). */
  requestName?: string;
  /** Value of --allocation-policy. */
  flag?: string;
  /** The environment (only GPUALLOC_ALLOCATION_POLICY is read; an empty value counts as unset). */
  env?: Readonly<Record<string, string | undefined>>;
  /** A YAML config file's text and a name for it in messages (such as its path as given). */
  config?: { text: string; origin: string };
};

/** The resolved policy, which setting decided it, and that setting's name for messages. */
export type ResolvedPolicy = { policy: ReplicaPolicy; source: PolicySource; origin: string };

/** Where a policy setting stands: a file (origin, position) and a field, or a name it is said by (`--policy`). */
type _Where = { origin?: string; position?: FilePosition; path: string; said?: string };

/** `config file X:3:5: flags.plugin.allocationPolicy`, `--policy`: how messages start for `where`. */
function _whereText(where: _Where): string {
  const place = where.origin === undefined ? undefined : where.position === undefined ? where.origin : `${where.origin}:${where.position.line}:${where.position.column}`;
  const said = where.said ?? where.path;
  return place === undefined ? said : `${place}: ${said}`;
}

function _invalid(code: AllocationErrorCode, where: _Where, expected: string, value: unknown, hint = ''): never {
  const received = describeValue(value);
  throw AllocationError.of(code, { ...where, detail: `expected ${expected}, got ${received}${hint}`, expected, received, details: { where: _whereText(where) } });
}

const EXPECTED_POLICY = `one of ${REPLICA_POLICIES.map((p) => `'${p}'`).join(', ')}`;

/**
 * A policy name from `where`; unknown names throw UNKNOWN_POLICY naming `where` and the closest
 * policy, non-strings `nonString`. `aliases`: the upstream spellings this setting also accepts.
 */
function _policy(where: _Where, value: unknown, nonString: AllocationErrorCode, aliases: Readonly<Record<string, ReplicaPolicy>> = {}): ReplicaPolicy {
  if (typeof value !== 'string') _invalid(nonString, where, EXPECTED_POLICY, value);
  if (Object.prototype.hasOwnProperty.call(aliases, value)) return aliases[value]!;
  if (!(REPLICA_POLICIES as readonly string[]).includes(value)) _invalid('UNKNOWN_POLICY', where, EXPECTED_POLICY, value, upstreamSpellingHint(value) || didYouMean(value, REPLICA_POLICIES));
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
export async function policyFromConfig(text: string, origin: string): Promise<ReplicaPolicy | undefined> {
  // yaml is an optional peer dependency (only this file format needs it).
  const { isMap, isScalar, isSeq, parseDocument } = await importOptional('yaml', 'a device-plugin policy file (YAML)', () => import('yaml'));
  const doc = parseDocument(text, { uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const at = syntax.linePos?.[0];
    const first = (syntax.message ?? String(syntax)).split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw AllocationError.of('INVALID_CONFIG', {
      origin: `config file ${origin}`,
      ...(at === undefined ? {} : { position: { line: at.line, column: at.col } }),
      detail: `not valid YAML: ${first}`,
      cause: syntax,
    });
  }
  const root: unknown = doc.toJS();
  const at = (path: readonly PathSegment[]): Pick<_Where, 'origin' | 'position'> => {
    const position = _yamlPosition({ isMap, isScalar, isSeq }, text, doc.contents, path);
    return { origin: `config file ${origin}`, ...(position === undefined ? {} : { position }) };
  };
  const unknown = findUnknownKey(root, DEVICE_PLUGIN_CONFIG_KEYS);
  if (unknown !== undefined) throw unknownKeyError('INVALID_CONFIG', unknown).restated(at(unknown.path));
  if (root === null || root === undefined) return undefined;
  let node: unknown = root;
  const path: string[] = [];
  for (const key of ['flags', 'plugin']) {
    if (!_mapping(node)) _invalid('INVALID_CONFIG', { ...at(path), path: path.join('.') || 'config', ...(path.length === 0 ? { said: '(top level)' } : {}) }, 'a mapping', node);
    node = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
    path.push(key);
    if (node === undefined || node === null) return undefined;
  }
  if (!_mapping(node)) _invalid('INVALID_CONFIG', { ...at(path), path: path.join('.') }, 'a mapping', node);
  const value = Object.prototype.hasOwnProperty.call(node, 'allocationPolicy') ? node.allocationPolicy : undefined;
  if (value === undefined || value === null) return undefined;
  return _policy({ ...at([...path, 'allocationPolicy']), path: POLICY_CONFIG_PATH }, value, 'INVALID_CONFIG', UPSTREAM_POLICY_ALIASES);
}

/**
 * Resolves the policy: request, else flag, else environment, else config file, else 'distributed'.
 * Every setting that is given is checked, even when a higher one decides, so a bad value anywhere is
 * an AllocationError (UNKNOWN_POLICY or INVALID_CONFIG) whose message says where it came from.
 */
export async function resolveAllocationPolicy(settings: PolicySettings = {}): Promise<ResolvedPolicy> {
  const found: ResolvedPolicy[] = [];
  if (settings.request !== undefined) {
    const said = settings.requestName ?? 'policy (request)';
    found.push({ policy: _policy({ path: 'policy', said }, settings.request, 'UNKNOWN_POLICY'), source: 'request', origin: settings.requestName ?? 'the request' });
  }
  if (settings.flag !== undefined) found.push({ policy: _policy({ path: 'allocationPolicy', said: POLICY_FLAG }, settings.flag, 'UNKNOWN_POLICY'), source: 'flag', origin: POLICY_FLAG });
  const envValue = settings.env?.[POLICY_ENV_VAR];
  if (envValue !== undefined && envValue !== '') {
    found.push({ policy: _policy({ path: POLICY_ENV_VAR, said: `environment variable ${POLICY_ENV_VAR}` }, envValue, 'UNKNOWN_POLICY'), source: 'env', origin: POLICY_ENV_VAR });
  }
  if (settings.config !== undefined) {
    const policy = await policyFromConfig(settings.config.text, settings.config.origin);
    if (policy !== undefined) found.push({ policy, source: 'config', origin: `${settings.config.origin} (${POLICY_CONFIG_PATH})` });
  }
  return found[0] ?? { policy: DEFAULT_REPLICA_POLICY, source: 'default', origin: 'the default' };
}
