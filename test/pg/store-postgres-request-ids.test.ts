// Request IDs make a change happen once however often it is sent: a commit repeated with its
// request ID returns the slot it committed (replayed) and adds none, from any replica or process; a
// repeated release succeeds; an ID reused for another change is refused by name; `init` with
// replace forgets them. The CLI's `plan --commit --request-id` and `state release --request-id` do
// the same, and when the store goes away while a COMMIT is in flight the CLI exits 4 (unknown)
// naming the ID, and the repeat tells what happened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import { openClusterState } from '../../src/store/stored-state.js';
import { cli } from '../support/cli.js';
import { FaultProxy } from './fault-proxy.js';
import { freshStore, noPg, pgUrl, sql, uniformNodes } from './pg-context.js';

describe.skipIf(noPg)('PostgresStore request IDs', () => {
  let store: PostgresStore;
  let engine: Engine;
  let schema: string;
  beforeAll(async () => {
    ({ store, engine, schema } = await freshStore('requests', uniformNodes(2, 2, 100)));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('a repeated commit returns its slot and adds none; a repeated release succeeds; a reused ID is refused', async () => {
    const option = { node: 'n0', gpus: [0], memoryPerGpu: 60, evict: [], score: 0 };
    const first = await store.commit(option, { requestId: 'job-1' });
    expect(first).toMatchObject({ id: 'slot-1' });
    expect(first.replayed).toBeUndefined();
    const again = await store.commit(option, { requestId: 'job-1' });
    expect(again).toMatchObject({ id: 'slot-1', replayed: true });
    // Even a different option (a retry that re-planned) gets the first commit's slot.
    const replica = await openClusterState(engine, store, { watch: false });
    expect(await replica.commit({ ...option, node: 'n1' }, { requestId: 'job-1' })).toBe('slot-1');
    const retried = await replica.commitWithRetry({ memory: 60, tensorParallelSizes: [1] }, { requestId: 'job-1' });
    expect(retried).toMatchObject({ committed: 'slot-1', replayed: true });
    expect(retried.option).toBeUndefined();
    const db = await sql();
    try {
      expect((await db.query(`SELECT id, node FROM ${schema}.slots`)).rows).toEqual([{ id: 'slot-1', node: 'n0' }]);
      expect((await db.query(`SELECT version::integer AS v FROM ${schema}.nodes WHERE id = 'n0'`)).rows[0].v).toBe(2);
      await store.release('slot-1', { requestId: 'free-1' });
      expect(await store.release('slot-1', { requestId: 'free-1' })).toMatchObject({ replayed: true, nodes: [{ id: 'n0', version: 3, slots: [] }] });
      await expect(store.release('slot-1', { requestId: 'free-2' })).rejects.toMatchObject({ code: 'UNKNOWN_SLOT' });
      await expect(store.release('slot-1', { requestId: 'job-1' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        field: 'options.requestId',
        message: expect.stringContaining('already used to commit slot "slot-1"'),
      });
      await expect(store.commit(option, { requestId: 'free-1' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.requestId' });
      for (const bad of ['', 7]) await expect(store.commit(option, { requestId: bad as string })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.requestId' });
      await expect(store.commit(option, { requestId: 'x'.repeat(201) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', field: 'options.requestId' });
      await expect(store.commit(option, { requestid: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'options.requestid' });
      expect((await db.query(`SELECT id, op, slot FROM ${schema}.requests ORDER BY id`)).rows).toEqual([
        { id: 'free-1', op: 'release', slot: 'slot-1' },
        { id: 'job-1', op: 'commit', slot: 'slot-1' },
      ]);
      // A new state forgets the old requests: job-1 commits anew.
      await store.init(engine.createClusterState({ nodes: uniformNodes(2, 2, 100) }), { replace: true });
      expect((await store.commit(option, { requestId: 'job-1' })).replayed).toBeUndefined();
      // Every commit carries an ID, made by the store when the caller gives none.
      await store.commit({ ...option, gpus: [1] });
      expect((await db.query(`SELECT count(*)::integer AS n FROM ${schema}.requests WHERE op = 'commit'`)).rows[0].n).toBe(2);
    } finally {
      await db.end();
    }
  });
});

describe.skipIf(noPg)('gpualloc plan --commit --request-id, state release --request-id', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await FaultProxy.start({ path: `${new URL(pgUrl).searchParams.get('host')}/.s.PGSQL.5432` });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('a repeat returns the committed slot (exit 0); a store lost while COMMIT is in flight is exit 4 naming the ID, and the repeat resolves it', async () => {
    const { store, schema } = await freshStore('cli_requests', uniformNodes(1, 4, 100 * 2 ** 30));
    await store.close();
    const url = `postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=${schema}`;
    const plan = (id: string, json = true) =>
      cli(['plan', '--memory', '60GiB', '--tp', '1', '--commit', '--request-id', id, ...(json ? ['--json'] : []), '--store', url], { GPUALLOC_STORE_RETRY_MS: '300' });
    const first = await plan('deploy-7');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ committed: 'slot-1' });
    const repeat = await plan('deploy-7', false);
    expect(repeat.code).toBe(0);
    expect(repeat.stdout).toContain('request deploy-7 was committed before, as slot slot-1; nothing new was committed');
    expect(JSON.parse((await plan('deploy-7')).stdout)).toMatchObject({ committed: 'slot-1', replayed: true });
    // The reply to COMMIT is lost and the store stays unreachable past GPUALLOC_STORE_RETRY_MS: unknown, exit 4.
    proxy.arm('after-commit-reply');
    proxy.once('cut', () => proxy.refuse(true));
    const lost = await plan('deploy-8');
    proxy.refuse(false);
    expect(lost.code).toBe(4);
    expect(JSON.parse(lost.stdout).error).toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('whether request "deploy-8" was applied is unknown') });
    // It had landed: the repeat says so, with its slot.
    const found = await plan('deploy-8');
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ committed: 'slot-2', replayed: true });
    // Releases: a repeat of one that landed succeeds; without the ID the slot is simply unknown.
    const release = (slot: string, extra: string[] = []) => cli(['state', 'release', slot, ...extra, '--store', url], { GPUALLOC_STORE_RETRY_MS: '300' });
    expect((await release('slot-1', ['--request-id', 'undeploy-7'])).code).toBe(0);
    const again = await release('slot-1', ['--request-id', 'undeploy-7']);
    expect({ code: again.code, out: again.stdout }).toEqual({ code: 0, out: 'slot slot-1 was released before, by request undeploy-7; nothing new was changed\n' });
    expect((await release('slot-1')).code).toBe(2);
    // --request-id belongs to a change through a store.
    expect((await cli(['plan', '--memory', '60GiB', '--request-id', 'x', '--store', url])).code).toBe(2);
    expect((await cli(['state', 'list', '--request-id', 'x', '--store', url])).code).toBe(2);
  });
});
