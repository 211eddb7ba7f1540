// The input of `gpualloc dra`: files or standard input (`-`), JSON or YAML as kubectl writes them,
// each read once however many flags name it, and merged into one dump. Kinds the scheduler does
// not use are counted and said once on stderr; fields a newer Kubernetes wrote are warned about.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyTaintRules, type ClusterDump, type ClusterDumpOptions, emptyDump, readClusterDump, readDocuments } from '../../dra/index.js';
import { AllocationError } from '../../shared/errors.js';
import type { Io } from './common.js';

/** The kinds each input flag takes from its file. */
export type DumpPart = 'classes' | 'slices' | 'claims' | 'nodes' | 'pods';

/** The text of a file, or of standard input for `-` (read once). */
async function textOf(io: Io, file: string): Promise<string> {
  if (file === '-') {
    if (io.stdin === undefined) throw new AllocationError('INVALID_ARGUMENT', '-: standard input is not available here', { field: 'file' });
    return io.stdin();
  }
  try {
    return await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new AllocationError('INVALID_ARGUMENT', `${file}: cannot read: ${(error as Error).message}`, { field: 'file', cause: error });
  }
}

/** Reads one file (or `-`) into a dump; the name is how errors say where (`<stdin>` for `-`). */
export async function readDumpFile(io: Io, file: string, options: ClusterDumpOptions): Promise<ClusterDump> {
  const origin = file === '-' ? '<stdin>' : file;
  return readClusterDump(await readDocuments(await textOf(io, file), origin), origin, { ...options, applyTaintRules: false });
}

/**
 * The dump the flags name: each part from its own flag's file or from `--dump` (several files
 * may serve one part: `--dump` is repeatable). Files are read once; warnings and the count of
 * skipped kinds go to stderr.
 */
export async function readInputs(io: Io, files: { dump?: string[]; parts: Partial<Record<DumpPart, string>> }, options: ClusterDumpOptions): Promise<ClusterDump & { files: string[] }> {
  const cache = new Map<string, ClusterDump>();
  const read = async (file: string): Promise<ClusterDump> => cache.get(file) ?? cache.set(file, await readDumpFile(io, file, options)).get(file)!;
  const out: ClusterDump & { files: string[] } = { ...emptyDump(), files: [] };
  const take = (from: ClusterDump, part: DumpPart): void => {
    if (part === 'nodes') {
      out.nodes.push(...from.nodes);
      out.nodeInfos.push(...from.nodeInfos);
    } else if (part === 'pods') {
      // PodGroups go with the pods that name them.
      out.pods.push(...from.pods.map((p) => ({ ...p, order: out.pods.length + p.order })));
      out.podGroups.push(...from.podGroups);
    } else if (part === 'claims') {
      out.claims.push(...from.claims);
      out.templates.push(...from.templates);
    } else out[part].push(...(from[part] as never[]));
  };
  const parts: DumpPart[] = ['classes', 'slices', 'claims', 'nodes', 'pods'];
  for (const file of files.dump ?? []) {
    const d = await read(file);
    for (const part of parts) if (files.parts[part] === undefined) take(d, part);
  }
  for (const part of parts) {
    const file = files.parts[part];
    if (file !== undefined) take(await read(file), part);
  }
  const dumps = [...cache.values()];
  out.locate = (object, field) => {
    for (const d of dumps) {
      const found = d.locate(object, field);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const [file, d] of cache) {
    out.files.push(file);
    for (const [k, v] of d.invalid) out.invalid.set(k, v);
    for (const [k, v] of d.places) out.places.set(k, v);
    out.taintRules.push(...d.taintRules);
    for (const [kind, n] of Object.entries(d.skipped)) out.skipped[kind] = (out.skipped[kind] ?? 0) + n;
    for (const w of d.warnings) io.err(`gpualloc: warning: ${file === '-' ? '<stdin>' : file}: ${w}\n`);
  }
  applyTaintRules(out);
  const skipped = Object.entries(out.skipped);
  if (skipped.length > 0) {
    const total = skipped.reduce((n, [, c]) => n + c, 0);
    io.err(`gpualloc: skipped ${total} object${total === 1 ? '' : 's'} of kinds the scheduler does not use (${skipped.map(([k, c]) => `${k} ${c}`).join(', ')})\n`);
  }
  return out;
}
