// How many files a vitest suite runs at once (its configs' maxWorkers). Vitest's default, one less than
// the cores, runs the files one at a time on a 2-core machine while the main process leaves most of the
// other core idle: two there, one less than the cores elsewhere. The unit, deep and research files are
// independent (temporary folders of their own, no fixed ports) and CPU-bound far below their time
// limits. (The PostgreSQL suite keeps vitest's default: vitest.pg.config.ts says why.)
import { availableParallelism } from 'node:os';

export const WORKERS = Math.max(2, availableParallelism() - 1);
