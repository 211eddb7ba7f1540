// Reading and writing a `--state FILE` (a ClusterState as JSON) for the commands that share it:
// `plan --state FILE [--commit]` and `state ...`. Changes happen under withFileLock and land through
// writeFileAtomic, so concurrent gpualloc runs take turns and a reader never sees half a file.
import { readFile } from 'node:fs/promises';
import type { Engine } from '../engine.js';
import { AllocationError } from '../errors.js';
import type { ClusterState } from '../cluster/state.js';
import { writeFileAtomic } from '../store/file-lock.js';
import { formatBytes } from '../units.js';

/** Reads a state file; a missing file is `undefined`, a corrupt one INVALID_STATE (and is left untouched). */
export async function readState(engine: Engine, path: string, name: string): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AllocationError('INVALID_STATE', `--state: cannot read ${name}: ${(error as Error).message}`, { field: 'state', cause: error });
  }
  try {
    return engine.restoreClusterState(text);
  } catch (error) {
    if (error instanceof AllocationError) throw new AllocationError('INVALID_STATE', `--state ${name}: ${error.message.replace(/^state: /, '')} (the file was left untouched)`, { field: 'state', cause: error });
    throw error;
  }
}

/** Writes the state atomically (temp file, fsync, rename, fsync of the folder): readers never see half a file. */
export async function writeState(state: ClusterState, path: string): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(state.toJSON(), null, 2) + '\n');
}

/** Most GPUs named in the `in use by other processes` line before it says how many more. */
const MAX_BUSY_LISTED = 16;

/**
 * One line naming the GPUs where processes outside gpualloc hold memory (counted as taken, never
 * evicted), such as `in use by other processes …: GPU 0 70 GiB, GPU 3 10 GiB`; undefined when none.
 */
export function busyLine(state: ClusterState): string | undefined {
  const busy = state.usage().filter((u) => (u.memoryUsed ?? 0) > 0);
  if (busy.length === 0) return undefined;
  const multiNode = new Set(state.nodes()).size > 1;
  const named = busy.slice(0, MAX_BUSY_LISTED).map((u) => `GPU ${u.gpu}${multiNode ? ` of ${u.node}` : ''} ${formatBytes(u.memoryUsed!)}`);
  if (busy.length > MAX_BUSY_LISTED) named.push(`${busy.length - MAX_BUSY_LISTED} more GPUs`);
  return `in use by other processes (counted as taken, never evicted): ${named.join(', ')}`;
}
