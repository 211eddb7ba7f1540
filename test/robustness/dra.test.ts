// The DRA readers and `gpualloc dra` under hostile input: an error or an answer in bounded time,
// never a hang or a stack trace (deep nesting, huge strings, a million devices, alias bombs,
// pathological regular expressions).
import { describe, expect, it } from 'vitest';
import { readClusterDump, readDocuments } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { cli } from '../support/cli.js';
import { depth } from '../support/depth.js';

const bounded = async (what: string, run: () => Promise<{ code: number; stdout: string; stderr: string }>, codes: number[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const started = performance.now();
  const r = await run();
  expect(performance.now() - started, `${what}: time`).toBeLessThan(20_000);
  expect(codes, `${what}: exit ${r.code} (${r.stderr.slice(0, 300)})`).toContain(r.code);
  expect(r.stderr, `${what}: no stack trace`).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  return r;
};

const NODE = 'apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n';
const CLASS = 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {selectors: [{cel: {expression: "device.driver == \'d.example.com\'"}}]}\n';

describe('hostile input to gpualloc dra', () => {
  it('YAML nested 100,000 levels deep', async () => {
    await bounded('deep yaml', () => cli(['dra', 'schedule', '--dump', '-'], {}, `${'['.repeat(100_000)}${']'.repeat(100_000)}\n`), [2]);
  });

  it('JSON nested 1,000,000 levels deep', async () => {
    await bounded('deep json', () => cli(['dra', 'schedule', '--dump', '-'], {}, `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`), [2]);
  });

  it('a YAML alias bomb', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(i === 1 ? '*a' : `*a${i - 1}`)
          .join(', ')}]`,
      );
    await bounded('alias bomb', () => cli(['dra', 'schedule', '--dump', '-'], {}, lines.join('\n')), [2]);
  });

  // Short form: 200,000 devices (the text alone is 4 MB); the deep suite sends a million.
  const DEVICES = depth(200_000, 1_000_000);
  it(`a slice of ${DEVICES.toLocaleString('en-US')} devices is refused by the API server's limit, quickly`, async () => {
    const devices = Array.from({ length: DEVICES }, (_, i) => ({ name: `d${i}` }));
    const text = JSON.stringify({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: { driver: 'd.example.com', nodeName: 'n1', pool: { name: 'p', resourceSliceCount: 1 }, devices },
    });
    const r = await bounded('million devices', () => cli(['dra', 'schedule', '--dump', '-'], {}, text), [2]);
    expect(r.stderr).toContain(`spec.devices: Too many: ${DEVICES}: must have at most 128 items`);
  });

  it('a 10 MB device name', async () => {
    const text = `${NODE}---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d.example.com, nodeName: n1, pool: {name: p, resourceSliceCount: 1}, devices: [{name: ${'a'.repeat(10_000_000)}}]}\n`;
    const r = await bounded('huge name', () => cli(['dra', 'schedule', '--dump', '-'], {}, text), [2]);
    expect(r.stderr.length).toBeLessThan(5000);
  });

  it('a pathological regular expression in a selector answers in bounded time', async () => {
    const claim = `apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: x, namespace: ns}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, selectors: [{cel: {expression: "'${'a'.repeat(40)}!'.matches('^(a+)+$')"}}]}}]}}\n`;
    const slice =
      'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d.example.com, nodeName: n1, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0}, {name: d1}]}\n';
    const r = await bounded('regex', () => cli(['dra', 'schedule', '--dump', '-', '--json'], {}, [NODE, CLASS, slice, claim].join('---\n')), [1]);
    expect(JSON.parse(r.stdout).claims[0].reason.code).toBe('UNSCHEDULABLE');
  });

  it('pathological CEL cost: nested comprehensions are refused at compile time, a doubling string stops at the runtime limit', async () => {
    const list = `[${Array.from({ length: 200 }, (_, i) => i).join(', ')}]`;
    const nested = `${list}.all(a, ${list}.all(b, ${list}.all(c, c >= 0)))`;
    // Doubling a string 40 times: cheap by the compile-time estimate, stopped by the runtime limit.
    let doubling = 'v != ""';
    for (let i = 0; i < 40; i++) doubling = `cel.bind(v, v + v, ${doubling})`;
    doubling = `cel.bind(v, "aaaa", ${doubling})`;
    const slice =
      'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d.example.com, nodeName: n1, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0}, {name: d1}]}\n';
    const claim = (name: string, expression: string) =>
      `apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: ${name}, namespace: ns}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, selectors: [{cel: {expression: ${JSON.stringify(expression)}}}]}}]}}\n`;
    const r = await bounded('cel cost', () => cli(['dra', 'schedule', '--dump', '-', '--json'], {}, [NODE, CLASS, slice, claim('nested', nested), claim('doubling', doubling)].join('---\n')), [1]);
    const claims = JSON.parse(r.stdout).claims as Array<{ claim: string; reason: { code: string; message: string } }>;
    const byName = new Map(claims.map((c) => [c.claim, c.reason]));
    expect(byName.get('ns/nested')?.code).toBe('INVALID');
    expect(byName.get('ns/nested')?.message).toContain('too complex, exceeds cost limit');
    // A runtime error rules out the node it happened on (as upstream's Filter does), not the claim.
    expect(byName.get('ns/doubling')?.code).toBe('UNSCHEDULABLE');
    expect(byName.get('ns/doubling')?.message).toContain('n1: claim ns/doubling: selector #0 on device d.example.com/p/d0: CEL runtime error: operation cancelled: actual cost limit exceeded');
  });

  it('not an object, no kind, an unserved version: exit 2 with the position', async () => {
    for (const text of ['- 1\n- 2\n', 'metadata: {name: x}\n', 'apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {}\n']) {
      const r = await bounded(text, () => cli(['dra', 'schedule', '--dump', '-'], {}, text), [2]);
      expect(r.stderr).toMatch(/<stdin>:\d+:\d+: /);
    }
  });
});

describe('hostile input to the readers', () => {
  it('errors are AllocationErrors, never RangeErrors, for nesting past any stack', async () => {
    for (const text of [`${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}`, `${'- '.repeat(50_000)}x\n`]) {
      try {
        readClusterDump(await readDocuments(text, 'x'), 'x');
      } catch (error) {
        expect(error).toBeInstanceOf(AllocationError);
      }
    }
  });
});
