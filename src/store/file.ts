// JsonFileStore: the state in one JSON file (ClusterState.toJSON, the CLI's --state FILE format),
// changed under FILE.lock (flock) and replaced atomically (withFileLock, writeFileAtomic). Each
// change re-reads the file under the lock into the state's ledger and applies itself through
// ClusterState's own commit checks (checkCommit), so writers in several processes take turns and
// none works from a stale copy. Node only.
import { AllocationError } from '../shared/errors.js';
import type { PlacementOption } from '../placement/index.js';
import { checkCommit, ClusterState, ledgerJSON, normalizeStateJSON, restoreLedger, stateFileText, type ClusterStateJSON, type Ledger } from '../cluster/state.js';
import { readInput, requireBoolean, requireInteger, requireObject, requireString } from '../shared/validate.js';
import { fileWriteError, withFileLock, writeFileAtomic } from './file-lock.js';
import { onlyKnownKeys, storeCommitOptions, storeReleaseOptions } from './options.js';
import type { ClusterStore, StoreCommitOptions, StoredNode, StoreOutcome, StoreReleaseOptions, StoreSnapshot } from './types.js';

/** Options of JsonFileStore.open. */
export type JsonFileStoreOptions = {
  /** How long a change waits for another process's lock before STATE_LOCKED, in milliseconds (default 10,000). */
  lockTimeoutMs?: number;
};

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

  /** A store on `path` (nothing is read until used; `init` creates the file). */
  static open(path: string, options: JsonFileStoreOptions = {}): JsonFileStore {
    const file = requireString('path', path, 10_000);
    const opts = requireObject('options', readInput('options', options));
    onlyKnownKeys('options', opts, ['lockTimeoutMs']);
    const timeout = opts.lockTimeoutMs === undefined ? undefined : requireInteger('options.lockTimeoutMs', opts.lockTimeoutMs, 0, 3_600_000);
    return new JsonFileStore(file, timeout);
  }

  /** Writes a new state file from a ClusterState or toJSON's output; STORE_NOT_EMPTY when the file exists, unless `replace`. */
  async init(state: ClusterState | ClusterStateJSON, options: { replace?: boolean } = {}): Promise<void> {
    let truth: { toJSON(): ClusterStateJSON } = state as ClusterState;
    if (!(state instanceof ClusterState)) {
      const json = normalizeStateJSON(readInput('state', state));
      truth = { toJSON: () => json };
    }
    const opts = requireObject('options', readInput('options', options));
    onlyKnownKeys('options', opts, ['replace']);
    const replace = opts.replace === undefined ? false : requireBoolean('options.replace', opts.replace);
    await this.locked(async () => {
      const { stat } = await import('node:fs/promises');
      const exists = await stat(this.path).then(() => true, (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      });
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
    return this.locked(async () => {
      const { ledger, version } = await this.read();
      let id: string;
      try {
        id = ledger.commit(checkCommit(ledger, option, commitOptions));
      } catch (error) {
        if (error instanceof AllocationError && error.code === 'CONFLICT') return { nodes: [{ id: option.node!, version, slots: ledger.listSlots(ledger.nodeIndex(option.node!)) }], error };
        throw error;
      }
      const written = await this.write(ledger, version);
      return { id, nodes: [{ id: option.node!, version: written, slots: ledger.listSlots(ledger.nodeIndex(option.node!)) }] };
    });
  }

  async release(slotId: string, options: StoreReleaseOptions = {}): Promise<StoreOutcome> {
    storeReleaseOptions(options);
    return this.changeSlot(slotId, (ledger, id) => ledger.removeSlot(id));
  }

  async markStale(slotId: string, stale: boolean): Promise<StoreOutcome> {
    const value = requireBoolean('stale', stale);
    return this.changeSlot(slotId, (ledger, id) => ledger.setStale(ledger.slots.get(id)!, value));
  }

  async close(): Promise<void> {
    // Nothing is held between calls.
  }

  private async changeSlot(slotId: string, change: (ledger: Ledger, id: string) => void): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, 1_000_000);
    return this.locked(async () => {
      const { ledger, version: previous } = await this.read();
      const record = ledger.slots.get(id);
      if (record === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${JSON.stringify(id)} is not in ${this.path}`, { field: 'slotId' });
      const node = record.node;
      change(ledger, id);
      const version = await this.write(ledger, previous);
      return { nodes: [{ id: ledger.nodeIds[node], version, slots: ledger.listSlots(node) }] };
    });
  }

  /** Runs `fn` under the file's lock; a file system that refuses the lock or the write (full, read-only) is a clear STORE_UNAVAILABLE, the file untouched. */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.path, fn, this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs });
    } catch (error) {
      throw fileWriteError(this.path, error);
    }
  }

  /** Reads the file and its modification time from one descriptor (a rename in between cannot mix two versions). */
  private async read(): Promise<{ ledger: Ledger; version: number }> {
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
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new AllocationError('INVALID_STATE', `store: ${missing ? `${this.path} does not exist (JsonFileStore.init or gpualloc plan --state FILE --commit creates it)` : `cannot read ${this.path}: ${(error as Error).message}`}`, { cause: error });
    }
    try {
      return { ledger: restoreLedger(content), version };
    } catch (error) {
      if (error instanceof AllocationError) throw new AllocationError('INVALID_STATE', `store ${this.path}: ${error.message.replace(/^state: /, '')} (the file was left untouched)`, { field: error.field, cause: error });
      throw error;
    }
  }

  /**
   * Replaces the file; returns its new version, always above `previous` (file times are as coarse
   * as the kernel's tick, so two quick writes may share one: the newer is then dated 2 µs later).
   */
  private async write(ledger: Ledger, previous: number): Promise<number> {
    const { stat, utimes } = await import('node:fs/promises');
    await writeFileAtomic(this.path, stateFileText({ toJSON: () => ledgerJSON(ledger) }));
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
