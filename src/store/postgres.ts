// PostgresStore: one cluster state shared by many processes through PostgreSQL (node-postgres).
// One row per node (with a version), one row per GPU, one row per slot. A commit locks its node's
// row, re-validates the option against the slot rows it then reads (applyCommit: the same rule as
// an in-memory commit), writes, records its request ID, bumps the version and NOTIFYs, all in one
// transaction; deferred triggers re-check every GPU's total and every node's CPU and host memory at
// COMMIT, whoever writes. A lost connection or a restarting server is tried again with backoff for
// retryMs; the request ID makes the retry of a commit or release whose COMMIT reply was lost find
// what the first try did instead of doing it twice.
import type pg from 'pg';
import { activityTime, ClusterState, type ClusterStateJSON, checkIdle, normalizeStateJSON } from '../cluster/state.js';
import { type PlacementOption, type Slot, validateParts } from '../placement/index.js';
import { ASYNC_DISPOSE } from '../shared/dispose.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { readInput, rejectUnknownKeys, requireBoolean, requireObject, requireString } from '../shared/validate.js';
import { applyCommit, type CommitChange, type NodeRecord } from './apply.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
import { requestIdOf, signalOf, storeReleaseOptions } from './options.js';
import type { PgTarget } from './pg-config.js';
import { connectSettings } from './pg-connect.js';
import { connectionUsable, type ErrorContext, RetryNow, storeError } from './pg-errors.js';
import { grantStatements } from './pg-grant.js';
import { listen } from './pg-listen.js';
import { pgModule } from './pg-module.js';
import type { PostgresStoreOptions, PostgresStoreStats } from './pg-options.js';
import { type RunOptions, retrying } from './pg-retry.js';
import { gpuOf, gpusJsonSql, initRows, slotOf, slotsJsonSql } from './pg-rows.js';
import type { ClusterStore, StoreCommitOptions, StoredNode, StoreListener, StoreOutcome, StoreReleaseOptions, StoreSnapshot } from './types.js';

export type { PostgresStoreOptions, PostgresStoreStats } from './pg-options.js';
export { DEFAULT_SCHEMA, TIMEOUTS } from './pg-options.js';

/** Key of the advisory lock that serialises migrations (any constant; 'gpua' in ASCII). */
const MIGRATION_LOCK = 0x67707561;

/** Longest node ID sent in a NOTIFY payload (the payload limit is 8000 bytes); longer IDs notify as "refresh everything". */
const NOTIFY_ID_BYTES = 7000;

/** Slot ID used while validating a commit whose ID the database numbers on write (PostgreSQL text cannot hold NUL, so no stored slot has it). */
const PENDING_ID = '\u0000pending';

/** Old request IDs are deleted by at most one change a minute per store, at most this many at a time. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;

type Tx = pg.PoolClient;

/** A transaction body's answer: the result, and whether to COMMIT (false: ROLLBACK, e.g. a refused or a read-only one). */
type TxResult<T> = { outcome: T; commit: boolean };

/** How an operation may be tried again: `idempotent` ones (request IDs, reads) even after an ambiguous COMMIT. */

/** A PostgreSQL-backed ClusterStore. Create with PostgresStore.open(url). */
export class PostgresStore implements ClusterStore {
  readonly kind = 'postgres';
  /** The schema name as given (unquoted). */
  readonly schema: string;
  /** Where it connects, without the password: `postgres://user@host:port/database (TLS mode)`. */
  readonly target: string;
  private readonly pool: pg.Pool;
  private readonly config: pg.ClientConfig;
  private readonly s: string;
  private readonly channel: string;
  private readonly ctx: Omit<ErrorContext, 'what'>;
  private readonly retryMs: number;
  private readonly retentionMs: number;
  private readonly counts: PostgresStoreStats = { retries: 0, ambiguous: 0, landed: 0, notLanded: 0, replays: 0, resubscribes: 0 };
  private readonly watchers = new Set<() => Promise<void>>();
  /** Pooled connections the server dropped while no statement was in flight, with what it said (the cause of their next failure). */
  private readonly lost = new WeakMap<pg.ClientBase, Error>();
  private lastPrune = 0;
  /** close() under way or done (a second call waits for the first). */
  private closing: Promise<void> | undefined;

  private constructor(
    target: PgTarget,
    config: pg.ClientConfig,
    schema: string,
    max: number,
    bounds: { lockMs: number; statementMs: number; connectMs: number; retryMs: number; retentionMs: number },
  ) {
    this.target = target.display;
    this.config = config;
    this.schema = schema;
    this.s = pgModule().escapeIdentifier(schema);
    this.channel = `${schema}_changes`;
    this.retryMs = bounds.retryMs;
    this.retentionMs = bounds.retentionMs;
    this.ctx = {
      target: target.display,
      lockTimeoutMs: bounds.lockMs,
      statementTimeoutMs: bounds.statementMs,
      connectTimeoutMs: bounds.connectMs,
      maxConnections: max,
      user: target.user,
      ...(target.rootCertFile === undefined ? {} : { rootCertFile: target.rootCertFile }),
    };
    this.pool = new (pgModule().Pool)({ ...config, max });
    // A server that dies (a crash, a restart, a cut) sends its idle connections a FATAL, or just
    // closes them; node-postgres emits that as an 'error' event, which without a listener would end
    // the process. The pool listens only while a connection sits idle in it (and then discards it);
    // this listener is added the moment a connection is set up, before anyone awaiting it runs, and
    // stays for its life: a checked-out connection whose server went away is remembered as lost, and
    // its next statement fails, is tried again on a new connection with backoff, and ends in
    // STORE_UNAVAILABLE once retryMs is spent.
    this.pool.on('error', () => undefined);
    this.pool.on('connect', (client) => {
      client.on('error', (error) => {
        if (!this.lost.has(client)) this.lost.set(client, error);
      });
    });
  }

  /**
   * Connects to `url` (postgres://user@host:port/database, `?host=/socket/dir` for a Unix socket,
   * `?schema=name`, `?sslmode=verify-full&sslrootcert=ca.pem`, `?service=name`; '' or omitted: the
   * env's GPUALLOC_STORE, else the libpq variables alone) and brings the schema up to date (unless
   * `migrate: false`). Settings the URL leaves out come from the service (PGSERVICE), then the libpq
   * variables, so a password need not be in the URL (PGPASSWORD, PGPASSFILE or ~/.pgpass). A server
   * that is restarting is waited for (retryMs).
   */
  static async open(url?: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const { opts, target, config, schema, max, bounds } = await connectSettings(url, options);
    const store = new PostgresStore(target, config, schema, max, bounds);
    try {
      const version = await store.schemaVersion();
      if (version > SCHEMA_VERSION)
        throw new AllocationError('STORE_UNAVAILABLE', `store ${store.target}: schema ${schema} is at version ${version}, newer than this gpualloc's ${SCHEMA_VERSION}; upgrade gpualloc`);
      if (version < SCHEMA_VERSION) {
        if (opts.migrate === false)
          throw new AllocationError(
            'STORE_UNAVAILABLE',
            `store ${store.target}: schema ${schema} is at version ${version}, this gpualloc needs ${SCHEMA_VERSION}; run gpualloc state init or connect with migrate`,
          );
        await store.migrate();
      }
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw storeError(error, { ...store.ctx, what: `store ${store.target}` });
    }
    return store;
  }

  /** @deprecated The same as PostgresStore.open (factories that return a promise are named open…); kept for one release. */
  static connect(url?: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    return PostgresStore.open(url, options);
  }

  /** What this store's retries did since connect: retries, ambiguous COMMITs and how each was resolved, replays, resubscribes. */
  stats(): PostgresStoreStats {
    return { ...this.counts };
  }

  /** The schema version recorded in the database (0: no schema yet). */
  async schemaVersion(): Promise<number> {
    return this.transaction('schemaVersion', { idempotent: true }, async (c) => {
      const r = await c.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${this.s}.migrations`]);
      if (!r.rows[0].present) return { outcome: 0, commit: false };
      const v = await c.query(`SELECT coalesce(max(version), 0) AS version FROM ${this.s}.migrations`);
      return { outcome: v.rows[0].version as number, commit: false };
    });
  }

  /** Applies the migrations the database lacks, in order, in one transaction (concurrent callers take turns). Returns the versions applied. */
  async migrate(): Promise<number[]> {
    return this.transaction('migrate', { idempotent: true }, async (c) => {
      const applied: number[] = [];
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
      return { outcome: applied, commit: true };
    });
  }

  /**
   * Grants `role` what a run-time scheduler needs and nothing more: read the schema; insert, delete
   * and mark slots; bump node versions; record and prune request IDs; draw slot numbers. It cannot
   * create, alter or drop tables, change nodes' GPUs, totals or resources, or migrate. Run it as the
   * role that owns the schema (the migration role), after the migrations; again after an upgrade.
   */
  async grant(role: string): Promise<void> {
    const name = requireString('role', role, 63);
    const r = pgModule().escapeIdentifier(name);
    const s = this.s;
    await this.transaction('grant', { idempotent: true }, async (c) => {
      const exists = await c.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [name]);
      if (exists.rowCount === 0)
        throw new AllocationError('INVALID_ARGUMENT', `role: role ${JSON.stringify(name)} does not exist on ${this.target} (CREATE ROLE ${r} LOGIN creates it); nothing was granted`, {
          field: 'role',
        });
      for (const sql of grantStatements(s, r)) await c.query(sql);
      return { outcome: undefined, commit: true };
    });
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
    await this.transaction('init', { idempotent: false }, async (c) => {
      await c.query(`LOCK TABLE ${this.s}.nodes IN EXCLUSIVE MODE`);
      const count = (await c.query(`SELECT count(*)::integer AS n FROM ${this.s}.nodes`)).rows[0].n as number;
      if (count > 0 && !replace)
        throw new AllocationError('STORE_NOT_EMPTY', `store: schema ${this.schema} already holds ${count} node${count === 1 ? '' : 's'}; nothing was changed (pass replace to start over)`);
      if (count > 0) await c.query(`DELETE FROM ${this.s}.nodes`);
      // Request IDs name slots of the state being replaced: a retry must not find them.
      await c.query(`DELETE FROM ${this.s}.requests`);
      const { nodes, gpus, slots } = initRows(json);
      await c.query(
        `INSERT INTO ${this.s}.nodes (id, position, topology, cpu, host_memory, gpu_model, labels) SELECT id, position, topology, cpu, host_memory, gpu_model, labels FROM json_to_recordset($1) AS x(id text, position integer, topology jsonb, cpu bigint, host_memory bigint, gpu_model text, labels jsonb)`,
        [JSON.stringify(nodes)],
      );
      await c.query(
        `INSERT INTO ${this.s}.gpus (node, index, position, memory_total, memory_used, mig) SELECT node, index, position, memory_total, memory_used, mig FROM json_to_recordset($1) AS x(node text, index integer, position integer, memory_total bigint, memory_used bigint, mig boolean)`,
        [JSON.stringify(gpus)],
      );
      await c.query(
        `INSERT INTO ${this.s}.slots (id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory, part, parts) SELECT id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory, part, parts FROM json_to_recordset($1) AS x(ord integer, id text, node text, gpus integer[], memory_per_gpu bigint, model text, last_activity double precision, stale boolean, milli integer, cpu bigint, host_memory bigint, part integer, parts jsonb) ORDER BY ord`,
        [JSON.stringify(slots)],
      );
      if (json.nextSlot > 1) await c.query(`SELECT setval($1, $2, true)`, [`${this.s}.slot_id`, json.nextSlot - 1]);
      else await c.query(`SELECT setval($1, 1, false)`, [`${this.s}.slot_id`]);
      return true;
    });
  }

  async load(): Promise<StoreSnapshot> {
    return this.transaction<StoreSnapshot>('load', { idempotent: true }, async (c) => {
      await c.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`);
      const nodes = (await c.query(`SELECT id, topology, version, cpu, host_memory, gpu_model, labels FROM ${this.s}.nodes ORDER BY position`)).rows;
      const gpus = (await c.query(`SELECT node, index, memory_total, memory_used, mig FROM ${this.s}.gpus ORDER BY node, position`)).rows;
      const slots = (await c.query(`SELECT id, node, gpus, memory_per_gpu, model, last_activity, stale, milli, cpu, host_memory, parts FROM ${this.s}.slots ORDER BY added`)).rows;
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
        if (n.labels !== null) node.labels = n.labels;
        byNode.set(n.id, node);
        state.nodes.push(node);
        Object.defineProperty(versions, n.id, { value: n.version, enumerable: true, writable: true, configurable: true });
      }
      for (const g of gpus) byNode.get(g.node)!.gpus.push(gpuOf(g));
      for (const r of slots) byNode.get(r.node)!.slots.push(slotOf(r));
      // Read only: ended by ROLLBACK, so only changes send COMMIT (and only they can end ambiguously).
      return { outcome: { state, versions }, commit: false };
    });
  }

  async loadNodes(ids: readonly string[]): Promise<StoredNode[]> {
    const list = [...ids];
    const rows = await this.transaction('loadNodes', { idempotent: true }, async (c) => {
      const r = await c.query(`SELECT n.id, n.version, ${slotsJsonSql(this.s, 'n.id')} AS slots FROM ${this.s}.nodes n WHERE n.id = ANY ($1::text[])`, [list]);
      return { outcome: r.rows, commit: false };
    });
    const found = new Map(rows.map((row) => [row.id as string, row]));
    return list.map((id, k) => {
      const row = found.get(id);
      if (row === undefined) throw AllocationError.at('UNKNOWN_NODE', `ids[${k}]`, `node ${JSON.stringify(id)} is not in the store`);
      return { id, version: row.version, slots: row.slots };
    });
  }

  /**
   * Commits `option` (re-validated against the node's stored slots) as one slot. `requestId` (made
   * here when not given) is recorded with it: a retry after a lost COMMIT reply, or a later call with
   * the same ID, returns the slot the first one committed (`replayed: true`) instead of a second one.
   */
  async commit(option: PlacementOption, options: StoreCommitOptions = {}): Promise<StoreOutcome> {
    const o = requireObject('option', readInput('option', option)) as unknown as PlacementOption;
    // The nodes it names: its node, or every part's (a slot across nodes: one transaction over all of them).
    const own = o.parts === undefined ? [requireString('option.node', o.node, LIMITS.maxIdLength)] : validateParts(o.parts, 'option.parts').map((p) => p.node);
    const opts = requireObject('options', readInput('options', options, true, 'signal')) as StoreCommitOptions;
    rejectUnknownKeys('options', opts as Record<string, unknown>, ['id', 'lastActivity', 'requestId', 'signal']);
    const given = opts.id === undefined ? undefined : requireString('options.id', opts.id, LIMITS.maxIdLength);
    const requestId = requestIdOf(opts.requestId);
    const signal = signalOf(opts.signal);
    signal?.throwIfAborted();
    const commitOptions = opts.lastActivity === undefined ? {} : { lastActivity: opts.lastActivity };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction<StoreOutcome>('commit', { idempotent: true, requestId, ...(signal === undefined ? {} : { signal }) }, (c) =>
          this.commitOnce(c, own, o, commitOptions, given, requestId),
        );
      } catch (error) {
        if (!(error instanceof AllocationError)) throw error;
        // A generated ID that a caller had already chosen by hand: take the next number.
        if (error.code === 'DUPLICATE_SLOT' && given === undefined && attempt < 100) continue;
        // The trigger refused at COMMIT (it never should once applyCommit passed): a conflict like any other.
        if (error.code === 'CONFLICT') return { nodes: await this.loadNodes(own), error };
        throw error;
      }
    }
  }

  /**
   * One try of commit: locks every node the change touches (the option's, and those of the slots it
   * evicts, each part's of a slot across nodes) in one order, by ID, so that two writers never wait
   * on each other in a cycle; re-validates the option part by part against the slots it then reads;
   * writes every part, records the request, bumps every node's version and notifies.
   */
  private async commitOnce(c: Tx, own: readonly string[], o: PlacementOption, opts: { lastActivity?: number }, given: string | undefined, requestId: string): Promise<TxResult<StoreOutcome>> {
    const prior = await this.replay(c, requestId, 'commit');
    if (prior !== undefined) return { outcome: prior, commit: false };
    const evict = Array.isArray(o.evict) ? o.evict.filter((e): e is string => typeof e === 'string') : [];
    const evictedNodes = async (): Promise<string[]> =>
      evict.length === 0 ? [] : (await c.query(`SELECT DISTINCT node FROM ${this.s}.slots WHERE id = ANY ($1::text[])`, [evict])).rows.map((r) => r.node as string);
    const wanted = [...new Set([...own, ...(await evictedNodes())])];
    const locked = await c.query(`SELECT id, version, cpu, host_memory, gpu_model FROM ${this.s}.nodes WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE`, [wanted]);
    const byId = new Map(locked.rows.map((r) => [r.id as string, r]));
    own.forEach((node, j) => {
      if (!byId.has(node)) {
        const field = o.parts === undefined ? 'option.node' : `option.parts[${j}].node`;
        throw AllocationError.at('UNKNOWN_NODE', field, `node ${JSON.stringify(node)} is not in the store`);
      }
    });
    // A slot to evict that moved onto a node not locked meanwhile: tried again from the start.
    if ((await evictedNodes()).some((n) => !byId.has(n))) throw new RetryNow('a slot to evict moved meanwhile');
    const nodes = [...byId.keys()];
    const fresh = await c.query(`SELECT n.id, ${gpusJsonSql(this.s, 'n.id')} AS gpus, ${slotsJsonSql(this.s, 'n.id')} AS slots FROM ${this.s}.nodes n WHERE n.id = ANY ($1::text[])`, [nodes]);
    const records = fresh.rows.map((f): NodeRecord => {
      const row = byId.get(f.id)!;
      // A node without GPUs (CPU-only pods) has no GPU rows: json_agg over none is NULL.
      const record: NodeRecord = { id: f.id, gpus: f.gpus ?? [], slots: f.slots };
      if (row.cpu !== null) record.cpu = row.cpu;
      if (row.host_memory !== null) record.hostMemory = row.host_memory;
      if (row.gpu_model !== null) record.gpuModel = row.gpu_model;
      return record;
    });
    let change: CommitChange;
    try {
      change = applyCommit(records, o, opts, given ?? PENDING_ID);
    } catch (error) {
      if (error instanceof AllocationError && error.code === 'CONFLICT')
        return { outcome: { nodes: own.map((id) => ({ id, version: byId.get(id)!.version, slots: records.find((r) => r.id === id)!.slots })), error }, commit: false };
      throw error;
    }
    const sl = change.slot;
    const rows =
      sl.parts === undefined
        ? [{ node: own[0], part: 0, gpus: sl.gpus, memory_per_gpu: sl.memoryPerGpu }]
        : sl.parts.map((p, part) => ({ node: p.node, part, gpus: p.gpus, memory_per_gpu: p.memoryPerGpu }));
    // Every node it changed: its own, and those it evicted from.
    const touched = nodes.filter((id) => own.includes(id) || records.find((r) => r.id === id)!.slots.some((x) => change.evicted.includes(x.id)));
    await this.prune(c);
    // The default ID is numbered only now, so refused commits leave no gaps: slot-1, slot-2, … as in memory.
    const written = await c.query(
      `WITH gone AS (DELETE FROM ${this.s}.slots WHERE id = ANY ($2::text[])),
            sid AS (SELECT coalesce($3, 'slot-' || nextval('${this.s}.slot_id')) AS id),
            added AS (INSERT INTO ${this.s}.slots (id, node, part, parts, gpus, memory_per_gpu, model, last_activity, milli, cpu, host_memory)
                      SELECT sid.id, x.node, x.part, $13::jsonb, x.gpus, x.memory_per_gpu, $6, $7, $9, $10, $11
                      FROM sid, json_to_recordset($4::json) AS x(node text, part integer, gpus integer[], memory_per_gpu bigint) RETURNING id, part),
            request AS (INSERT INTO ${this.s}.requests (id, op, slot, node) SELECT $12, 'commit', added.id, $1 FROM added WHERE added.part = 0),
            bumped AS (UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = ANY ($5::text[]) RETURNING id, version)
       SELECT (SELECT added.id FROM added WHERE added.part = 0) AS slot, bumped.id AS node, bumped.version,
              pg_notify($8, bumped.version || ' ' || CASE WHEN octet_length(bumped.id) <= ${NOTIFY_ID_BYTES} THEN bumped.id ELSE '' END)
       FROM bumped`,
      [
        own[0],
        change.evicted,
        given ?? null,
        JSON.stringify(rows),
        touched,
        sl.model ?? null,
        sl.lastActivity ?? null,
        this.channel,
        sl.milli ?? null,
        sl.cpu ?? null,
        sl.hostMemory ?? null,
        requestId,
        sl.parts === undefined ? null : JSON.stringify(sl.parts),
      ],
    );
    const id = written.rows[0].slot as string;
    const version = new Map(written.rows.map((r) => [r.node as string, r.version as number]));
    const named = (list: Slot[]): Slot[] => list.map((x) => (x.id === PENDING_ID ? { ...x, id } : x));
    return { outcome: { id, nodes: touched.map((n) => ({ id: n, version: version.get(n)!, slots: named(change.slots.get(n)!) })) }, commit: true };
  }

  /**
   * Removes a slot, recording `requestId` (made here when not given) with the change: a retry after
   * a lost COMMIT reply, or a later call with the same ID, is answered from that record (success,
   * `replayed: true`) rather than UNKNOWN_SLOT. With `idleBefore`, only a slot last active before
   * that time, checked once its node is locked (a touch takes the same lock): else CONFLICT.
   */
  async release(slotId: string, options: StoreReleaseOptions = {}): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const opts = requireObject('options', readInput('options', options, true, 'signal'));
    const { idleBefore } = storeReleaseOptions(opts);
    const requestId = requestIdOf(opts.requestId);
    const signal = signalOf(opts.signal);
    const check = idleBefore === undefined ? undefined : (slot: Slot) => checkIdle(slot, { idleBefore });
    return this.changeSlot(
      'release',
      id,
      { idempotent: true, requestId, ...(signal === undefined ? {} : { signal }) },
      (nodes) => [
        `WITH gone AS (DELETE FROM ${this.s}.slots WHERE id = $2 AND node = ANY ($1::text[]) RETURNING id),
            request AS (INSERT INTO ${this.s}.requests (id, op, slot, node) SELECT $4, 'release', $2, $5 WHERE EXISTS (SELECT 1 FROM gone))
       UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = ANY ($1::text[]) AND EXISTS (SELECT 1 FROM gone)
       RETURNING id, version, pg_notify($3, version || ' ' || CASE WHEN octet_length(id) <= ${NOTIFY_ID_BYTES} THEN id ELSE '' END)`,
        [nodes, id, this.channel, requestId, nodes[0]],
      ],
      check,
    );
  }

  async markStale(slotId: string, stale: boolean): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const value = requireBoolean('stale', stale);
    return this.changeSlot('markStale', id, { idempotent: true }, (nodes) => [
      `WITH marked AS (UPDATE ${this.s}.slots SET stale = $4 WHERE id = $2 AND node = ANY ($1::text[]) RETURNING id)
       UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = ANY ($1::text[]) AND EXISTS (SELECT 1 FROM marked)
       RETURNING id, version, pg_notify($3, version || ' ' || CASE WHEN octet_length(id) <= ${NOTIFY_ID_BYTES} THEN id ELSE '' END)`,
      [nodes, id, this.channel, value],
    ]);
  }

  async touch(slotId: string, at: number): Promise<StoreOutcome> {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const time = activityTime('at', at);
    return this.changeSlot('touch', id, { idempotent: true }, (nodes) => [
      `WITH touched AS (UPDATE ${this.s}.slots SET last_activity = greatest(last_activity, $4::double precision) WHERE id = $2 AND node = ANY ($1::text[]) RETURNING id)
       UPDATE ${this.s}.nodes SET version = version + 1 WHERE id = ANY ($1::text[]) AND EXISTS (SELECT 1 FROM touched)
       RETURNING id, version, pg_notify($3, version || ' ' || CASE WHEN octet_length(id) <= ${NOTIFY_ID_BYTES} THEN id ELSE '' END)`,
      [nodes, id, this.channel, time],
    ]);
  }

  /**
   * LISTEN on the schema's channel through a connection of its own; resolves to a function that
   * stops it. When that connection is lost (a restart, a network cut), it connects and subscribes
   * again with backoff (up to 5 s between tries) for as long as it runs, then calls `listener('', 0)`:
   * anything may have changed meanwhile, so the listener reloads everything.
   */
  async watch(listener: StoreListener): Promise<() => Promise<void>> {
    const stop = await listen({
      config: this.config,
      channel: this.channel,
      listener,
      firstTry: (open) => this.retrying('watch', { idempotent: true }, open),
      onResubscribe: () => void this.counts.resubscribes++,
      onStop: () => void this.watchers.delete(stop),
    });
    this.watchers.add(stop);
    return stop;
  }

  /** close(), for `await using store = …`. */
  async [ASYNC_DISPOSE](): Promise<void> {
    await this.close();
  }

  /** Stops the change listeners and closes the pool. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      for (const stop of [...this.watchers]) await stop();
      await this.pool.end();
    })();
    return this.closing;
  }

  /** The outcome of an earlier request `requestId` (a replay), or undefined when there is none; INVALID_ARGUMENT when it was another kind of change. */
  private async replay(c: Tx, requestId: string, op: 'commit' | 'release', slotId?: string): Promise<StoreOutcome | undefined> {
    const prior = await c.query(`SELECT op, slot, node FROM ${this.s}.requests WHERE id = $1`, [requestId]);
    if (prior.rowCount === 0) return undefined;
    const p = prior.rows[0] as { op: string; slot: string; node: string };
    if (p.op !== op || (slotId !== undefined && p.slot !== slotId)) {
      throw new AllocationError(
        'INVALID_ARGUMENT',
        `options.requestId: request ${JSON.stringify(requestId)} was already used to ${p.op} slot ${JSON.stringify(p.slot)}; give each change its own request ID`,
        { field: 'options.requestId' },
      );
    }
    this.counts.replays++;
    const now = await c.query(`SELECT version, ${slotsJsonSql(this.s, 'id')} AS slots FROM ${this.s}.nodes WHERE id = $1`, [p.node]);
    const nodes: StoredNode[] = now.rowCount === 0 ? [] : [{ id: p.node, version: now.rows[0].version, slots: now.rows[0].slots }];
    return op === 'commit' ? { id: p.slot, nodes, replayed: true } : { nodes, replayed: true };
  }

  /** Deletes request IDs older than the retention, at most once a minute per store and a batch at a time (skipping rows others are deleting). */
  private async prune(c: Tx): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await c.query(`DELETE FROM ${this.s}.requests WHERE id IN (SELECT id FROM ${this.s}.requests WHERE at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`, [
      this.retentionMs,
    ]);
  }

  /**
   * Locks the nodes of `slotId` (one, or each part's of a slot across nodes, in one order by ID),
   * runs the change (which returns a version row per node, or none when the slot went meanwhile) and
   * reads the nodes' slots back. `check`, when given, sees the slot once its nodes are locked; its
   * CONFLICT is an outcome with `error` and changes nothing.
   */
  private async changeSlot(what: string, slotId: string, run: RunOptions, change: (nodes: string[]) => [string, unknown[]], check?: (slot: Slot) => void): Promise<StoreOutcome> {
    const requestId = run.requestId;
    return this.transaction<StoreOutcome>(what, run, async (c) => {
      if (requestId !== undefined) {
        const prior = await this.replay(c, requestId, 'release', slotId);
        if (prior !== undefined) return { outcome: prior, commit: false };
      }
      const nodesOf = async (): Promise<string[]> => (await c.query(`SELECT node FROM ${this.s}.slots WHERE id = $1 ORDER BY part`, [slotId])).rows.map((r) => r.node as string);
      const unknown = () => AllocationError.at('UNKNOWN_SLOT', 'slotId', `slot ${JSON.stringify(slotId)} is not in the store`);
      const nodes = await nodesOf();
      if (nodes.length === 0) throw unknown();
      const lock = await c.query(`SELECT id, version FROM ${this.s}.nodes WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE`, [nodes]);
      // Released and committed again on other nodes between the lookup and the lock: tried again from the start.
      const now = await nodesOf();
      if (now.length === 0) throw unknown();
      if (now.join('\u0000') !== nodes.join('\u0000')) throw new RetryNow('the slot moved meanwhile');
      const slotsOf = async (): Promise<Map<string, Slot[]>> =>
        new Map(
          (await c.query(`SELECT n.id, ${slotsJsonSql(this.s, 'n.id')} AS slots FROM ${this.s}.nodes n WHERE n.id = ANY ($1::text[])`, [nodes])).rows.map((r) => [r.id as string, r.slots as Slot[]]),
        );
      if (check !== undefined) {
        const slots = await slotsOf();
        const slot = slots.get(nodes[0]!)!.find((s) => s.id === slotId);
        if (slot === undefined) throw unknown();
        try {
          check(slot);
        } catch (error) {
          const version = new Map(lock.rows.map((r) => [r.id as string, r.version as number]));
          if (error instanceof AllocationError && error.code === 'CONFLICT')
            return { outcome: { nodes: nodes.map((id) => ({ id, version: version.get(id)!, slots: slots.get(id)! })), error }, commit: false };
          throw error;
        }
      }
      if (requestId !== undefined) await this.prune(c);
      const [text, values] = change(nodes);
      const done = await c.query(text, values);
      if (done.rowCount === 0) throw unknown(); // released by another writer between the lookup and the lock
      const version = new Map(done.rows.map((r) => [r.id as string, r.version as number]));
      const slots = await slotsOf();
      return { outcome: { nodes: nodes.map((id) => ({ id, version: version.get(id)!, slots: slots.get(id)! })) }, commit: true };
    });
  }

  /**
   * Runs `fn` in a transaction on one pooled connection: COMMIT when it says so, ROLLBACK otherwise
   * or when it throws. A connection that failed is discarded, not returned to the pool. Tried again
   * (see retrying) after a transient failure.
   */
  private async transaction<T>(what: string, run: RunOptions, fn: (c: Tx) => Promise<TxResult<T> | T>): Promise<T> {
    return this.retrying(what, run, async (flight) => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        const wrapped = typeof result === 'object' && result !== null && 'commit' in result && 'outcome' in result;
        const commit = wrapped ? (result as TxResult<T>).commit : true;
        if (commit) flight.committing = true;
        await client.query(commit ? 'COMMIT' : 'ROLLBACK');
        flight.committing = false;
        return wrapped ? (result as TxResult<T>).outcome : (result as T);
      } catch (failure) {
        // A connection the server dropped between statements fails with "not queryable": the server's own word is the cause.
        const error = this.lost.get(client) ?? failure;
        if (connectionUsable(error) && !flight.committing) {
          try {
            await client.query('ROLLBACK');
          } catch (rollback) {
            broken = rollback as Error;
          }
        } else broken = error instanceof Error ? error : new Error(String(error));
        // A concurrent try of the same request (an earlier, cut-off one) committed first: look again.
        if ((error as { code?: string; constraint?: string }).code === '23505' && (error as { constraint?: string }).constraint === 'requests_pkey')
          throw new RetryNow('request recorded meanwhile', { cause: error });
        throw error;
      } finally {
        client.release(broken ?? this.lost.get(client));
      }
    });
  }

  private retrying<T>(what: string, run: RunOptions, fn: (flight: { committing: boolean }) => Promise<T>): Promise<T> {
    return retrying({ ctx: this.ctx, retryMs: this.retryMs, counts: this.counts }, what, run, fn);
  }
}
