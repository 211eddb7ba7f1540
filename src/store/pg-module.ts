// node-postgres, an optional peer dependency: imported when the first PostgresStore connects, so an
// install without PostgreSQL never needs it.
import type pg from 'pg';
import { importOptional } from '../shared/optional.js';

let _pg: typeof pg | undefined;

/** Imports node-postgres once; MISSING_DEPENDENCY naming `pg` where it is not installed. */
export async function loadPg(): Promise<typeof pg> {
  if (_pg === undefined) {
    const mod = (await importOptional('pg', 'PostgresStore', () => import('pg'))) as typeof pg & { default?: typeof pg };
    _pg = mod.default ?? mod;
  }
  return _pg;
}

/** node-postgres, once loadPg has resolved (every caller runs after PostgresStore.open). */
export function pgModule(): typeof pg {
  if (_pg === undefined) throw new Error('node-postgres used before PostgresStore.open loaded it');
  return _pg;
}
