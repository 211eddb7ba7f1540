// What `noUncheckedIndexedAccess` would cost a hot path fixed with runtime checks rather than `!`.
// The TypeScript placement kernel (src/baseline/placement.ts) is copied with every index read `a[i]`
// turned into a checked read (undefined throws a RangeError; an update `a[i] += v` reads through
// the check too) and copied as it is, both through the same printer and compiler into dist/, and
// the two timed on the same kernel calls: the searches `npm run bench`'s placement rows make
// (prepared node, TP 1-8; those that search). The answers are compared before the timing.
// `!` compiles to nothing, so the copy is the upper bound of what the flag's honest fixes cost.
//   npm run build && node dist/bench/indexed-access.bench.js [--quick]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Bench } from 'tinybench';
import ts from 'typescript';
import { createEngine } from '../src/engine.js';
import type { PlacementKernels } from '../src/placement/index.js';
import { watchKernels } from './harness.js';
import { presetGpus, presetTopology, runningSlots } from './inputs.js';
import { PLACEMENT_NODES, PLACEMENT_TP_SIZES } from './placement.bench.js';
import { machineInfo, resultsPath, writeResults } from './store.bench.js';
import { renderTable } from './table.js';

const CHECK = '__checked';
/** Compound assignments and the operator each applies. */
const UPDATES = new Map<ts.SyntaxKind, ts.BinaryOperator>([
  [ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.PlusToken],
  [ts.SyntaxKind.MinusEqualsToken, ts.SyntaxKind.MinusToken],
  [ts.SyntaxKind.AsteriskEqualsToken, ts.SyntaxKind.AsteriskToken],
  [ts.SyntaxKind.BarEqualsToken, ts.SyntaxKind.BarToken],
  [ts.SyntaxKind.AmpersandEqualsToken, ts.SyntaxKind.AmpersandToken],
]);

/** The source with every index read checked (`checked`) or as it is, through the same printer; `reads` counts the checks. */
function printedSource(source: string, checked: boolean): { text: string; reads: number } {
  const file = ts.createSourceFile('placement.ts', source, ts.ScriptTarget.ES2022, true);
  const f = ts.factory;
  let reads = 0;
  const check = (e: ts.Expression): ts.Expression => {
    if (!checked) return e;
    reads++;
    return f.createCallExpression(f.createIdentifier(CHECK), undefined, [e]);
  };
  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => {
    const visit = (node: ts.Node): ts.Node => {
      // `a[i] op= v` → `a[i] = check(a[i]) op (v)`; `a[i]++` (a statement) → `a[i] = check(a[i]) + 1`.
      if (ts.isBinaryExpression(node) && UPDATES.has(node.operatorToken.kind) && ts.isElementAccessExpression(node.left)) {
        const target = ts.visitEachChild(node.left, visit, context) as ts.ElementAccessExpression;
        const binary = f.createBinaryExpression(check(target), UPDATES.get(node.operatorToken.kind)!, f.createParenthesizedExpression(ts.visitNode(node.right, visit) as ts.Expression));
        return f.createAssignment(target, binary);
      }
      if (
        (ts.isPostfixUnaryExpression(node) || ts.isPrefixUnaryExpression(node)) &&
        ts.isElementAccessExpression(node.operand) &&
        (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
      ) {
        if (!ts.isExpressionStatement(node.parent)) throw new Error(`indexed-access bench: an update used as a value at ${node.getText()}`);
        const target = ts.visitEachChild(node.operand, visit, context) as ts.ElementAccessExpression;
        const step = node.operator === ts.SyntaxKind.PlusPlusToken ? ts.SyntaxKind.PlusToken : ts.SyntaxKind.MinusToken;
        return f.createAssignment(target, f.createBinaryExpression(check(target), step, f.createNumericLiteral(1)));
      }
      if (ts.isElementAccessExpression(node)) {
        const visited = ts.visitEachChild(node, visit, context);
        const written = ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && node.parent.left === node;
        return written ? visited : check(visited);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (sf) => ts.visitNode(sf, visit) as ts.SourceFile;
  };
  const out = ts.transform(file, [transformer]).transformed[0]!;
  const helper = `function ${CHECK}<T>(v: T | undefined): T {\n  if (v === undefined) throw new RangeError('index out of range');\n  return v;\n}\n`;
  return { text: helper + ts.createPrinter().printFile(out), reads };
}

type Row = { case: string; plainUs: number; checkedUs: number; ratio: number };

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const root = dirname(resultsPath('x'));
  const here = import.meta.dirname;
  // Both copies go through one printer and compiler and sit next to the original (dist/src/baseline/),
  // so their relative imports resolve the same and the checks are the only difference. Neither is
  // the module the engine below runs, so neither shares its closures' type feedback.
  const source = readFileSync(join(root, '..', 'src', 'baseline', 'placement.ts'), 'utf8');
  let reads = 0;
  const load = async (checked: boolean): Promise<PlacementKernels> => {
    const printed = printedSource(source, checked);
    if (checked) reads = printed.reads;
    const js = ts.transpileModule(printed.text, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    const path = join(here, '..', 'src', 'baseline', `placement.${checked ? 'checked' : 'unchecked'}.js`);
    writeFileSync(path, js);
    return ((await import(path)) as { placementTsKernels: () => PlacementKernels }).placementTsKernels();
  };
  const plainK = await load(false);
  const checkedK = await load(true);

  const engine = await createEngine({ backend: 'ts' });
  const calls: Array<{ label: string; args: unknown[] }> = [];
  for (const node of PLACEMENT_NODES) {
    const gpus = presetGpus(node.preset);
    const slots = runningSlots(gpus.length, 20, gpus[0]!.memoryTotal);
    const handle = engine.prepare({ gpus, topology: presetTopology(node.preset) });
    for (const tp of PLACEMENT_TP_SIZES) {
      const watch = watchKernels(engine);
      engine.planPlacement({ node: handle, slots, memory: node.model, model: 'llama3-70b', tensorParallelSizes: [tp], allowEviction: true, policy: 'spread' });
      watch.restore();
      const call = watch.calls.find((c) => c.name === 'placementSearch');
      if (call === undefined) continue; // answered without a search (the model does not fit at this TP size)
      calls.push({ label: `${node.label} TP ${tp}`, args: call.args });
    }
  }

  const rows: Row[] = [];
  const time = quick ? 100 : 1000;
  for (const c of calls) {
    const a = c.args as [Parameters<PlacementKernels['placementSearch']>[0]];
    // Same answers first: the checks must change nothing but the time.
    if (!isDeepStrictEqual(structuredClone(plainK.placementSearch(...a)), structuredClone(checkedK.placementSearch(...a))))
      throw new Error(`indexed-access bench: the checked kernel answers differently on ${c.label}`);
    // Two rounds, the second in the other order (what runs first warms the caches for the other).
    const medians = { plain: [] as number[], checked: [] as number[] };
    for (const order of [
      ['plain', 'checked'],
      ['checked', 'plain'],
    ] as const) {
      const bench = new Bench({ time, warmupTime: time / 4 });
      for (const name of order) bench.add(name, name === 'plain' ? () => void plainK.placementSearch(...a) : () => void checkedK.placementSearch(...a));
      await bench.run();
      for (const name of order) {
        const r = bench.getTask(name)?.result;
        if (r?.state !== 'completed') throw new Error(`indexed-access bench: ${name} on ${c.label}: ${r?.state}`);
        medians[name].push(r.latency.p50 * 1000);
      }
    }
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const plainUs = mean(medians.plain);
    const checkedUs = mean(medians.checked);
    rows.push({ case: c.label, plainUs, checkedUs, ratio: checkedUs / plainUs });
  }
  const geomean = Math.exp(rows.reduce((s, r) => s + Math.log(r.ratio), 0) / rows.length);
  console.log(
    `placement kernel (ts), every index read checked (${reads} reads in the source); median µs per search (mean of two rounds, each order once); load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    renderTable(
      ['case', 'plain', 'checked', 'checked / plain'],
      [...rows.map((r) => [r.case, r.plainUs.toFixed(2), r.checkedUs.toFixed(2), r.ratio.toFixed(3)]), ['geometric mean', '', '', geomean.toFixed(3)]],
    ),
  );
  writeResults(resultsPath('indexed-access-results.json'), { schema: 1, date: new Date().toISOString(), quick, machine: machineInfo(), checkedReads: reads, rows, geomean });
}

await main();
