// The typical-pod distribution (FGD simulator pkg/utils/frag.go GetTypicalPods): the pods' shapes
// (cpu, per-GPU milli, GPU count, allowed-model list) by frequency, the most frequent first (a tie:
// the larger shape first), kept until they cover `threshold` of the pods, renormalized to sum to 1.
// Memory is not part of a shape.
import type { Pod } from './types.js';

/** One typical pod shape and its probability. */
export type TypicalPod = { cpu: number; milli: number; gpus: number; models: string[]; count: number; weight: number };

/** Compares model lists as the simulator compares its GpuType strings ('|'-joined). */
function typeOf(models: readonly string[]): string {
  return models.join('|');
}

/** The typical pods of `pods`, covering at least `threshold` (0..1, default 0.95) of them. */
export function typicalPods(pods: readonly Pod[], threshold = 0.95): TypicalPod[] {
  const counts = new Map<string, { cpu: number; milli: number; gpus: number; type: string; models: string[]; count: number }>();
  for (const p of pods) {
    const type = p.gpus === 0 ? '' : typeOf(p.models);
    const cpu = p.cpu === 0 ? 100 : p.cpu; // GetNonzeroRequests: a zero CPU request counts as 100m
    const key = `${cpu},${p.milli},${p.gpus},${type}`;
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { cpu, milli: p.milli, gpus: p.gpus, type, models: p.gpus === 0 ? [] : [...p.models], count: 1 });
  }
  const shapes = [...counts.values()].sort((a, b) => b.count - a.count || b.cpu - a.cpu || b.milli - a.milli || b.gpus - a.gpus || (a.type < b.type ? 1 : a.type > b.type ? -1 : 0));
  const kept: typeof shapes = [];
  let covered = 0;
  for (const s of shapes) {
    if (covered >= threshold * pods.length) break;
    kept.push(s);
    covered += s.count;
  }
  return kept.map((s) => ({ cpu: s.cpu, milli: s.milli, gpus: s.gpus, models: s.models, count: s.count, weight: s.count / covered }));
}
