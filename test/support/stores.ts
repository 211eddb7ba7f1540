// The memory and file stores for tests that run on both, and the helpers the pod store tests share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterNode, ClusterState } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { JsonFileStore } from '../../src/store/file.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { ClusterStore } from '../../src/store/types.js';

const dirs: string[] = [];

/** Removes the temp folders of the file stores made so far (call it in afterEach). */
export function removeStoreDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A store of `kind` holding `nodes`, and for the file store its path (in a temp folder: see removeStoreDirs). */
export async function makeStore(kind: 'memory' | 'file', engine: Engine, nodes: ClusterNode[]): Promise<{ store: ClusterStore; path?: string }> {
  if (kind === 'memory') return { store: MemoryStore.create(engine, { nodes }) };
  const dir = mkdtempSync(join(tmpdir(), 'gpualloc-store-test-'));
  dirs.push(dir);
  const path = join(dir, 'state.json');
  const store = JsonFileStore.create(path);
  await store.init(engine.createClusterState({ nodes }));
  return { store, path };
}

/** The AllocationError `fn` throws or rejects with, as code + message + field; 'ok' when it settles without one. */
export async function outcomeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AllocationError) return `${error.code} ${error.message} @${error.field}`;
    throw error;
  }
}

/** Plans one pod on `local` with the bestfit pod scheduler (closed afterwards). */
export function planPod(local: ClusterState, pod: { id: string; cpu: number; memoryMiB: number; gpus: number; milli: number }) {
  const pods = local.podScheduler({ policy: 'bestfit' });
  try {
    return pods.plan(pod);
  } finally {
    pods.close();
  }
}
