// The PostgreSQL store's schema, as numbered migrations applied in order and recorded in
// <schema>.migrations. A migration is never edited once released: changes are a new number.
import { migration as m001 } from './001-cluster-state.js';
import { migration as m002 } from './002-pods.js';
import { migration as m003 } from './003-requests.js';
import { migration as m004 } from './004-gpu-mig.js';
import { migration as m005 } from './005-multi-node.js';
import type { Migration } from './types.js';

export type { Migration };

/** Every migration, in order; the last one's version is the schema version this package writes. */
export const MIGRATIONS: readonly Migration[] = [m001, m002, m003, m004, m005];

/** The schema version this package creates and expects. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version; // the list above is not empty
