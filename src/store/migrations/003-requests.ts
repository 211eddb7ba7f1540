// Migration 3: request identities. Every commit and release through PostgresStore carries a request
// ID (the caller's, or one the client makes), written in the same transaction as the change. A retry
// after an ambiguous failure (the connection dropped while COMMIT was in flight) finds its row and
// returns what the first try did, instead of committing a second slot or calling a released slot
// unknown. Rows older than the store's retention are deleted by later changes.
import type { Migration } from './types.js';

export const migration: Migration = {
  version: 3,
  name: 'requests: the request ID of every commit and release, for exactly-once retries',
  sql: (s) => `
CREATE TABLE ${s}.requests (
  id text PRIMARY KEY CHECK (octet_length(id) BETWEEN 1 AND 200),
  op text NOT NULL CHECK (op IN ('commit', 'release')),
  slot text NOT NULL,
  node text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX requests_at ON ${s}.requests (at);
`,
};
