// gpualloc plan speaks the CLI's words (issue 18, point 9): errors name flags, not API fields; a bare
// --memory below 1 MiB suggests a unit; sizes print in the units typed; the header counts every option.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ROOT } from '../support/cli.js';

async function plan(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['plan', '--preset', 'dgx-a100', ...argv], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, cwd: ROOT });
  return { code, out, err };
}

const API_FIELDS = /\b(tensorParallelSizes|allowEviction)\b|(^|\s)(memory|policy|limit):/;

describe('plan errors in the CLI words', () => {
  it('--memory 12: a bare number below 1 MiB is an error that suggests a unit', async () => {
    const r = await plan('--memory', '12');
    expect(r.code).toBe(2);
    expect(r.err).toBe("gpualloc: --memory 12: a bare number is a byte count, and 12 bytes is surely not the model's size; give a unit, such as --memory 12GB or --memory 12GiB\n");
    expect((await plan('--memory', '1048575')).code).toBe(2);
    expect((await plan('--memory', '1048576')).code).toBe(0); // 1 MiB as a byte count is accepted
  });

  it.each([
    [['--memory', '0GB'], /^gpualloc: --memory 0GB: expected a size above zero/],
    [['--memory', '140XB'], /^gpualloc: --memory 140XB: unknown unit "XB"/],
    [['--memory', '10GiB', '--tp', '0,2'], /^gpualloc: --tp 0,2: each size must be from 1 to 64, got 0/],
    [['--memory', '10GiB', '--tp', '99'], /^gpualloc: --tp 99: each size must be from 1 to 64, got 99/],
    [['--memory', '10GiB', '--policy', 'packed'], /^gpualloc: --policy: expected spread or pack, got "packed" \(did you mean pack\?\)/],
    [['--memory', '10GiB', '--limit', '0'], /^gpualloc: --limit: expected an integer from 1 to 10000, got "0"/],
  ])('%j names the flag, never an API field', async (argv, message) => {
    const r = await plan(...(argv as string[]));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(API_FIELDS);
  });
});

describe('sizes print the way they were typed', () => {
  it('--memory 140GB prints GB (decimal) everywhere; --memory 140GiB prints GiB', async () => {
    const gb = await plan('--memory', '140GB', '--tp', '2', '--limit', '1');
    expect(gb.code).toBe(0);
    expect(gb.out.split('\n')[0]).toBe('showing 1 of 28 options for 140 GB on dgx-a100:');
    expect(gb.out).toMatch(/^1\s+0,1\s+70 GB\s+-\s+\d+$/m);
    expect(gb.out).not.toMatch(/GiB/);
    const gib = await plan('--memory', '140GiB', '--tp', '2', '--limit', '1');
    expect(gib.out.split('\n')[0]).toBe('showing 1 of 28 options for 140 GiB on dgx-a100:');
    expect(gib.out).toMatch(/^1\s+0,1\s+70 GiB\s+-\s+\d+$/m);
  });
});

describe('rejections and reasons in the units typed', () => {
  it('--memory 700GB: the reason and every rejection say GB, never GiB', async () => {
    const r = await plan('--memory', '700GB');
    expect(r.code).toBe(1);
    const lines = r.out.split('\n');
    // 700 GB over 8 GPUs is 87.5 GB each; an A100 80GB has 80 GiB = 85.9 GB.
    expect(lines[0]).toBe('no option for 700 GB: no set of 1, 2, 4, 8 GPUs has room for 700 GB, even after allowed evictions (8/8 GPUs cannot take their share)');
    expect(lines).toContain('  GPU 0 on node dgx-a100: has 85.9 GB in all, less than its share 87.5 GB (1/8 of 700 GB)');
    expect(r.out).not.toMatch(/iB/);
  });

  it('sayBytesIn leaves binary text alone and says binary sizes in decimal units', async () => {
    const { sayBytesIn } = await import('../../src/shared/units.js');
    expect(sayBytesIn('has 80 GiB, needs 512 MiB', 'binary')).toBe('has 80 GiB, needs 512 MiB');
    expect(sayBytesIn('has 80 GiB, needs 512 MiB', 'decimal')).toBe('has 85.9 GB, needs 537 MB');
  });
});

describe('estimate --gpus prints in the units typed', () => {
  it('24GB,24GB: GB throughout; 24GiB,24GiB: GiB', async () => {
    const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { llamaSpec, writeGguf } = await import('../fixtures/gguf-writer.js');
    const dir = await mkdtemp(join(tmpdir(), 'gpualloc-units-'));
    try {
      await writeFile(join(dir, 'm.gguf'), writeGguf(llamaSpec({ blocks: 4, embedding: 1024, heads: 8, kvHeads: 8, ffn: 2048, vocab: 1000, dtype: 8 })));
      const run = async (gpus: string) => {
        let out = '';
        await main(['estimate', 'm.gguf', '--gpus', gpus], { out: (t) => void (out += t), err: () => undefined, env: {}, cwd: dir });
        return out;
      };
      const gb = await run('24GB,24GB');
      expect(gb).toMatch(/\n0\s+24 GB\s+\S+ [KMG]B\s+\d+\n/);
      expect(gb).not.toMatch(/iB/);
      expect(await run('24GiB,24GiB')).toMatch(/\n0\s+24 GiB\s+\S+ [KMG]iB\s+\d+\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the table header counts the options', () => {
  it('showing 16 of 107 options: 8 + 28 + 70 + 1 subsets of sizes 1, 2, 4, 8 on an empty 8-GPU node', async () => {
    const r = await plan('--memory', '10GiB');
    expect(r.out.split('\n')[0]).toBe('showing 16 of 107 options for 10 GiB on dgx-a100:');
    expect(r.out.split('\n').filter((l) => /^\d+\s/.test(l))).toHaveLength(16);
    const json = JSON.parse((await plan('--memory', '10GiB', '--json')).out) as { options: unknown[]; optionCount: number };
    expect([json.options.length, json.optionCount]).toEqual([16, 107]);
  });

  it('all of them shown: the count alone', async () => {
    expect((await plan('--memory', '10GiB', '--tp', '8')).out.split('\n')[0]).toBe('1 option for 10 GiB on dgx-a100:');
  });
});
