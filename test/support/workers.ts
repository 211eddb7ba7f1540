// How many files a vitest suite runs at once (its configs' maxWorkers). Vitest's default, one less than
// the cores, runs the files one at a time on a 2-core machine while the main process leaves most of the
// other core idle: two there, one less than the cores elsewhere. The files of every suite are
// independent (temporary folders of their own, no fixed ports; the PostgreSQL files in schemas of
// their own on the shared server, or on servers of their own in folders of their own).
import { availableParallelism } from 'node:os';

export const WORKERS = Math.max(2, availableParallelism() - 1);
