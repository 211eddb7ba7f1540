// What a run-time role may do in a store's schema: read it, insert, delete and mark slots, bump node
// versions, record and prune request IDs, draw slot numbers; nothing that creates, alters or drops
// tables, or changes a node's GPUs, totals or resources (PostgresStore.grant, state init --grant).

/** The GRANTs of a run-time role `r` (quoted) on schema `s` (quoted): see PostgresStore.grant. */
export function grantStatements(s: string, r: string): string[] {
  return [
    `GRANT USAGE ON SCHEMA ${s} TO ${r}`,
    `GRANT SELECT ON ${s}.migrations, ${s}.nodes, ${s}.gpus, ${s}.slots, ${s}.gpu_usage, ${s}.requests TO ${r}`,
    // Locking a node row (FOR NO KEY UPDATE) needs UPDATE on a column; version is the only one a change writes.
    `GRANT UPDATE (version) ON ${s}.nodes TO ${r}`,
    `GRANT INSERT, DELETE, UPDATE (stale) ON ${s}.slots TO ${r}`,
    // Pruning old request IDs skips rows another writer is pruning (FOR UPDATE SKIP LOCKED), which needs UPDATE on a column.
    `GRANT INSERT, DELETE, UPDATE (at) ON ${s}.requests TO ${r}`,
    `GRANT USAGE, SELECT ON SEQUENCE ${s}.slot_id, ${s}.slot_order TO ${r}`,
  ];
}
