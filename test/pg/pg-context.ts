// What each PostgreSQL test file needs: the suite's server URL (or a skip), a fresh schema per test,
// a direct SQL connection for assertions on the rows themselves, and a writer process runner.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import type { ClusterNode } from '../../src/cluster/state.js';
import { type Engine, openEngine } from '../../src/engine.js';
import { PostgresStore } from '../../src/store/postgres.js';

/** The server's URL, '' when the suite runs without PostgreSQL (every describe skips then). */
export const pgUrl: string = inject('pgUrl');

/** Whether there is no server to test against. */
export const noPg = pgUrl === '';

let counter = 0;

/** A schema name no other test of this run uses. */
export function freshSchema(prefix: string): string {
  counter++;
  return `${prefix}_${process.pid}_${counter}`;
}

/** `count` nodes n0.. of `gpus` GPUs with `memoryTotal` bytes each. */
export function uniformNodes(count: number, gpus: number, memoryTotal: number): ClusterNode[] {
  return Array.from({ length: count }, (_, n) => ({ id: `n${n}`, gpus: Array.from({ length: gpus }, (_, index) => ({ index, memoryTotal })) }));
}

/** A store on a new schema holding `nodes`, with the engine that made the state. */
export async function freshStore(prefix: string, nodes: ClusterNode[], backend: 'ts' | 'wasm' = 'ts'): Promise<{ store: PostgresStore; engine: Engine; schema: string }> {
  const engine = await openEngine({ backend });
  const schema = freshSchema(prefix);
  const store = await PostgresStore.open(pgUrl, { schema });
  await store.init(engine.createClusterState({ nodes }));
  return { store, engine, schema };
}

/** A plain SQL client on the suite's server (close it with end()). */
export async function sql(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  return client;
}

/**
 * Runs the writer script `script` (a test/fixtures/*.mjs taking its input as JSON in GPUALLOC_WRITER)
 * to its end; resolves to its output, one JSON value a line (rejects on a non-zero exit, with stderr).
 */
export function runWriter<Line>(script: string, input: Record<string, unknown>): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: { ...process.env, GPUALLOC_WRITER: JSON.stringify(input) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Line),
          )
        : reject(new Error(`writer ${String(input.writer)} exited ${code}: ${err}`)),
    );
  });
}
