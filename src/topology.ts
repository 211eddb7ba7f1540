// Topology: links between GPU pairs and the pair-score table every topology-aware policy uses.
import { AllocationError } from './errors.js';
import { LIMITS } from './limits.js';
import { describeValue, fail, readInput, requireArray, requireInteger, requireObject } from './validate.js';

/** PCIe path between two GPUs, nearest first (nvidia-smi topo -m names). */
export type PcieLevel = 'INTERNAL' | 'PIX' | 'PXB' | 'PHB' | 'NODE' | 'SYS';

/** One unordered GPU pair's connection. */
export type Link = { a: number; b: number; pcie?: PcieLevel; nvlink?: number };

/** The links of one node: `gpus` GPUs indexed 0..gpus-1, at most one entry per unordered pair. */
export type Topology = { gpus: number; links: Link[] };

/** go-gpuallocator's pair scores (also HAMi's): the PCIe part of a pair's score. */
export const PCIE_SCORE: Readonly<Record<PcieLevel, number>> = Object.freeze({ INTERNAL: 60, PIX: 50, PXB: 40, PHB: 30, NODE: 20, SYS: 10 });

/** Score added per NVLink between a pair. */
export const NVLINK_SCORE = 100;

/** PCIe levels, nearest first. */
export const PCIE_LEVELS: readonly PcieLevel[] = ['INTERNAL', 'PIX', 'PXB', 'PHB', 'NODE', 'SYS'];

/** NVML's nvmlGpuTopologyLevel_t values mapped to our names. */
export const NVML_TOPOLOGY_LEVEL: Readonly<Record<number, PcieLevel>> = Object.freeze({ 0: 'INTERNAL', 10: 'PIX', 20: 'PXB', 30: 'PHB', 40: 'NODE', 50: 'SYS' });

/** Most NVLinks accepted between one pair (NVML 13.3 has 36 links per GPU). */
export const MAX_NVLINKS = 64;

/** Score of one pair's link: PCIe part plus 100 per NVLink; a missing pair scores 0. */
export function linkScore(link: { pcie?: PcieLevel; nvlink?: number } | undefined): number {
  if (link === undefined) return 0;
  return (link.pcie === undefined ? 0 : PCIE_SCORE[link.pcie]) + NVLINK_SCORE * (link.nvlink ?? 0);
}

/**
 * Checks a topology and returns a normalised copy (links with a < b, sorted). Unknown indices,
 * self-links, unknown PCIe levels, bad NVLink counts and pairs listed twice are errors.
 */
export function validateTopology(value: unknown, field = 'topology'): Topology {
  const t = requireObject(field, readInput(field, value));
  const gpus = requireInteger(`${field}.gpus`, t.gpus, 0, LIMITS.maxGpus);
  const rawLinks = t.links === undefined ? [] : requireArray(`${field}.links`, t.links, (gpus * (gpus - 1)) / 2);
  const seen = new Map<number, number>();
  const links: Link[] = [];
  rawLinks.forEach((raw, i) => {
    const f = `${field}.links[${i}]`;
    const l = requireObject(f, raw);
    const a = requireInteger(`${f}.a`, l.a, 0, Number.MAX_SAFE_INTEGER);
    const b = requireInteger(`${f}.b`, l.b, 0, Number.MAX_SAFE_INTEGER);
    if (a >= gpus) throw new AllocationError('INVALID_TOPOLOGY', `${f}.a: GPU index ${a} is outside the topology of ${gpus} GPUs`, { field: `${f}.a` });
    if (b >= gpus) throw new AllocationError('INVALID_TOPOLOGY', `${f}.b: GPU index ${b} is outside the topology of ${gpus} GPUs`, { field: `${f}.b` });
    if (a === b) throw new AllocationError('INVALID_TOPOLOGY', `${f}: a GPU cannot link to itself (a = b = ${a})`, { field: f });
    const link: Link = { a: Math.min(a, b), b: Math.max(a, b) };
    if (l.pcie !== undefined) {
      if (typeof l.pcie !== 'string' || !(PCIE_LEVELS as readonly string[]).includes(l.pcie)) fail('INVALID_TOPOLOGY', `${f}.pcie`, `one of ${PCIE_LEVELS.join(', ')}`, l.pcie);
      link.pcie = l.pcie as PcieLevel;
    }
    if (l.nvlink !== undefined) link.nvlink = requireInteger(`${f}.nvlink`, l.nvlink, 0, MAX_NVLINKS, 'INVALID_TOPOLOGY');
    const key = link.a * LIMITS.maxGpus + link.b;
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw new AllocationError('INVALID_TOPOLOGY', `${f}: the pair (${link.a}, ${link.b}) is already given by ${field}.links[${prev}] (${describeValue(rawLinks[prev])})`, { field: f });
    }
    seen.set(key, i);
    links.push(link);
  });
  links.sort((x, y) => x.a - y.a || x.b - y.b);
  return { gpus, links };
}

const matrixCache = new WeakMap<object, Int32Array>();

/**
 * The n×n pair-score matrix (row-major, zero diagonal) of a topology. Cached per topology object:
 * build it once and pass the same object again to skip the work.
 */
export function pairScoreMatrix(topology: Topology): Int32Array {
  const cached = matrixCache.get(topology);
  if (cached !== undefined) return cached;
  const n = topology.gpus;
  const m = new Int32Array(n * n);
  for (const l of topology.links) {
    const s = linkScore(l);
    m[l.a * n + l.b] = s;
    m[l.b * n + l.a] = s;
  }
  matrixCache.set(topology, m);
  return m;
}

/** Sum of pair scores over every pair of a GPU set. */
export function setScore(matrix: Int32Array, n: number, gpus: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < gpus.length; i++) for (let j = i + 1; j < gpus.length; j++) s += matrix[gpus[i] * n + gpus[j]];
  return s;
}

/** A topology with no links (every pair scores 0): what a node without topology data looks like. */
export function flatTopology(gpus: number): Topology {
  return { gpus, links: [] };
}
