// Topology: links between GPU pairs and the pair-score table every topology-aware policy uses.
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, readInput, rejectUnknownKeys, requireArray, requireInteger, requireObject } from '../shared/validate.js';

/** PCIe path between two GPUs, nearest first (nvidia-smi topo -m names). */
export type PcieLevel = 'INTERNAL' | 'PIX' | 'PXB' | 'PHB' | 'NODE' | 'SYS';

/** One unordered GPU pair's connection. */
export type Link = { a: number; b: number; pcie?: PcieLevel; nvlink?: number };

/** The links of one node: `gpus` GPUs indexed 0..gpus-1, at most one entry per unordered pair. */
export type Topology = { gpus: number; links: readonly Link[] };

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
 * self-links, unknown PCIe levels, bad NVLink counts and pairs listed twice are errors. The copy is
 * frozen (links included). To skip validating a node's topology on every call, prepare the node
 * once (Engine.prepare) and pass the handle.
 */
export function validateTopology(value: unknown, field = 'topology'): Topology {
  const t = requireObject(field, readInput(field, value));
  rejectUnknownKeys(field, t, ['gpus', 'links']);
  const gpus = requireInteger(`${field}.gpus`, t.gpus, 0, LIMITS.maxGpus);
  const rawLinks = t.links === undefined ? [] : requireArray(`${field}.links`, t.links, (gpus * (gpus - 1)) / 2);
  const seen = new Map<number, number>();
  const links: Link[] = [];
  rawLinks.forEach((raw, i) => {
    const f = `${field}.links[${i}]`;
    const l = requireObject(f, raw);
    rejectUnknownKeys(f, l, ['a', 'b', 'pcie', 'nvlink']);
    const a = requireInteger(`${f}.a`, l.a, 0, Number.MAX_SAFE_INTEGER);
    const b = requireInteger(`${f}.b`, l.b, 0, Number.MAX_SAFE_INTEGER);
    if (a >= gpus) throw AllocationError.at('INVALID_TOPOLOGY', `${f}.a`, `GPU index ${a} is outside the topology of ${gpus} GPUs`);
    if (b >= gpus) throw AllocationError.at('INVALID_TOPOLOGY', `${f}.b`, `GPU index ${b} is outside the topology of ${gpus} GPUs`);
    if (a === b) throw AllocationError.at('INVALID_TOPOLOGY', f, `a GPU cannot link to itself (a = b = ${a})`);
    const link: Link = { a: Math.min(a, b), b: Math.max(a, b) };
    if (l.pcie !== undefined) {
      if (typeof l.pcie !== 'string' || !(PCIE_LEVELS as readonly string[]).includes(l.pcie)) fail('INVALID_TOPOLOGY', `${f}.pcie`, `one of ${PCIE_LEVELS.join(', ')}`, l.pcie);
      link.pcie = l.pcie as PcieLevel;
    }
    if (l.nvlink !== undefined) link.nvlink = requireInteger(`${f}.nvlink`, l.nvlink, 0, MAX_NVLINKS, 'INVALID_TOPOLOGY');
    const key = link.a * LIMITS.maxGpus + link.b;
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw AllocationError.at('INVALID_TOPOLOGY', f, `the pair (${link.a}, ${link.b}) is already given by ${field}.links[${prev}] (${describeValue(rawLinks[prev])})`);
    }
    seen.set(key, i);
    links.push(link);
  });
  links.sort((x, y) => x.a - y.a || x.b - y.b);
  for (const link of links) Object.freeze(link);
  return Object.freeze({ gpus, links: Object.freeze(links) as Link[] });
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

/** A validated topology, its pair-score matrix, and a number that identifies both (one per validation). */
export type CachedTopology = { readonly topology: Topology; readonly matrix: Int32Array; readonly key: number };

type _TopologyEntry = CachedTopology & {
  /** The raw fields as the caller gave them (they passed validation): a, b, pcie, nvlink per link. */
  readonly gpus: number;
  readonly hasLinks: boolean;
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly pcie: ReadonlyArray<string | undefined>;
  readonly nvlink: ReadonlyArray<number | undefined>;
};

/** How many distinct topologies topologyFor remembers (most recently used first). */
export const TOPOLOGY_CACHE_SIZE = 8;
const _recent: _TopologyEntry[] = [];
let _nextKey = 1;

/** True when `value` reads field for field as `e`'s raw input (so validating it would give `e.topology`). Reads each field once. */
function _sameTopology(value: unknown, e: _TopologyEntry): boolean {
  // Plain objects only (what readInput makes): an inherited field is never mistaken for an own one.
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const t = value as Record<string, unknown>;
  if (t.gpus !== e.gpus) return false;
  const links = t.links;
  if (links === undefined) return !e.hasLinks;
  if (!e.hasLinks || !Array.isArray(links) || links.length !== e.a.length) return false;
  const { a, b, pcie, nvlink } = e;
  for (let k = 0; k < links.length; k++) {
    const l = links[k] as Record<string, unknown> | null;
    if (l === null || typeof l !== 'object' || Object.getPrototypeOf(l) !== Object.prototype) return false;
    if (l.a !== a[k] || l.b !== b[k] || l.pcie !== pcie[k] || l.nvlink !== nvlink[k]) return false;
  }
  return true;
}

/** Moves entry `e` (at `i` in the recent list) to the front; returns it. */
function _touch(e: _TopologyEntry, i: number): _TopologyEntry {
  if (i > 0) {
    _recent.copyWithin(1, 0, i);
    _recent[0] = e;
  }
  return e;
}

/**
 * Validates a topology (as validateTopology, errors naming `field`) and returns it with its pair-score
 * matrix. Content-based cache: a value whose gpus and links read the same, field for field, as one of
 * the last TOPOLOGY_CACHE_SIZE topologies validated returns that entry (same frozen `topology`, same
 * `matrix` object, same `key`) after one compare, with no allocation: no re-validation, no matrix
 * build, and kernels that keep the matrix loaded see the same object. Callers must not modify either.
 */
export function topologyFor(value: unknown, field = 'topology'): CachedTopology {
  try {
    for (let i = 0; i < _recent.length; i++) {
      const e = _recent[i]!; // i < _recent.length
      if (_sameTopology(value, e)) return _touch(e, i);
    }
  } catch {
    // A getter or proxy trap threw: validation below reports it properly.
  }
  // Read once, validate that copy, and remember that copy's raw fields: what is compared next time is
  // exactly what was validated (a getter or proxy cannot answer differently the second time).
  const raw = readInput(field, value) as Record<string, unknown>;
  const topology = validateTopology(raw, field);
  const rawLinks = raw.links === undefined ? [] : (raw.links as Array<Record<string, unknown>>);
  const m = rawLinks.length;
  const a = new Int32Array(m);
  const b = new Int32Array(m);
  const pcie: Array<string | undefined> = new Array(m);
  const nvlink: Array<number | undefined> = new Array(m);
  for (let k = 0; k < m; k++) {
    const l = rawLinks[k]!; // k < m
    a[k] = l.a as number;
    b[k] = l.b as number;
    pcie[k] = l.pcie as string | undefined;
    nvlink[k] = l.nvlink as number | undefined;
  }
  const matrix = pairScoreMatrix(topology);
  const entry: _TopologyEntry = { topology, matrix, key: _nextKey++, gpus: topology.gpus, hasLinks: raw.links !== undefined, a, b, pcie, nvlink };
  if (_recent.length >= TOPOLOGY_CACHE_SIZE) _recent.pop();
  _recent.unshift(entry);
  return entry;
}

/** Sum of pair scores over every pair of a GPU set. */
export function setScore(matrix: Int32Array, n: number, gpus: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < gpus.length; i++) for (let j = i + 1; j < gpus.length; j++) s += matrix[gpus[i]! * n + gpus[j]!]!; // i, j < gpus.length; GPU indices < n
  return s;
}

/** A topology with no links (every pair scores 0): what a node without topology data looks like. */
export function flatTopology(gpus: number): Topology {
  return { gpus, links: [] };
}
