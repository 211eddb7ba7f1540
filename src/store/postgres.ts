// PostgresStore: one cluster state shared by many processes through PostgreSQL (node-postgres).
// One row per node (with a version), one row per GPU, one row per slot. A commit locks its node's
// row, re-validates the option against the slot rows it then reads (applyCommit: the same rule as
// an in-memory commit), writes, bumps the version and NOTIFYs, all in one transaction; deferred
// triggers re-check every GPU's total and every node's CPU and host memory at COMMIT, whoever writes.
import pg from 'pg';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import type { PlacementOption, Slot } from '../placement/index.js';
import { ClusterState, normalizeStateJSON, type ClusterStateJSON, type CommitOptions } from '../cluster/state.js';
import { fail, readInput, rejectUnknownKeys, requireBoolean, requireInteger, requireObject, requireString } from '../shared/validate.js';
import { applyCommit, type NodeRecord } from './apply.js';

import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
import type { ClusterStore, StoredNode, StoreListener, StoreOutcome, StoreSnapshot } from './types.js';

/** Options of PostgresStore.connect. */
export type PostgresStoreOptions = {
  /** Schema holding the tables (default `gpualloc`, or `?schema=` in the URL). */
  schema?: string;
  /** Most pooled connections (default 4). */
  maxConnections?: number;
  /** Apply pending migrations on connect (default true); false: fail if the schema is behind. */
  migrate?: boolean;
  /** application_name the server shows for these connections (default `gpualloc`). */
  applicationName?: string;
  /** How long a change waits for a node another writer holds before STORE_UNAVAILABLE, in milliseconds (default 10,000). */
  lockTimeoutMs?: number;
};

/** Default schema name. */
export const DEFAULT_SCHEMA = 'gpualloc';

/** How long a connect, a wait for a node's lock, and a transaction left idle by its writer may last, in milliseconds. */
export const TIMEOUTS = { connectMs: 10_000, lockMs: 10_000, idleInTransactionMs: 60_000 } as const;

/** Key of the advisory lock that serialises migrations (any constant; 'gpua' in ASCII). */
const MIGRATION_LOCK = 0x67707561;

/** Longest node ID sent in a NOTIFY payload (the payload limit is 8000 bytes); longer IDs notify as "refresh everything". */
const NOTIFY_ID_BYTES = 7000;

/** Slot ID used while validating a commit whose ID the database numbers on write (PostgreSQL text cannot hold NUL, so no stored slot has it). */
const PENDING_ID = '\u0000pending';

/** int8 columns (bytes, versions) as numbers: every stored figure is at most 2^53 - 1 (LIMITS.maxBytes). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** Turns a driver error into an AllocationError (the slot ID taken, the trigger's refusal, the server gone). */
function storeError(error: unknown, what: string): AllocationError {
  if (error instanceof AllocationError) return error;
  const e = error as { code?: string; message?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === 'slots_pkey') return AllocationError.at('DUPLICATE_SLOT', 'options.id', `${e.message ?? 'slot ID taken'}; nothing was changed`, { cause: error });
  if (e.code === '55P03') return new AllocationError('STORE_UNAVAILABLE', `${what}: timed out waiting for a node another writer holds (lockTimeoutMs); nothing was changed (${e.message})`, { cause: error });
  if (e.code === '23514') return new AllocationError('CONFLICT', `${what}: the database refused it (${e.message}); nothing was changed`, { cause: error });
  return new AllocationError('STORE_UNAVAILABLE', `${what}: ${e.message ?? String(error)}`, { cause: error });
}

type Tx = pg.PoolClient;

/** A PostgreSQL-backed ClusterStore. Create with PostgresStore.connect(url). */
export class PostgresStore implements ClusterStore {
  readonly kind = 'postgres';
  /** The schema name as given (unquoted). */
  readonly schema: string;
  private readonly pool: pg.Pool;
  private readonly config: pg.ClientConfig;
  private readonly s: string;
  private readonly channel: string;
  private readonly url: string;

  private constructor(url: string, config: pg.ClientConfig, schema: string, max: number) {
    this.url = url;
    this.config = config;
    this.schema = schema;
    this.s = pg.escapeIdentifier(schema);
    this.channel = `${schema}_changes`;
    this.pool = new pg.Pool({ ...config, max });
    // An idle pooled connection that the server drops must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  /**
   * Connects to `url` (postgres://user:password@host:port/database, `?host=/socket/dir` for a Unix
   * socket, `?schema=name`) and brings the schema up to date (unless `migrate: false`).
   */
  static async connect(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    requireString('url', url, 10_000);
    const opts = requireObject('options', readInput('options', options));
    rejectUnknownKeys('options', opts, ['schema', 'maxConnections', 'migrate', 'applicationName', 'lockTimeoutMs']);
    const lockMs = opts.lockTimeoutMs === undefined ? TIMEOUTS.lockMs : requireInteger('options.lockTimeoutMs', opts.lockTimeoutMs, 1, 3_600_000);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return fail('INVALID_ARGUMENT', 'url', 'a postgres:// or postgresql:// URL', redact(url));
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') fail('INVALID_ARGUMENT', 'url', 'a postgres:// or postgresql:// URL', redact(url));
    const fromUrl = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    const schema = opts.schema !== undefined ? requireString('options.schema', opts.schema, 63) : (fromUrl ?? DEFAULT_SCHEMA);
    if (!/^[a-z_][a-z0-9_]{0,47}$/.test(schema)) fail('INVALID_ARGUMENT', 'options.schema', 'a lower-case SQL name (a-z, 0-9, _; at most 48)', schema);
    const max = opts.maxConnections === undefined ? 4 : (opts.maxConnections as number);
    if (!Number.isInteger(max) || max < 1 || max > 100) fail('INVALID_ARGUMENT', 'options.maxConnections', 'an integer from 1 to 100', opts.maxConnections);
    const applicationName = opts.applicationName === undefined ? 'gpualloc' : requireString('options.applicationName', opts.applicationName, 63);
    const config: pg.ClientConfig = {
      connectionString: parsed.toString(), application_name: applicationName, types: TYPES,
      // A server that does not answer, a node lock held by a hung writer, a writer stopped inside
      // its transaction: each ends in an error (and a released lock) rather than waiting forever.
      connectionTimeoutMillis: TIMEOUTS.connectMs, lock_timeout: lockMs, idle_in_transaction_session_timeout: TIMEOUTS.idleInTransactionMs,
    };
    const store = new PostgresStore(url, config, schema, max);
    try {
      const version = await store.schemaVersion();
      if (version > SCHEMA_VERSION) throw new AllocationError('STORE_UNAVAILABLE', `store ${redact(url)}: schema ${schema} is at version ${version}, newer than this gpualloc's ${SCHEMA_VERSION}; upgrade gpualloc`);
      if (version < SCHEMA_VERSION) {
        if (opts.migrate === false) throw new AllocationError('STORE_UNAVAILABLE', `store ${redact(url)}: schema ${schema} is at version ${version}, this gpualloc needs ${SCHEMA_VERSION}; run gpualloc state init or connect with migrate`);
        await store.migrate();
      }
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw error instanceof AllocationError ? error : storeError(error, `store ${redact(url)}`);
    }
    return store;
  }

  /** The schema version recorded in the database (0: no schema yet). */
  async schemaVersion(): Promise<number> {
    const r = await this.pool.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${this.s}.migrations`]);
    if (!r.rows[0].present) return 0;
    const v = await this.pool.query(`SELECT coalesce(max(version), 0) AS version FROM ${this.s}.migrations`);
    return v.rows[0].version as number;
  }

  /** Applies the migrations the database lacks, in order, each in its own transaction (concurrent callers take turns). Returns the versions applied. */
  async migrate(): Promise<number[]> {
    const applied: number[] = [];
    await this.transaction('migrate', async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock($1)`, [MIGRATION_LOCK]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Set((await c.query(`SELECT version FROM ${this.s}.migrations`)).rows.map((r) => r.version as number));
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await c.query(m.sql(this.s));
        await c.query(`INSERT INTO ${this.s}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        applied.push(m.version);
      }
      return true;
    });
    return applied;
  }

  /**
   * Writes a state's nodes (GPUs, topology, slots) into the store: `state` is a ClusterState or
   * toJSON's output (validated as restoreClusterState does). STORE_NOT_EMPTY when nodes exist,
   * unless `replace` (which drops every node and slot first).
   */
  async init(state: ClusterState | ClusterStateJSON, options: { replace?: boolean } = {}): Promise<void> {
    const json = state instanceof ClusterState ? state.toJSON() : normalizeStateJSON(readInput('state', state));
    const opts = requireObject('options', readInput('options', options));
    rejectUnknownKeys('options', opts, ['replace']);
    const replace = opts.replace === undefined ? false : requireBoolean('options.replace', opts.replace);
    await this.transaction('init', async (c) => {
      await c.query(`LOCK TABLE ${this.s}.nodes IN EXCLUSIVE MODE`);
      const count = (await c.query(`SELECT count(*)::integer AS n FROM ${this.s}.nodes`)).rows[0].n as number;
      if (count > 0 && !replace) throw new AllocationError('STORE_NOT_EMPTY', `store: schema ${this.schema} already holds ${count} node${count === 1 ? '' : 's'}; nothing was changed (pass replace to start over)`);
      if (count > 0) await c.query(`DELETE FROM ${this.s}.nodes`);
      const nodes = json.nodes.map((n, position) => ({ id: n.id, position, topology: n.topology ?? null, cpu: n.cpu ?? null, host_memory: n.hostMemory ?? null, gpu_model: n.gpuModel ?? null }));
      const gpus = json.nodes.flatMap((n) => n.gpus.map((g, position) => ({ node: n.id, index: g.index, position, memory_total: g.memoryTotal, memory_used: (g as { memoryUsed?: number }).memoryUsed ?? 0 })));
      const slots = json.nodes.flatMap((n) => n.slots.map((sl) => ({ id: sl.id, node: n.id, gpus: sl.gpus, memory_per_gpu: sl.memoryPerGpu, model: sl.model ?? null, last_activity: sl.lastActivity ?? null, stale: sl.stale ?? null, milli: sl.milli ?? null, cpu: sl.cpu ?? null, host_memory: sl.hostMemory ?? null }))).map((row, ord) => ({ ord, ...row }));
      await c.query(`INSERT INTO ${this.s}.nodes (id, position, topology, cpu, host_memory, gpu_model) SELECT id, position, topology, cpu, host_memory, gpu_model FROM json_to_recordset($1) AS x(id text, position integer, topology jsonb, cpu bigint, host_memory bigint, gpu_model text)`, [JSON.stringify(nodes)]);
      await c.query(`INSERT INTO ${this.s}.gpus (node, index, position, memory_total, memory_used) SELECT node, index, position, memory_total, memory_used FROM json_to_recordset($1) AS x(node text, index integer, position integer, memory_total bigint, memory_used bigint)`, [JSON.stringify(gpus)]);
      await c.query(`INSERT INTO ${this.s}.slots (id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory) SELECT id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory FROM json_to_recordset($1) AS x(ord integer, id text, node text, gpus integer[], memory_per_gpu bigint, model text, last_activity double precision, stale boolean, milli integer, cpu bigint, host_memory bigint) ORDER BY ord`, [JSON.stringify(slots)]);
      if (json.nextSlot > 1) await c.query(`SELECT setval($1, $2, true)`, [`${this.s}.slot_id`, json.nextSlot - 1]);
      else await c.query(`SELECT setval($1, 1, false)`, [`${this.s}.slot_id`]);
      return true;
    });
  }

  async load(): Promise<StoreSnapshot> {
    return this.transaction('load', async (c) => {
      await c.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`);
      const nodes = (await c.query(`SELECT id, topology, version, cpu, host_memory, gpu_model FROM ${this.s}.nodes ORDER BY position`)).rows;
      const gpus = (await c.query(`SELECT node, index, memory_total, memory_used FROM ${this.s}.gpus ORDER BY node, position`)).rows;
      const slots = (await c.query(`SELECT id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory FROM ${this.s}.slots ORDER BY added`)).rows;
      const seq = (await c.query(`SELECT last_value, is_called FROM ${this.s}.slot_id`)).rows[0];
      const byNode = new Map<string, ClusterStateJSON['nodes'][number]>();
      const state: ClusterStateJSON = { version: 1, nextSlot: seq.is_called ? seq.last_value + 1 : seq.last_value, nodes: [] };
      const versions: Record<string, number> = {};
      for (const n of nodes) {
        const node: ClusterStateJSON['nodes'][number] = { id: n.id, gpus: [], slots: [] };
        if (n.topology !== null) node.topology = n.topology;
        if (n.cpu !== null) node.cpu = n.cpu;
        if (n.host_memory !== null) node.hostMemory = n.host_memory;
        if (n.gpu_model !== null) node.gpuModel = n.gpu_model;
        byNode.set(n.id, node);
        state.nodes.push(node);
        Object.defineProperty(versions, n.id, { value: n.version, enumerable: true, writable: true, configurable: true });
      }
      for (const g of gpus) {
        const gpu: { index: number; memoryTotal: number; memoryUsed?: number } = { index: g.index, memoryTotal: g.memory_total };
        if (g.memory_used > 0) gpu.memoryUsed = g.memory_used;
        byNode.get(g.node)!.gpus.push(gpu);
      }
      for (const r of slots) byNode.get(r.node)!.slots.push(slotOf(r));
      return { state, versions };
    });
  }

  async loadNodes(ids: readonly string[]): Promise<StoredNode[]> {
    const list = [...ids];
    const r = await this.query('loadNodes', `SELECT n.id, n.version, ${this.slotsJson('n.id')} AS slots FROM ${this.s}.nodes n WHERE n.id = ANY ($1::text[])`, [list]);
    const found = new Map(r.rows.map((row) => [row.id as string, row]));
    return list.map((id, k) => {
      const row = found.get(id);
      if (row === undefined) throw AllocationError.at('UNKNOWN_NODE', `ids[${k}]`, `node ${JSON.stringify(id)} is not in the store`);
      return { id, version: row.version, slots: row.slots };
    });
  }

  async commit(option: PlacementOption, options: CommitOptions = {}): Promise<StoreOutcome> {
    const o = requireObject('option', readInput('option', option)) as unknown as PlacementOption;
    const node = requireString('option.node', o.node, LIMITS.maxIdLength);
    const opts = requireObject('options', readInput('options', options)) as CommitOptions;
    const given = opts.id === undefined ? undefined : requireString('options.id', opts.id, LIMITS.maxIdLength);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commitOnce(node, o, opts, given);
      } catch (error) {
        if (!(error instanceof AllocationError)) throw error;
        // A generated ID that a caller had already chosen by hand: take the next number.
        if (error.code === 'DUPLICATE_SLOT' && given === undefined && attempt < 100) continue;
        // The trigger refused at COMMIT (it never should once applyCommit passed): a conflict like any other.
        if (error.code === 'CONFLICT') return { nodes: await this.loadNodes([node]), error };
        throw error;
      }
    }
  }

  private async commitOnce(node: string, o: PlacementOption, opts: CommitOptions, given: string | undefined): Promise<StoreOutcome> {
    return this.transaction<StoreOutcome>('commit', async (c) => {
      const locked = await c.query(`SELECT version, cpu, host_memory, gpu_model FROM ${this.s}.nodes WHERE id = $1 FOR NO KEY UPDATE`, [node]);
      if (locked.rowCount === 0) throw AllocationError.at('UNKNOWN_NODE', 'option.node', `node ${JSON.stringify(node)} is not in the store`);
      const version = locked.rows[0].version as number;
      const fresh = (await c.query(`SELECT ${this.gpusJson('$1')} AS gpus, ${this.slotsJson('$1')} AS slots`, [node])).rows[0];
      // A node without GPUs (CPU-only pods) has no GPU rows: json_agg over none is NULL.
      const record: NodeRecord = { id: node, gpus: fresh.gpus ?? [], slots: fresh.slots };
      const row = locked.rows[0];
      if (row.cpu !== null) record.cpu = row.cpu;
      if (row.host_memory !== null) record.hostMemory = row.host_memory;
      if (row.gpu_model !== null) record.gpuModel = row.gpu_model;
      let change;
      try {
        change = applyCommit(record, o, opts, given ?? PENDING_ID);
      } catch (error) {
        if (error instanceof AllocationError && error.code === 'CONFLICT') return { outcome: { nodes: [{ id: node, version, slots: record.slots }], error }, commit: false };
        throw error;
      }
      const s = change.slot;
      // The default ID is numbered only now, so refused commits leave no gaps: slot-1, slot-2, … as in memory.
      const written = await c.query(
        `WITH gone AS (DELETE FROM ${this.s}.slots WHERE node = $1 AND id = ANY ($2::text[])),
              added AS (INSERT INTO ${this.s}.slots (id, node, gpus, memory_per_gpu, model, last_activity, milli, cpu, host_memory)
                        VALUES (coalesce($3, 'slot-' || nextval('${this.s}.slot_id')), $1, $4, $5, $6, $7, $9, $10, $11) RETURNING id),
              bumped AS (UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = $1 RETURNING id, version)
         SELECT added.id AS slot, bumped.version, pg_notify($8, bumped.version || ' ' || CASE WHEN octet_length(bumped.id) <= ${NOTIFY_ID_BYTES} THEN bumped.id ELSE '' END)
         FROM added, bumped`,
        [node, change.evicted, given ?? null, s.gpus, s.memoryPerGpu, s.model ?? null, s.lastActivity ?? null, this.channel, s.milli ?? null, s.cpu ?? null, s.hostMemory ?? null],
      );
      const id = written.rows[0].slot as string;
      s.id = id;
      return { outcome: { id, nodes: [{ id: node, version: written.rows[0].version, slots: change.slots }] }, commit: true };
    });
  }

  async release(slotId: string): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    return this.changeSlot('release', id, (node) => [
      `WITH gone AS (DELETE FROM ${this.s}.slots WHERE id = $2 AND node = $1 RETURNING id)
       UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = $1 AND EXISTS (SELECT 1 FROM gone)
       RETURNING version, pg_notify($3, version || ' ' || CASE WHEN octet_length(id) <= ${NOTIFY_ID_BYTES} THEN id ELSE '' END)`,
      [node, id, this.channel],
    ]);
  }

  async markStale(slotId: string, stale: boolean): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const value = requireBoolean('stale', stale);
    return this.changeSlot('markStale', id, (node) => [
      `WITH marked AS (UPDATE ${this.s}.slots SET stale = $4 WHERE id = $2 AND node = $1 RETURNING id)
       UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = $1 AND EXISTS (SELECT 1 FROM marked)
       RETURNING version, pg_notify($3, version || ' ' || CASE WHEN octet_length(id) <= ${NOTIFY_ID_BYTES} THEN id ELSE '' END)`,
      [node, id, this.channel, value],
    ]);
  }

  /** LISTEN on the schema's channel through a connection of its own; resolves to a function that stops it. */
  async watch(listener: StoreListener): Promise<() => Promise<void>> {
    const client = new pg.Client(this.config);
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw storeError(error, `watch ${redact(this.url)}`);
    }
    client.on('notification', (message) => {
      if (message.channel !== this.channel || message.payload === undefined) return;
      const space = message.payload.indexOf(' ');
      listener(message.payload.slice(space + 1), Number(message.payload.slice(0, space)));
    });
    return async () => {
      await client.end().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Locks the node of `slotId`, runs the change (which returns a version row, or none when the slot went meanwhile) and reads the node's slots back. */
  private async changeSlot(what: string, slotId: string, change: (node: string) => [string, unknown[]]): Promise<StoreOutcome> {
    return this.transaction<StoreOutcome>(what, async (c) => {
      const found = await c.query(`SELECT node FROM ${this.s}.slots WHERE id = $1`, [slotId]);
      const unknown = () => AllocationError.at('UNKNOWN_SLOT', 'slotId', `slot ${JSON.stringify(slotId)} is not in the store`);
      if (found.rowCount === 0) throw unknown();
      const node = found.rows[0].node as string;
      await c.query(`SELECT 1 FROM ${this.s}.nodes WHERE id = $1 FOR NO KEY UPDATE`, [node]);
      const [text, values] = change(node);
      const done = await c.query(text, values);
      if (done.rowCount === 0) throw unknown(); // released by another writer between the lookup and the lock
      const slots = (await c.query(`SELECT ${this.slotsJson('$1')} AS slots`, [node])).rows[0].slots as Slot[];
      return { outcome: { nodes: [{ id: node, version: done.rows[0].version, slots }] }, commit: true };
    });
  }

  /** SQL for a node's slots as a JSON list of Slot, in the order they were added. */
  private slotsJson(node: string): string {
    return `(SELECT coalesce(json_agg(json_strip_nulls(json_build_object('id', sl.id, 'gpus', sl.gpus, 'memoryPerGpu', sl.memory_per_gpu, 'model', sl.model, 'lastActivity', sl.last_activity, 'stale', sl.stale, 'milli', sl.milli, 'cpu', sl.cpu, 'hostMemory', sl.host_memory)) ORDER BY sl.added), '[]') FROM ${this.s}.slots sl WHERE sl.node = ${node})`;
  }

  /** SQL for a node's GPUs as a JSON list ({ index, memoryTotal, memoryUsed when > 0 }), in the order given. */
  private gpusJson(node: string): string {
    return `(SELECT json_agg(json_strip_nulls(json_build_object('index', g.index, 'memoryTotal', g.memory_total, 'memoryUsed', nullif(g.memory_used, 0))) ORDER BY g.position) FROM ${this.s}.gpus g WHERE g.node = ${node})`;
  }

  private async query(what: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.pool.query(text, values);
    } catch (error) {
      throw storeError(error, what);
    }
  }

  /**
   * Runs `fn` in a transaction on one pooled connection: COMMIT when it says so, ROLLBACK otherwise
   * or when it throws. A connection that failed mid-transaction is discarded, not returned to the pool.
   */
  private async transaction<T>(what: string, fn: (c: Tx) => Promise<{ outcome: T; commit: boolean } | T>): Promise<T> {
    let client: Tx;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw storeError(error, `${what}: cannot connect to ${redact(this.url)}`);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      const wrapped = typeof result === 'object' && result !== null && 'commit' in result && 'outcome' in result;
      const commit = wrapped ? (result as { commit: boolean }).commit : true;
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return wrapped ? (result as { outcome: T }).outcome : (result as T);
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollback) {
        broken = rollback as Error;
      }
      throw storeError(error, what);
    } finally {
      client.release(broken);
    }
  }
}

/** A slot row as a Slot (optional fields only when set). */
function slotOf(r: { id: string; gpus: number[]; memory_per_gpu: number; model: string | null; last_activity: number | null; stale: boolean | null; milli: number | null; cpu: number | null; host_memory: number | null }): Slot {
  const s: Slot = { id: r.id, gpus: r.gpus, memoryPerGpu: r.memory_per_gpu };
  if (r.model !== null) s.model = r.model;
  if (r.last_activity !== null) s.lastActivity = r.last_activity;
  if (r.stale !== null) s.stale = r.stale;
  if (r.milli !== null) s.milli = r.milli;
  if (r.cpu !== null) s.cpu = r.cpu;
  if (r.host_memory !== null) s.hostMemory = r.host_memory;
  return s;
}
