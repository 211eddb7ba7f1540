// The CLI's edges a new user meets (issue 29, point 5): each usage error exits 2 naming the flag, and
// is found before any work; each behaviour is what the help says.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseBytes, unitsOf } from '../../src/shared/units.js';
import { llamaSpec, writeGguf } from '../fixtures/gguf-writer.js';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;

/** Runs the CLI with `dir` as the working folder. */
async function inDir(dir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), env: {}, cwd: dir });
  return { code, stdout, stderr };
}

/** The last line of stderr (the error; notices come before it). */
const lastLine = (r: { stderr: string }) => r.stderr.trimEnd().split('\n').pop()!;

describe('usage errors name the flag (exit 2)', () => {
  it('replicas --size 0 is refused as aligned --size 0 is', async () => {
    for (const command of ['replicas', 'aligned']) {
      const r = await cli([command, '--preset', 'dgx-a100', '--size', '0']);
      expect([r.code, lastLine(r)], command).toEqual([2, 'gpualloc: --size: expected a positive integer, got "0"']);
      expect(r.stdout).toBe('');
    }
  });

  it('an unknown flag suggests the one meant: a prefix, a name users try, a near spelling', async () => {
    const cases: Array<[string[], string]> = [
      [['plan', '--preset', 'dgx-a100', '--mem', '10GiB'], 'unknown option --mem (did you mean --memory?)'],
      [['plan', '--preset', 'dgx-a100', '--memory', '10GiB', '--tensor-parallel', '2'], 'unknown option --tensor-parallel (did you mean --tp?)'],
      [['aligned', '--preset', 'dgx-a100', '--szie', '2'], 'unknown option --szie (did you mean --size?)'],
      [['state', 'list', '--sate', 'x.json'], 'unknown option --sate (did you mean --state?)'],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect([r.code, lastLine(r)], argv.join(' ')).toEqual([2, `gpualloc: ${message}`]);
    }
    expect(JSON.parse((await cli(['plan', '--mem', '1GiB', '--json'])).stdout).error).toEqual({ code: 'USAGE', message: 'unknown option --mem (did you mean --memory?)' });
  });

  it('--memory -5GiB is a negative size, not parseArgs\' "ambiguous"; --memory 0 suggests nothing that is refused', async () => {
    const negative = await cli(['plan', '--preset', 'dgx-a100', '--memory', '-5GiB']);
    expect([negative.code, lastLine(negative)]).toEqual([2, 'gpualloc: --memory -5GiB: a size cannot be negative; give the memory the model needs, such as --memory 140GB']);
    const zero = await cli(['plan', '--preset', 'dgx-a100', '--memory', '0']);
    expect([zero.code, lastLine(zero)]).toEqual([2, 'gpualloc: --memory 0: expected a size above zero, such as --memory 140GB']);
    // What it suggests works.
    expect((await cli(['plan', '--preset', 'dgx-a100', '--memory', '140GB'])).code).toBe(0);
    // Negative counts are usage errors naming their flag too.
    expect(lastLine(await cli(['plan', '--preset', 'dgx-a100', '--memory', '1GiB', '--limit', '-3']))).toBe('gpualloc: --limit: expected an integer from 1 to 10000, got "-3"');
  });

  it('--tp 16 on an 8-GPU node is a usage error (exit 2), not an infeasible plan', async () => {
    const r = await cli(['plan', '--preset', 'dgx-a100', '--memory', '10GiB', '--tp', '16']);
    expect([r.code, lastLine(r)]).toEqual([2, 'gpualloc: --tp 16: 16 is more GPUs than the largest node has (8)']);
    expect(r.stdout).toBe('');
    expect((await cli(['plan', '--preset', 'dgx2', '--memory', '10GiB', '--tp', '16'])).code).toBe(0);
  });

  it('--state in a missing folder names the flag', async () => {
    const r = await cli(['plan', '--preset', 'dgx-a100', '--memory', '1GiB', '--state', '/missing/dir/s.json', '--commit', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'IO_ERROR', message: expect.stringMatching(/^--state \/missing\/dir\/s\.json: ENOENT/) });
  });

  it('estimate missing.gguf names the argument as typed (plan names --gguf), never the API field source', async () => {
    const r = await cli(['estimate', 'missing.gguf']);
    expect(r.code).toBe(2);
    expect(lastLine(r)).toMatch(/^gpualloc: missing\.gguf: cannot open "[^"]*missing\.gguf" \(ENOENT\)$/);
    const p = await cli(['plan', '--gguf', 'missing.gguf', '--preset', 'dgx-a100']);
    expect([p.code, lastLine(p)]).toEqual([2, expect.stringMatching(/^gpualloc: --gguf missing\.gguf: cannot open/)]);
    for (const x of [r, p]) expect(x.stderr).not.toMatch(/source:/);
  });
});

describe('sizes: GB and GiB as before, Kubernetes quantities exactly as Kubernetes reads them', () => {
  it('parseBytes: Ki Mi Gi Ti are binary, k M G T decimal; GB/GiB in any case as before; g, m, K refused with the spellings meant', () => {
    expect(['1Ki', '1Mi', '80Gi', '2Ti'].map((t) => parseBytes(t))).toEqual([2 ** 10, 2 ** 20, 80 * G, 2 * 2 ** 40]);
    expect(['1k', '1M', '80G', '2T', '1.5G'].map((t) => parseBytes(t))).toEqual([1e3, 1e6, 80e9, 2e12, 1.5e9]);
    expect(['80GB', '80gb', '80GiB', '80gib', '512MiB', '1048576'].map((t) => parseBytes(t))).toEqual([80e9, 80e9, 80 * G, 80 * G, 512 * 2 ** 20, 2 ** 20]);
    expect(['80G', '80GB', '1k'].map(unitsOf)).toEqual(['decimal', 'decimal', 'decimal']);
    expect(['80Gi', '80GiB', '1234'].map(unitsOf)).toEqual(['binary', 'binary', 'binary']);
    expect(() => parseBytes('80g', 'memory')).toThrow(
      'memory: unknown unit "g" in "80g" (Kubernetes spells it Gi (2^30 bytes) or G (10^9 bytes), with that case; or use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)',
    );
    expect(() => parseBytes('512m')).toThrow(/unknown unit "m" .*Mi \(2\^20 bytes\) or M \(10\^6 bytes\)/);
    expect(() => parseBytes('1K')).toThrow(/unknown unit "K" .*Ki \(2\^10 bytes\) or k \(10\^3 bytes\)/);
    expect(() => parseBytes('80XB')).toThrow(/use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, or Kubernetes' k, M, G, T, Ki, Mi, Gi or Ti/);
  });

  it('plan --memory 140Gi is 140 GiB, 140G is 140 GB (printed so); the help says so', async () => {
    const gi = await cli(['plan', '--preset', 'dgx-a100', '--memory', '140Gi', '--tp', '2', '--limit', '1']);
    expect(gi.stdout.split('\n')[0]).toBe('showing 1 of 28 options for 140 GiB on dgx-a100:');
    const g = await cli(['plan', '--preset', 'dgx-a100', '--memory', '140G', '--tp', '2', '--limit', '1']);
    expect(g.stdout.split('\n')[0]).toBe('showing 1 of 28 options for 140 GB on dgx-a100:');
    expect((await cli(['plan', '--help'])).stdout).toContain("140GB, 140GiB, 512MiB, or Kubernetes'\n                     140G (= GB) and 140Gi (= GiB)");
  });

  it('estimate --gpus and split configs take them too', async () => {
    await inTempDir('gpualloc-k8s-sizes-', async (dir) => {
      writeFileSync(join(dir, 'm.gguf'), writeGguf(llamaSpec({ blocks: 4, embedding: 1024, heads: 8, kvHeads: 8, ffn: 2048, vocab: 1000, dtype: 8 })));
      const e = await inDir(dir, ['estimate', 'm.gguf', '--gpus', '24Gi,24Gi']);
      expect(e.code, e.stderr).toBe(0);
      expect(e.stdout).toMatch(/\n0\s+24 GiB\s/);
      writeFileSync(join(dir, 'agents.toml'), '[resource]\nallocation-mode = "auto-split"\nreserved-mem = "4Gi"\nmemory = "64G"\n\n[[agents]]\nid = "a"\n');
      const s = await inDir(dir, ['split', '--config', 'agents.toml', '--preset', 'dgx-a100', '--json']);
      expect(s.code, s.stderr).toBe(0);
      expect(JSON.parse(s.stdout).amounts.a.mem).toBe(64e9 - 4 * G);
    });
  });
});

describe('what each command does, as its help says', () => {
  it("gpualloc help plan prints plan's help", async () => {
    const r = await cli(['help', 'plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe((await cli(['plan', '--help'])).stdout);
    expect(r.stdout).toMatch(/^gpualloc plan: /);
  });

  it('an inventory with no GPU fails before the demo prints anything', async () => {
    await inTempDir('gpualloc-no-gpu-', async (dir) => {
      writeFileSync(join(dir, 'empty.json'), JSON.stringify({ version: 1, gpus: [], links: [] }));
      const r = await inDir(dir, ['demo', '--inventory', 'empty.json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(lastLine(r)).toBe('gpualloc: --inventory empty.json: no GPU (the demo needs at least one)');
    });
  });

  it('releasing a pod says what it gives back: its GPU memory, CPU and host memory', async () => {
    await inTempDir('gpualloc-release-pod-', async (dir) => {
      const state = ts.createClusterState({ nodes: [{ id: 'a100', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })), cpu: 16_000, hostMemory: 64 * G }] });
      state.commit({ node: 'a100', gpus: [1], memoryPerGpu: 20 * G, milli: 250, cpu: 4000, hostMemory: 8 * G, evict: [], score: 0 }, { id: 'share' });
      writeFileSync(join(dir, 'state.json'), JSON.stringify(state.toJSON()));
      const r = await inDir(dir, ['state', 'release', 'share', '--state', 'state.json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('released slot share (20 GiB on GPU 1 of a100, and 4 CPUs, 8 GiB host memory)\n');
    });
  });

  it('state init --state FILE writes a new state file (and refuses an existing one without --replace)', async () => {
    await inTempDir('gpualloc-init-file-', async (dir) => {
      const r = await inDir(dir, ['state', 'init', '--state', 's.json', '--preset', 'dgx-a100']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('initialised s.json\n  node dgx-a100: 8 GPUs, 640 GiB\n');
      expect(ts.restoreClusterState(readFileSync(join(dir, 's.json'), 'utf8')).nodes()).toEqual(['dgx-a100']);
      const again = await inDir(dir, ['state', 'init', '--state', 's.json', '--preset', 'dgx1-volta', '--json']);
      expect(again.code).toBe(2);
      expect(JSON.parse(again.stdout).error.message).toBe('--state s.json already exists; nothing was changed (pass --replace to start over)');
      const replaced = await inDir(dir, ['state', 'init', '--state', 's.json', '--preset', 'dgx1-volta', '--replace', '--json']);
      expect(JSON.parse(replaced.stdout)).toEqual({ state: 's.json', nodes: [{ id: 'dgx1-volta', gpus: 8, memoryTotal: expect.any(Number), memoryUsed: 0 }] });
      expect((await inDir(dir, ['plan', '--memory', '1GiB', '--state', 's.json', '--json'])).code).toBe(0);
    });
  });

  it('plan --state new.json without --commit writes nothing, as the help says', async () => {
    await inTempDir('gpualloc-plan-new-', async (dir) => {
      const r = await inDir(dir, ['plan', '--preset', 'dgx-a100', '--memory', '10GiB', '--state', 'new.json']);
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, 'new.json'))).toBe(false);
      expect((await cli(['plan', '--help'])).stdout).toContain("a missing FILE is planned as the\n                     inventory's node and written only by --commit");
      expect((await inDir(dir, ['plan', '--preset', 'dgx-a100', '--memory', '10GiB', '--state', 'new.json', '--commit'])).code).toBe(0);
      expect(existsSync(join(dir, 'new.json'))).toBe(true);
    });
  });

  it('simulate on a pods CSV with only its header is a clear error (exit 2), not a table of dashes', async () => {
    await inTempDir('gpualloc-header-only-', async (dir) => {
      mkdirSync(join(dir, 'data'));
      writeFileSync(join(dir, 'data', 'nodes.csv'), 'sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,8,V100M32\n');
      writeFileSync(join(dir, 'data', 'pods.csv'), 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\n');
      const r = await inDir(dir, ['simulate', '--nodes', join(dir, 'data', 'nodes.csv'), '--pods', join(dir, 'data', 'pods.csv'), '--seeds', '42']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(lastLine(r)).toBe(`gpualloc: --pods ${join(dir, 'data', 'pods.csv')}: no pods after the header line (a replay needs at least one)`);
    });
  });
});
