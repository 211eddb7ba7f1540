/**
 * Every error code the engine throws, with what it means. One list, imported everywhere a code is
 * used; the README's error table is generated from the same descriptions.
 */
export const ERROR_CODES = {
  INVALID_ARGUMENT: 'a field has the wrong type, shape or range (the message names the field and the value)',
  LIMIT_EXCEEDED: 'an input is larger than the documented limits (see LIMITS)',
  UNKNOWN_POLICY: 'a policy name is not one of the documented policies',
  UNKNOWN_DEVICE_NAME: 'splitDevices: a device name that the host does not have',
  UNKNOWN_DEVICE_ID: 'a device ID or GPU index that is not part of the input',
  DUPLICATE_DEVICE: 'a device ID or GPU index appears twice where each must be unique',
  DEVICE_ASSIGNED_TWICE: 'splitDevices manual mode: one device given to two agents',
  MISSING_AGENT: 'splitDevices manual mode: an agent has no entry in `manual`',
  UNKNOWN_AGENT: 'splitDevices manual mode: `manual` names an agent that is not in `agents`',
  DUPLICATE_AGENT: 'splitDevices: an agent ID appears twice in `agents`',
  OVERALLOCATED: 'splitDevices manual mode: shared amounts add up to more than is available',
  INVALID_AMOUNT: 'an amount is negative, fractional or not a number',
  REQUIRED_NOT_AVAILABLE: 'a required device is not among the available ones',
  TOO_MANY_REQUIRED: '`required` lists more devices than the request size',
  INVALID_TOPOLOGY: 'a topology or inventory is malformed (unknown indices, duplicates, asymmetric links)',
  INVALID_INVENTORY: 'an inventory file does not match the schema (the message names the path of the bad field)',
  INVALID_STATE: 'a saved cluster state is corrupted, truncated or inconsistent',
  INVALID_CONFIG: 'a configuration file or setting is malformed (the message names where it came from)',
  INVALID_GGUF: 'a GGUF file is not GGUF, is truncated, has an unsupported version or lacks a needed key',
  UNKNOWN_PRESET: 'a preset name that is not built in',
  UNKNOWN_SLOT: 'ClusterState: a slot ID that is not in the state',
  UNKNOWN_NODE: 'ClusterState: a node ID that is not in the state',
  DUPLICATE_SLOT: 'a slot ID appears twice (slot IDs are unique across a node or a ClusterState)',
  OVERSCHEDULED: 'ClusterState: the given slots put more memory on a GPU than it has',
  CONFLICT: 'ClusterState.commit: the option no longer fits the current state; nothing was changed',
  INTERNAL: 'the WebAssembly core trapped; the core was re-instantiated and the next call works',
  INVALID_TRACE: 'a trace CSV file is malformed (the message names the file, line and column)',
  STATE_LOCKED: 'a change to a state file (plan --commit, state release/stale/gc): another running process held FILE.lock (flock) for the whole wait; nothing was read or written',
  LOCK_UNAVAILABLE: 'a state file lock needs flock(2) through koffi, which this platform lacks (Windows) or cannot load; nothing was read or written',
  STORE_UNAVAILABLE: 'a cluster store cannot be reached or written (PostgreSQL down, timed out or refusing; a state file\'s disk full or read-only), or has a newer schema than this package; the message says whether anything may have changed',
  DRA_REJECTED: "allocateClaims: well-formed objects that Kubernetes' allocator refuses (an unknown device class, a CEL error, a claim over 32 results, invalid resource pools, an unsupported request, selector or constraint type); the message carries upstream's wording",
  STORE_NOT_EMPTY: 'a cluster store already holds nodes and the call would replace them (pass replace to do so)',
} as const;

/** A stable error code; see ERROR_CODES for what each one means. */
export type AllocationErrorCode = keyof typeof ERROR_CODES;

/** Thrown for malformed input; infeasible requests never throw, they return an empty result with a reason. */
export class AllocationError extends Error {
  /** Stable machine-readable code, one of ERROR_CODES. */
  readonly code: AllocationErrorCode;
  /** The offending field's path, such as `gpus[3].memoryTotal`, when one field is to blame. */
  readonly field?: string;
  /** Extra structured detail (offending IDs, agents, sizes). */
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: AllocationErrorCode, message: string, options: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AllocationError';
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
    if (options.details !== undefined) this.details = Object.freeze({ ...options.details });
  }

  /** A plain object for `--json` output: `{ code, message, field? }`. */
  toJSON(): { code: string; message: string; field?: string } {
    return this.field === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, field: this.field };
  }
}

/** Why a well-formed request could not be satisfied (returned, never thrown). */
export type Reason = { code: string; message: string };

/** Reason codes of infeasible results. */
export const REASON_CODES = {
  INSUFFICIENT_DEVICES: 'fewer candidate devices than the request needs',
  REQUIRED_NOT_AVAILABLE: 'a required device is not available',
  TOO_MANY_REQUIRED: 'more devices are required than the request size',
  NO_VIABLE_OPTION: 'no GPU set has room for the model, even after allowed evictions',
  INSUFFICIENT_MEMORY: 'a GPU lacks the memory for its share of the model',
  GPU_TOO_SMALL: 'a GPU is smaller than the per-GPU share even when empty',
  GPU_LOST: 'a GPU was reported lost by the driver',
  NO_NODE_FITS: 'no node has the CPU, host memory and GPUs (share, count, model) the pod asks for at once',
} as const;
