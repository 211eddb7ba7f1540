// The replay of one stream of claims under first-fit and scored (no DOM): the stream draws claims
// from the dump's own claims (its shapes) with a seeded generator until what arrives reaches 100 %
// of the fleet's GPUs (FGD's protocol: a claim that fails is skipped); each mode schedules the same
// stream through its own cluster handle, and the allocated share of the fleet is recorded after
// every arrival.
import { claimsOfDump, type DraDump, type DraMode, type Engine, type NodeScore } from '../../src/index.ts';
import { type GpuMap, gpuStates, totals } from './counters.ts';

/** The claims of one stream and what each would take on an empty fleet. */
export interface ClaimStream {
  /** ResourceClaim objects, in arrival order (named `<template>-<n>`). */
  claims: unknown[];
  /** The `namespace/name` of each. */
  labels: string[];
  /** Arrived load after each claim, in % of the fleet's GPUs (what is held in the dump counts from the start). */
  arrived: number[];
  /** Arrived load before the first claim (the dump's held claims), in %. */
  start: number;
}

/** A stream as the page keeps it: without its claim objects, with their count. */
export type StreamSummary = Omit<ClaimStream, 'claims'> & { count: number };

/** One mode's run over a stream. */
export interface ReplayRun {
  mode: DraMode;
  /** Per arrival: the node it went to, or undefined when no node could take it. */
  node: Array<string | undefined>;
  /** Per arrival: the devices it was given (`driver/pool/device`). */
  devices: string[][];
  /** Allocated share of the fleet's GPUs after each arrival, in %. */
  share: number[];
  /** Share before the first arrival (the dump's held claims), in %. */
  start: number;
  /** Index of the first claim that did not fit, or -1. */
  firstFailure: number;
  /** Placements the counters no longer allow at the end (free GPU pieces no claim shape of the driver can use). */
  blockedEnd: number;
}

/** A small seeded generator (mulberry32): the same seed gives the same stream. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type RawClaim = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string }; spec?: unknown };

/** GPUs' worth the devices take (Σ per GPU of used units / units). */
function gpusTaken(map: GpuMap, devices: Iterable<string>): number {
  return totals(map.gpus, gpuStates(map, devices)).allocated;
}

/** A claim object of the stream: the template's spec under a new name, with no status. */
function copyClaim(template: RawClaim, name: string): RawClaim {
  return {
    apiVersion: template.apiVersion ?? 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, ...(template.metadata.namespace !== undefined ? { namespace: template.metadata.namespace } : {}) },
    spec: JSON.parse(JSON.stringify(template.spec ?? {})) as unknown,
  };
}

/**
 * Draws a stream from the dump's claims (every claim's spec is a template; a template no node of the
 * empty fleet can take is left out) until the arrived load reaches 100 % of the fleet's GPUs.
 */
export function claimStream(engine: Engine, dump: DraDump, map: GpuMap, seed: number): ClaimStream {
  const fleet = map.gpus.length;
  const { held } = claimsOfDump(dump.claims);
  const start = fleet === 0 ? 0 : (100 * gpusTaken(map, held.allocatedDevices)) / fleet;
  const templates: Array<{ claim: RawClaim; size: number }> = [];
  // Each template's size: what it takes when it is the only claim on the fleet (scheduled, then
  // released), once per distinct spec; claims of one spec stay templates each, so the stream keeps
  // the dump's mix of shapes.
  const probe = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, mode: 'first-fit' });
  const sizeOf = new Map<string, number>();
  for (const object of dump.claims as RawClaim[]) {
    const spec = JSON.stringify(object.spec ?? {});
    let size = sizeOf.get(spec);
    if (size === undefined) {
      const claim = copyClaim(object, object.metadata.name);
      const r = probe.schedule(claim);
      size = 0;
      if (r.reason === undefined) {
        probe.release(claim);
        size = gpusTaken(
          map,
          r.results.flatMap((a) => a.devices.results.map((d) => `${d.driver}/${d.pool}/${d.device}`)),
        );
      }
      sizeOf.set(spec, size);
    }
    if (size > 0) templates.push({ claim: object, size });
  }
  const out: ClaimStream = { claims: [], labels: [], arrived: [], start };
  if (templates.length === 0 || fleet === 0) return out;
  const random = seededRandom(seed);
  let arrived = start;
  const cap = 20 * fleet;
  while (arrived < 100 && out.claims.length < cap) {
    const t = templates[Math.floor(random() * templates.length)];
    const n = out.claims.length + 1;
    const claim = copyClaim(t.claim, `${t.claim.metadata.name}-${n}`);
    out.claims.push(claim);
    out.labels.push(claim.metadata.namespace !== undefined && claim.metadata.namespace !== '' ? `${claim.metadata.namespace}/${claim.metadata.name}` : claim.metadata.name);
    arrived += (100 * t.size) / fleet;
    out.arrived.push(arrived);
  }
  return out;
}

/** Schedules the stream, claim by claim, on a fresh handle of the dump in `mode` (the dump's held claims hold theirs). */
export function replay(engine: Engine, dump: DraDump, map: GpuMap, stream: ClaimStream, mode: DraMode, nodeScore: NodeScore, progress?: (done: number) => void): ReplayRun {
  const { held } = claimsOfDump(dump.claims);
  const cluster = engine.createDraCluster({ classes: dump.classes, slices: dump.slices, nodes: dump.nodes, ...held, mode, nodeScore });
  const fleet = Math.max(map.gpus.length, 1);
  const inUse = new Set(held.allocatedDevices);
  const run: ReplayRun = { mode, node: [], devices: [], share: [], start: (100 * gpusTaken(map, inUse)) / fleet, firstFailure: -1, blockedEnd: 0 };
  stream.claims.forEach((claim, k) => {
    const r = cluster.schedule(claim);
    const devices = r.results.flatMap((a) => a.devices.results.filter((d) => d.adminAccess !== true).map((d) => `${d.driver}/${d.pool}/${d.device}`));
    for (const d of devices) inUse.add(d);
    if (r.reason !== undefined && run.firstFailure < 0) run.firstFailure = k;
    run.node.push(r.node);
    run.devices.push(devices);
    run.share.push((100 * gpusTaken(map, inUse)) / fleet);
    progress?.(k + 1);
  });
  run.blockedEnd = totals(map.gpus, gpuStates(map, inUse)).blocked;
  return run;
}
