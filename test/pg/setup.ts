// Global setup of the PostgreSQL suite: starts one server for every file (provided as `pgUrl`,
// '' when there is none) and stops it at the end.
import type { TestProject } from 'vitest/node';
import { findPgBin, startPg } from '../../bench/pg-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default function setup(project: TestProject): (() => void) | undefined {
  if (findPgBin() === undefined) {
    if (process.env.GPUALLOC_REQUIRE_PG === '1') throw new Error('GPUALLOC_REQUIRE_PG=1 but no PostgreSQL server binaries were found (apt-get install postgresql, or set PG_BIN)');
    console.warn('PostgreSQL store tests: no server binaries (/usr/lib/postgresql/<version>/bin or PG_BIN); skipping them');
    project.provide('pgUrl', '');
    return undefined;
  }
  const server = startPg();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
