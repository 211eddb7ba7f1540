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
  CONFLICT: 'ClusterState.commit: the option no longer fits the current state; release with idleBefore: the slot was active since; nothing was changed',
  INTERNAL: 'the WebAssembly core trapped; the core was re-instantiated and the next call works',
  INVALID_TRACE: 'a trace CSV file is malformed (the message names the file, line and column)',
  STATE_LOCKED: 'a change to a state file (plan --commit, state release/stale/gc): another running process held FILE.lock (flock) for the whole wait; nothing was read or written',
  LOCK_UNAVAILABLE: 'a state file lock needs flock(2) through koffi, which this platform lacks (Windows) or cannot load; nothing was read or written',
  STORE_UNAVAILABLE:
    "a cluster store cannot be reached or written (PostgreSQL down, timed out or refusing; a state file's disk full or read-only), or has a newer schema than this package; the message says whether anything may have changed",
  DRA_REJECTED:
    "allocateClaims: well-formed objects that Kubernetes' allocator refuses (an unknown device class, a CEL error, a claim over 32 results, invalid resource pools, an unsupported request, selector or constraint type); the message carries upstream's wording",
  MISSING_DEPENDENCY:
    "a feature needs an optional package that is not installed (pg for PostgresStore, koffi for NVML and state-file locks, yaml / smol-toml for the CLI's policy and config files); the message names the package to install",
  STORE_NOT_EMPTY: 'a cluster store already holds nodes and the call would replace them (pass replace to do so)',
} as const;

/** A stable error code; see ERROR_CODES for what each one means. */
export type AllocationErrorCode = keyof typeof ERROR_CODES;

/** One step of a path into an input: a key, or an array index. */
export type PathSegment = string | number;

/** A place in a file's text, 1-based. */
export type FilePosition = { line: number; column: number };

/**
 * A piece of an error's detail: text, or a mention of a field (said by its path, or by whatever
 * name a renderer gives that field, such as a command-line flag).
 */
export type DetailPart = string | { readonly field: readonly PathSegment[] };

/** A path as messages write it: `agents[0].allocations.cuda`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** Splits a path as messages write it (`gpus[3].memoryTotal`) into segments. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!); // one of the two alternatives matched
  return out;
}

/**
 * What an error says, in parts: `ORIGIN[:LINE:COL]: FIELD: DETAIL (NOTE) (NOTE)`. Each part is kept
 * on the error, so a renderer (the CLI's) can say the same error with a flag for the field or a
 * file's line and column for the origin without reading the message back.
 */
export type ErrorParts = {
  /** The input the error is about, said first: a file name, `state`, `store FILE`. */
  origin?: string;
  /** Where in `origin` (a file's text): said as `ORIGIN:LINE:COL`. */
  position?: FilePosition;
  /** The field at fault, as path segments or as messages write it (`gpus[3].memoryTotal`). */
  path?: string | readonly PathSegment[];
  /** How the field is said, when not by its path (a command-line flag such as `--size`). */
  said?: string;
  /** What is wrong: said after the field, `FIELD: DETAIL`. */
  detail: string | readonly DetailPart[];
  /** No `FIELD: ` before the detail: the detail names the field itself (`unknown key gpus[3].x …`), or the origin stands for it (a file the field gave). */
  named?: boolean;
  /** What the field should have been (`an integer in [1, 64]`), when the detail is `expected …, got …`. */
  expected?: string;
  /** The value it had, as messages show it (`99`, `"nope"`). */
  received?: string;
  /** Remarks said last, each in parentheses: `(the file was left untouched)`. */
  notes?: readonly string[];
  /** Extra structured detail (offending IDs, agents, sizes). */
  details?: Record<string, unknown>;
  cause?: unknown;
};

/** Changes to an error's parts (AllocationError.restated); `notes` are added to the error's own. */
export type ErrorChanges = Partial<Omit<ErrorParts, 'detail' | 'cause'>> & { code?: AllocationErrorCode; detail?: ErrorParts['detail']; mentions?: (path: readonly PathSegment[]) => string };

/** The detail's text, with each mentioned field said by `say`. */
function _detailText(detail: readonly DetailPart[], say: (path: readonly PathSegment[]) => string): string {
  let text = '';
  for (const part of detail) text += typeof part === 'string' ? part : say(part.field);
  return text;
}

/** Thrown for malformed input; infeasible requests never throw, they return an empty result with a reason. */
export class AllocationError extends Error {
  /** Stable machine-readable code, one of ERROR_CODES. */
  readonly code: AllocationErrorCode;
  /** The offending field's path as messages write it, such as `gpus[3].memoryTotal`, when one field is to blame. */
  readonly field?: string;
  /** The same path in segments (`['gpus', 3, 'memoryTotal']`). */
  readonly path?: readonly PathSegment[];
  /** What the field should have been, when the error is `expected …, got …`. */
  readonly expected?: string;
  /** The value the field had, as the message shows it. */
  readonly received?: string;
  /** The input the error is about (a file name, `state`), as the message starts. */
  readonly origin?: string;
  /** Where in that input (a file's line and column). */
  readonly position?: FilePosition;
  /** What is wrong with the field, in parts (absent for an error made from a message alone). */
  readonly detail?: readonly DetailPart[];
  /** Whether the detail names the field itself. */
  readonly named?: boolean;
  /** How the message says the field, when not by its path (a flag). */
  readonly said?: string;
  /** Remarks said after the detail. */
  readonly notes?: readonly string[];
  /** Extra structured detail (offending IDs, agents, sizes). */
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: AllocationErrorCode, message: string, options: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AllocationError';
    this.code = code;
    if (options.field !== undefined) {
      this.field = options.field;
      this.path = Object.freeze(parsePath(options.field));
    }
    if (options.details !== undefined) this.details = Object.freeze({ ...options.details });
  }

  /**
   * An error from its parts (see ErrorParts): the message is `ORIGIN[:LINE:COL]: FIELD: DETAIL (NOTES)`,
   * each piece present only when given.
   */
  static of(code: AllocationErrorCode, parts: ErrorParts): AllocationError {
    const path = parts.path === undefined ? undefined : typeof parts.path === 'string' ? parsePath(parts.path) : [...parts.path];
    const field = parts.path === undefined ? undefined : typeof parts.path === 'string' ? parts.path : formatPath(path!);
    const detail: DetailPart[] = typeof parts.detail === 'string' ? [parts.detail] : [...parts.detail];
    let message = _detailText(detail, formatPath);
    const said = parts.said ?? field;
    if (said !== undefined && said !== '' && parts.named !== true) message = `${said}: ${message}`;
    if (parts.origin !== undefined) message = `${parts.position === undefined ? parts.origin : `${parts.origin}:${parts.position.line}:${parts.position.column}`}: ${message}`;
    for (const note of parts.notes ?? []) message += ` (${note})`;
    const error = new AllocationError(code, message, {
      ...(field === undefined || field === '' ? {} : { field }),
      ...(parts.details === undefined ? {} : { details: parts.details }),
      ...(parts.cause === undefined ? {} : { cause: parts.cause }),
    });
    const self = error as { -readonly [K in keyof AllocationError]: AllocationError[K] };
    if (path !== undefined) self.path = Object.freeze(path);
    self.detail = Object.freeze(detail);
    if (parts.named === true) self.named = true;
    if (parts.said !== undefined) self.said = parts.said;
    if (parts.expected !== undefined) self.expected = parts.expected;
    if (parts.received !== undefined) self.received = parts.received;
    if (parts.origin !== undefined) self.origin = parts.origin;
    if (parts.position !== undefined) self.position = { ...parts.position };
    if (parts.notes !== undefined && parts.notes.length > 0) self.notes = Object.freeze([...parts.notes]);
    return error;
  }

  /** `FIELD: DETAIL` for one field: AllocationError.of(code, { path: field, detail, ...more }). */
  static at(code: AllocationErrorCode, field: string | readonly PathSegment[], detail: string | readonly DetailPart[], more: Omit<ErrorParts, 'path' | 'detail'> = {}): AllocationError {
    return AllocationError.of(code, { ...more, path: field, detail });
  }

  /** This error's parts (its message as the detail when it was made from a message alone). */
  parts(): ErrorParts {
    return {
      ...(this.origin === undefined ? {} : { origin: this.origin }),
      ...(this.position === undefined ? {} : { position: this.position }),
      ...(this.path === undefined ? {} : { path: this.path }),
      // An error made from a message alone: the message is the detail, and it names its field itself.
      ...(this.detail === undefined ? { detail: this.message, named: true } : { detail: this.detail }),
      ...(this.named === true ? { named: true } : {}),
      ...(this.said === undefined ? {} : { said: this.said }),
      ...(this.expected === undefined ? {} : { expected: this.expected }),
      ...(this.received === undefined ? {} : { received: this.received }),
      ...(this.notes === undefined ? {} : { notes: this.notes }),
      ...(this.details === undefined ? {} : { details: { ...this.details } }),
    };
  }

  /**
   * The same error with some parts changed (a code, an origin and position, a path) and notes added;
   * `mentions` says each field the detail mentions (a flag for an API field). This error becomes the cause.
   */
  restated(changes: ErrorChanges): AllocationError {
    const parts = this.parts();
    const { code, mentions, notes, ...rest } = changes;
    let detail = rest.detail ?? parts.detail;
    if (mentions !== undefined && typeof detail !== 'string') detail = _detailText(detail, mentions);
    return AllocationError.of(code ?? this.code, { ...parts, ...rest, detail, notes: [...(parts.notes ?? []), ...(notes ?? [])], cause: this });
  }

  /** A plain object for `--json` output: `{ code, message, field? }`. */
  toJSON(): { code: string; message: string; field?: string } {
    return this.field === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, field: this.field };
  }
}

/** Why a well-formed request could not be satisfied (returned, never thrown). */
export type Reason = { code: ReasonCode; message: string };

/** Reason codes of infeasible results. */
export const REASON_CODES = {
  INSUFFICIENT_DEVICES: 'fewer candidate devices than the request needs',
  REQUIRED_NOT_AVAILABLE: 'a required device is not available',
  TOO_MANY_REQUIRED: 'more devices are required than the request size',
  NO_VIABLE_OPTION: 'no GPU set has room for the model, even after allowed evictions',
  INSUFFICIENT_MEMORY: 'a GPU lacks the memory for its share of the model',
  GPU_TOO_SMALL: 'a GPU is smaller than the per-GPU share even when empty',
  GPU_LOST: 'a GPU was reported lost by the driver',
  MIG_MODE: 'a GPU is in MIG mode: whole-GPU picks leave it out unless the request allows MIG GPUs (its slices are allocated with replicas)',
  CONFLICT: 'commitWithRetry: every attempt lost the race to another writer (each plan no longer fitted when committed)',
  NO_NODE_FITS: 'no node has the CPU, host memory and GPUs (share, count, model) the pod asks for at once',
  UNSCHEDULABLE: 'Kubernetes DRA: the ResourceClaims cannot all be allocated on the node (or on any node of the cluster)',
} as const;

/** A reason code, one of REASON_CODES. */
export type ReasonCode = keyof typeof REASON_CODES;

/** A reason whose code is `C` (a code of REASON_CODES, checked at build time). */
export type ReasonOf<C extends ReasonCode> = { code: C; message: string };
