// JsonFileStore: the state in one JSON file (ClusterState.toJSON, the CLI's --state FILE format),
// changed under FILE.lock (flock) and replaced atomically (withFileLock, writeFileAtomic). Each
// change re-reads the file under the lock into the state's ledger and applies itself through
// ClusterState's own commit checks (checkCommit), so writers in several processes take turns and
// none works from a stale copy. Node only.

import {
  activityTime,
  CLUSTER_STATE_KEYS,
  ClusterState,
  type ClusterStateJSON,
  checkCommit,
  checkIdle,
  type Ledger,
  ledgerJSON,
  normalizeStateJSON,
  restoreLedger,
  stateFileText,
} from '../cluster/state.js';
import type { PlacementOption } from '../placement/index.js';
import { ASYNC_DISPOSE } from '../shared/dispose.js';
import { AllocationError } from '../shared/errors.js';
import { jsonPosition, parseJson } from '../shared/file-positions.js';
import { findUnknownKey, keysOf, readInput, rejectUnknownKeys, requireBoolean, requireInteger, requireObject, requireString, unknownKeyError } from '../shared/validate.js';
import { optionNodes } from './apply.js';
import { fileWriteError, withFileLock, writeFileAtomic } from './file-lock.js';
import { storeCommitOptions, storeReleaseOptions } from './options.js';
import type { ClusterStore, StoreCommitOptions, StoredNode, StoreOutcome, StoreReleaseOptions, StoreSnapshot } from './types.js';

/** Options of JsonFileStore.create. */
export type JsonFileStoreOptions = {
  /** How long a change waits for another process's lock before STATE_LOCKED, in milliseconds (default 10,000). */
  lockTimeoutMs?: number;
};

const OPEN_KEYS = keysOf<JsonFileStoreOptions>()(['lockTimeoutMs']);

/** Options of JsonFileStore.init. */
type InitOptions = { replace?: boolean };

const INIT_KEYS = keysOf<InitOptions>()(['replace']);

/** What JsonFileStore.update's change returns: the state to write (none: the file is left as it is) and a value for the caller. */
export type FileUpdate<T> = { write?: ClusterState | ClusterStateJSON; value: T };

/**
 * A store in one JSON file. Node versions are the file's modification time in microseconds when it
 * was read or written (every node shares it): it only grows while writers take turns under the lock.
 */
export class JsonFileStore implements ClusterStore {
  readonly kind = 'file';
  /** The state file. */
  readonly path: string;
  private readonly lockTimeoutMs: number | undefined;

  private constructor(path: string, lockTimeoutMs: number | undefined) {
    this.path = path;
    this.lockTimeoutMs = lockTimeoutMs;
  }

  /** A store on `path` (nothing is read until used; `init` creates the file). Synchronous, as every create… factory. */
  static create(path: string, options: JsonFileStoreOptions = {}): JsonFileStore {
    const file = requireString('path', path, 10_000);
    const opts = requireObject('options', readInput('options', options));
    rejectUnknownKeys('options', opts, OPEN_KEYS);
    const timeout = opts.lockTimeoutMs === undefined ? undefined : requireInteger('options.lockTimeoutMs', opts.lockTimeoutMs, 0, 3_600_000);
    return new JsonFileStore(file, timeout);
  }

  /** @deprecated The same as JsonFileStore.create (a factory that returns at once is named create…); kept for one release. */
  static open(path: string, options: JsonFileStoreOptions = {}): JsonFileStore {
    return JsonFileStore.create(path, options);
  }

  /** Writes a new state file from a ClusterState or toJSON's output; STORE_NOT_EMPTY when the file exists, unless `replace`. */
  async init(state: ClusterState | ClusterStateJSON, options: InitOptions = {}): Promise<void> {
    let truth: { toJSON(): ClusterStateJSON } = state as ClusterState;
    if (!(state instanceof ClusterState)) {
      const json = normalizeStateJSON(readInput('state', state));
      truth = { toJSON: () => json };
    }
    const opts = requireObject('options', readInput('options', options));
    rejectUnknownKeys('options', opts, INIT_KEYS);
    const replace = opts.replace === undefined ? false : requireBoolean('options.replace', opts.replace);
    await this.locked(undefined, async () => {
      const { stat } = await import('node:fs/promises');
      const exists = await stat(this.path).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      if (exists && !replace) throw new AllocationError('STORE_NOT_EMPTY', `store: ${this.path} already exists; nothing was changed (pass replace to start over)`);
      await writeFileAtomic(this.path, stateFileText(truth));
    });
  }

  async load(): Promise<StoreSnapshot> {
    const { ledger, version } = await this.read();
    return { state: ledgerJSON(ledger), versions: Object.fromEntries(ledger.nodeIds.map((id) => [id, version])) };
  }

  async loadNodes(ids: readonly string[]): Promise<StoredNode[]> {
    const { ledger, version } = await this.read();
    return ids.map((id, k) => {
      const node = ledger.nodeOf.get(id);
      if (node === undefined) throw new AllocationError('UNKNOWN_NODE', `ids[${k}]: node ${JSON.stringify(id)} is not in ${this.path}`, { field: `ids[${k}]` });
      return { id, version, slots: ledger.listSlots(node) };
    });
  }

  /** Commits under the file's lock; `requestId` is checked only (the file is replaced or not before this returns: no ambiguous outcome). */
  async commit(option: PlacementOption, options: StoreCommitOptions = {}): Promise<StoreOutcome> {
    const commitOptions = storeCommitOptions(options);
    return this.locked(options.signal, async () => {
      const { ledger, version } = await this.read();
      const own = optionNodes(option);
      const nodesNow = (ids: readonly string[], v: number): StoredNode[] => ids.map((n) => ({ id: n, version: v, slots: ledger.listSlots(ledger.nodeIndex(n)) }));
      let id: string;
      let touched: string[];
      try {
        const change = checkCommit(ledger, option, commitOptions);
        // The nodes of the slots it evicts too (every part of one across nodes).
        touched = [...new Set([...own, ...[...change.evict].flatMap((e) => ledger.nodesOf(e).map((k) => ledger.nodeIds[k]!))])];
        id = ledger.commit(change);
      } catch (error) {
        if (error instanceof AllocationError && error.code === 'CONFLICT') return { nodes: nodesNow(own, version), error };
        throw error;
      }
      // One durable write for the whole change, however many nodes it spans.
      const written = await this.write(ledger, version);
      return { id, nodes: nodesNow(touched, written) };
    });
  }

  async release(slotId: string, options: StoreReleaseOptions = {}): Promise<StoreOutcome> {
    const opts = storeReleaseOptions(options);
    return this.changeSlot(
      slotId,
      (ledger, id) => {
        checkIdle(ledger.slots.get(id)!.slot, opts);
        ledger.removeSlot(id);
      },
      options.signal,
    );
  }

  async markStale(slotId: string, stale: boolean): Promise<StoreOutcome> {
    const value = requireBoolean('stale', stale);
    return this.changeSlot(slotId, (ledger, id) => ledger.setStale(ledger.slots.get(id)!, value));
  }

  async touch(slotId: string, at: number): Promise<StoreOutcome> {
    const time = activityTime('at', at);
    return this.changeSlot(slotId, (ledger, id) => ledger.touch(ledger.slots.get(id)!, time));
  }

  /** close(), for `await using store = …`. */
  async [ASYNC_DISPOSE](): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    // Nothing is held between calls.
  }

  private async changeSlot(slotId: string, change: (ledger: Ledger, id: string) => void, signal?: AbortSignal): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, 1_000_000);
    return this.locked(signal, async () => {
      const { ledger, version: previous } = await this.read();
      const record = ledger.slots.get(id);
      if (record === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${JSON.stringify(id)} is not in ${this.path}`, { field: 'slotId' });
      // Every node of the slot: one, or each part's of a slot across nodes.
      const nodes = ledger.nodesOf(record.slot.id);
      try {
        change(ledger, id);
      } catch (error) {
        // A release refused by its idleBefore: nothing written, the nodes as they are.
        if (error instanceof AllocationError && error.code === 'CONFLICT') return { nodes: nodes.map((k) => ({ id: ledger.nodeIds[k]!, version: previous, slots: ledger.listSlots(k) })), error };
        throw error;
      }
      const version = await this.write(ledger, previous);
      return { nodes: nodes.map((k) => ({ id: ledger.nodeIds[k]!, version, slots: ledger.listSlots(k) })) };
    });
  }

  /** Runs `fn` under the file's lock; a file system that refuses the lock or the write (full, read-only) is a clear STORE_UNAVAILABLE, the file untouched. */
  private async locked<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.path, fn, { ...(this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs }), ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      throw fileWriteError(this.path, error);
    }
  }

  /**
   * The state the file holds now, or undefined when there is no file. Read without the lock: writers
   * replace the file atomically, so this is one whole version.
   */
  async current(): Promise<ClusterStateJSON | undefined> {
    const found = await this.readIfAny();
    return found === undefined ? undefined : ledgerJSON(found.ledger);
  }

  /**
   * One read-change-write that no other writer interleaves: under FILE.lock, reads the state
   * (undefined when the file does not exist yet), runs `change` on it and writes the state it returns
   * (atomically, before the lock is released; nothing when it returns none); resolves to its value.
   * With `mustExist`, a missing file is INVALID_STATE before FILE.lock is created beside it.
   */
  async update<T>(change: (current: ClusterStateJSON | undefined) => FileUpdate<T> | Promise<FileUpdate<T>>, options: { mustExist?: boolean } = {}): Promise<T> {
    if (options.mustExist === true) {
      const { stat } = await import('node:fs/promises');
      await stat(this.path).catch((error: NodeJS.ErrnoException) => {
        throw this.readError(error);
      });
    }
    return this.locked(undefined, async () => {
      const found = await this.readIfAny();
      if (found === undefined && options.mustExist === true) throw this.readError(Object.assign(new Error('gone'), { code: 'ENOENT' }));
      const { write, value } = await change(found === undefined ? undefined : ledgerJSON(found.ledger));
      if (write !== undefined) {
        const json = write instanceof ClusterState ? write.toJSON() : normalizeStateJSON(readInput('state', write));
        await this.writeText(stateFileText({ toJSON: () => json }), found?.version ?? 0);
      }
      return value;
    });
  }

  /** The error for a file that cannot be read: INVALID_STATE from the file (`details.missing` when it does not exist). */
  private readError(error: unknown): AllocationError {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const detail = missing ? 'does not exist (JsonFileStore.init or gpualloc plan --state FILE --commit creates it)' : `cannot be read: ${(error as Error).message}`;
    return AllocationError.of('INVALID_STATE', { origin: this.path, detail, details: { missing }, cause: error });
  }

  /** Reads the file; a missing file is INVALID_STATE. */
  private async read(): Promise<{ ledger: Ledger; version: number }> {
    const found = await this.readIfAny();
    if (found === undefined) throw this.readError(Object.assign(new Error('gone'), { code: 'ENOENT' }));
    return found;
  }

  /** Reads the file and its modification time from one descriptor (a rename in between cannot mix two versions); undefined when there is no file. */
  private async readIfAny(): Promise<{ ledger: Ledger; version: number } | undefined> {
    const { open } = await import('node:fs/promises');
    let content: string;
    let version: number;
    try {
      const handle = await open(this.path, 'r');
      try {
        version = Number((await handle.stat({ bigint: true })).mtimeNs / 1000n);
        content = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.readError(error);
    }
    return { ledger: restoreText(content, this.path), version };
  }

  /**
   * Replaces the file; returns its new version, always above `previous` (file times are as coarse
   * as the kernel's tick, so two quick writes may share one: the newer is then dated 2 µs later).
   */
  private async write(ledger: Ledger, previous: number): Promise<number> {
    return this.writeText(stateFileText({ toJSON: () => ledgerJSON(ledger) }), previous);
  }

  /** Replaces the file with `text` (a state's file text); returns its new version, as write does. */
  private async writeText(text: string, previous: number): Promise<number> {
    const { stat, utimes } = await import('node:fs/promises');
    await writeFileAtomic(this.path, text);
    let version = Number((await stat(this.path, { bigint: true })).mtimeNs / 1000n);
    if (version <= previous) {
      const at = (previous + 2) / 1e6; // 2 µs: seconds as a double carry about 0.25 µs of rounding
      await utimes(this.path, at, at);
      version = Number((await stat(this.path, { bigint: true })).mtimeNs / 1000n);
      if (version <= previous) version = previous + 1;
    }
    return version;
  }
}

/**
 * A state file's text as a ledger, strictly: a syntax error, an unknown key (with the closest known
 * one) or a bad value is INVALID_STATE from `origin` at the line and column of the fault, with the
 * note that the file was left untouched.
 */
export function restoreText(text: string, origin: string): Ledger {
  const untouched = { notes: ['the file was left untouched'] };
  let json: unknown;
  try {
    json = parseJson(text, 'INVALID_STATE', origin);
  } catch (error) {
    throw error instanceof AllocationError ? error.restated(untouched) : error;
  }
  const unknown = findUnknownKey(json, CLUSTER_STATE_KEYS);
  if (unknown !== undefined) {
    const position = jsonPosition(text, unknown.path);
    throw unknownKeyError('INVALID_STATE', unknown).restated({ origin, ...(position === undefined ? {} : { position }), ...untouched });
  }
  try {
    return restoreLedger(json);
  } catch (error) {
    if (!(error instanceof AllocationError)) throw error;
    // restore names fields from `state` (state.nodes[0].id); the text starts below it.
    const path = error.path !== undefined && error.path[0] === 'state' ? error.path.slice(1) : undefined;
    const position = path === undefined ? undefined : jsonPosition(text, path);
    throw error.restated({ origin, ...(position === undefined ? {} : { position }), ...untouched });
  }
}
