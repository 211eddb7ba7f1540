// What the placement-quality bench counts of one stream, whoever places it (the DRA cluster handle,
// or the fleet room's FGD pod scheduler): GPUs allocated, claims placed before the first failure,
// multi-GPU claims split across PCIe roots and whether a root with enough untouched GPUs could
// have held them, µs per claim, CPU, and a digest of every placement.
import { createHash, type Hash } from 'node:crypto';
import type { Fleet, StreamClaim } from './dra-fleets/index.js';

/** One run: one stream on one fleet in one mode. */
export interface QualityRun {
  seed: number;
  claims: number;
  placed: number;
  /** GPUs allocated ÷ the fleet's GPUs when every claim of the stream has arrived. */
  allocatedShare: number;
  placedBeforeFirstFailure: number;
  /** Claims of ≥ 2 whole GPUs (pairs excluded: their constraint keeps them under one root). */
  multiGpu: number;
  /** Of those, allocated across PCIe roots; and how many of those a root with enough free whole GPUs could have held. */
  split: number;
  avoidableSplit: number;
  /** Wall time of each schedule call, µs. */
  latenciesUs: number[];
  /** Latencies of the claims that arrived while the fleet was 40–60 % allocated. */
  halfFullUs: number[];
  /** CPU time (user + system) of the run, ms (over every round, see `rounds`). */
  cpuMs: number;
  /** Times the stream ran (the rounds: the same placements each time); latencies and CPU cover them all. */
  rounds: number;
  /** CPU time of each round, ms. */
  cpuMsPerRound: number[];
  /** SHA-256 of every claim's node and devices in arrival order (what a speed change must keep). */
  placements: string;
}

/** Counts one stream's placements as they come (`place` each claim, then `finish`). */
export class StreamTally {
  readonly run: QualityRun;
  private readonly total: number;
  private readonly used = new Set<string>();
  /** Whole GPUs still untouched per PCIe root (for "could a root have held this claim"). */
  private readonly freePerRoot = new Map<string, number>();
  private readonly digest: Hash = createHash('sha256');
  private allocated = 0;
  private failedYet = false;
  private readonly cpu0 = process.cpuUsage();

  constructor(
    private readonly fleet: Fleet,
    seed: number,
    claims: number,
  ) {
    this.total = fleet.gpus.size;
    for (const g of fleet.gpus.values()) if (g.whole) this.freePerRoot.set(g.root, (this.freePerRoot.get(g.root) ?? 0) + 1);
    this.run = {
      seed,
      claims,
      placed: 0,
      allocatedShare: 0,
      placedBeforeFirstFailure: 0,
      multiGpu: 0,
      split: 0,
      avoidableSplit: 0,
      latenciesUs: [],
      halfFullUs: [],
      cpuMs: 0,
      rounds: 1,
      cpuMsPerRound: [],
      placements: '',
    };
  }

  /**
   * Places claim `c` by `place` (timed): it returns the placement's digest line and the GPUs it
   * took (keys of `fleet.gpus`), or undefined where the claim found no room.
   */
  place(c: StreamClaim, place: () => { line: string; gpus: string[] } | undefined): void {
    const run = this.run;
    const multi = c.wholeGpus >= 2 && c.shape !== 'pair';
    let roomInOneRoot = false;
    if (multi) for (const n of this.freePerRoot.values()) if (n >= c.wholeGpus) roomInOneRoot = true;
    const t0 = performance.now();
    const placed = place();
    const us = (performance.now() - t0) * 1000;
    run.latenciesUs.push(us);
    const share = this.allocated / this.total;
    if (share >= 0.4 && share <= 0.6) run.halfFullUs.push(us);
    if (placed === undefined) {
      this.failedYet = true;
      this.digest.update('-\n');
      return;
    }
    this.digest.update(`${placed.line}\n`);
    run.placed++;
    if (!this.failedYet) run.placedBeforeFirstFailure++;
    this.allocated += c.gpus;
    const roots = new Set<string>();
    for (const gpu of placed.gpus) {
      const entry = this.fleet.gpus.get(gpu);
      roots.add(entry?.root ?? '?');
      if (entry === undefined || this.used.has(gpu)) continue;
      this.used.add(gpu);
      if (entry.whole) this.freePerRoot.set(entry.root, (this.freePerRoot.get(entry.root) ?? 1) - 1);
    }
    if (multi) {
      run.multiGpu++;
      if (roots.size > 1) {
        run.split++;
        if (roomInOneRoot) run.avoidableSplit++;
      }
    }
  }

  /** The run, with its CPU time and digest. */
  finish(): QualityRun {
    const cpu = process.cpuUsage(this.cpu0);
    this.run.cpuMs = (cpu.user + cpu.system) / 1000;
    this.run.cpuMsPerRound.push(this.run.cpuMs);
    this.run.allocatedShare = this.allocated / this.total;
    this.run.placements = this.digest.digest('hex');
    return this.run;
  }
}
