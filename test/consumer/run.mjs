// The consumer-project test (`npm run test:consumer`): packs gpualloc, installs the tarball offline
// into a fresh strict TypeScript service and two fresh Vite pages, then type-checks and runs the
// service, builds the pages (a placement-only page must load at most 50 kB of gzipped JavaScript plus
// the wasm; a page keeping its state in gpualloc/store's MemoryStore must build and run without
// node-postgres or a file system), measures what each feature installs, and loads both pages in
// headless Chromium (the placement page on both backends). Prints one line per step and exits non-zero on the first failure; with
// CONSUMER_JSON=FILE it also writes the step counts there ({ numPassedTests, numFailedTests }).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const HERE = join(ROOT, 'test', 'consumer');
/**
 * The most gzipped JavaScript a placement-only page may load, in bytes: its index.html's script and
 * the chunks it preloads (the wasm comes on top; a chunk loaded on demand, the TypeScript backend's
 * kernels, is measured and reported apart).
 */
const PAGE_JS_LIMIT = 50 * 1024;
/**
 * Text only what a placement-only page must not ship has: the multi-node planner (an engine from
 * openPlacementEngine gets it only with `multiNode: multiNodePlanner`).
 */
const NOT_ON_THE_PAGE = { 'the multi-node planner': 'as tensor-parallel × pipeline stages' };
/** Text only the TypeScript backend's kernels have: the page loads them only when it opens that backend. */
const TS_KERNELS = 'besteffort: the best value has no partition';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'gpualloc-consumer-'));
const results = [];

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function step(name, fn) {
  const t0 = performance.now();
  const said = fn();
  const line = `ok  ${name} (${Math.round(performance.now() - t0)} ms)${said ? `: ${said}` : ''}`;
  results.push(line);
  process.stdout.write(line + '\n');
}

/**
 * The repo's installed copy of a package, packed into `work` (offline: npm's cache holds the lock
 * file's tarballs but not the registry's package lists, so installs name tarballs, never versions).
 */
const packed = new Map();
function packOf(name) {
  if (!packed.has(name)) {
    const out = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work, join(ROOT, 'node_modules', name)], ROOT));
    packed.set(name, join(work, out[0].filename));
  }
  return packed.get(name);
}
/** gpualloc's own dependencies, as tarballs: what `npm install gpualloc` would fetch. */
const DEPENDENCIES = () => Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies).map(packOf);

/** Bytes of the files under `dir` (links not followed). */
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

/** The packages `name` brings into an install (itself and its dependencies, as the repo installed them). */
function closureOf(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  const dir = join(ROOT, 'node_modules', name);
  if (!existsSync(dir)) return seen;
  seen.add(name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) closureOf(dep, seen);
  return seen;
}

const mb = (bytes) => `${(bytes / 1048576).toFixed(2)} MB`;
const OPTIONAL_PEERS = { pg: 'PostgresStore', koffi: 'NVML discovery, the state file lock', yaml: 'YAML dumps and policy files', 'smol-toml': 'TOML split configs' };

/** Builds a Vite page folder and returns its assets with their raw and gzipped sizes. */
function buildPage(dir) {
  run(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn', '--emptyOutDir'], dir);
  const dist = join(dir, 'dist', 'assets');
  return readdirSync(dist).map((f) => ({ f, bytes: statSync(join(dist, f)).size, gz: gzipSync(readFileSync(join(dist, f))).length }));
}
/** The JavaScript files a built page's index.html loads: its module script and the chunks it preloads (their static imports). */
function loadedBy(dir) {
  const html = readFileSync(join(dir, 'dist', 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
}
const sizes = (assets) => assets.map((a) => `${a.f} ${(a.bytes / 1024).toFixed(1)} kB (${(a.gz / 1024).toFixed(1)} kB gzipped)`).join('; ');

let tarball;
const project = join(work, 'service');
const page = join(work, 'page');
const storePage = join(work, 'store-page');
try {
  step('npm pack', () => {
    // The repo's build is current (npm test's global setup, or `npm run build`); pack what it made.
    const out = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT));
    tarball = join(work, out[0].filename);
    return `${out[0].filename}, ${(out[0].size / 1024).toFixed(1)} kB packed, ${(out[0].unpackedSize / 1024).toFixed(1)} kB unpacked, ${out[0].entryCount} files`;
  });

  step('install into a fresh strict TypeScript service (offline, from the npm cache)', () => {
    cpSync(join(HERE, 'project'), project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer-service', private: true, type: 'module' }, null, 2));
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...DEPENDENCIES(), packOf('@types/node'), packOf('undici-types'), packOf('typescript')], project);
    const installed = readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.'));
    return `installed: ${installed.join(', ')}`;
  });

  step('type-check the service (lib ES2022, no DOM, skipLibCheck false; typos must not compile)', () => {
    run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
  });

  step('run the service', () => {
    const built = join(project, 'build');
    run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit', 'false', '--outDir', built], project);
    return run(process.execPath, [join(built, 'main.js')], project).trim();
  });

  step('runtime checks (strict keys, missing optional packages named, a shared compiled module, AbortError, require())', () => {
    return run(process.execPath, ['runtime-checks.mjs'], project).trim();
  });

  let assets = [];
  step('install into a fresh Vite page and build it (placement only)', () => {
    cpSync(join(HERE, 'page'), page, { recursive: true });
    writeFileSync(join(page, 'package.json'), JSON.stringify({ name: 'consumer-page', private: true, type: 'module' }, null, 2));
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...DEPENDENCIES()], page);
    // The repo's own Vite, run on the page's folder: the page resolves gpualloc from its own node_modules.
    assets = buildPage(page);
    return sizes(assets);
  });

  step('what each feature installs (gpualloc and its dependencies; each optional peer with its own dependencies)', () => {
    const modules = join(page, 'node_modules');
    const installed = readdirSync(modules)
      .filter((n) => !n.startsWith('.'))
      .flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
    const base = `gpualloc and its dependencies (${installed.join(', ')}): ${mb(bytesUnder(modules))}`;
    const peers = Object.entries(OPTIONAL_PEERS).map(([name, feature]) => {
      const closure = [...closureOf(name)];
      const bytes = closure.reduce((t, n) => t + bytesUnder(join(ROOT, 'node_modules', n)), 0);
      return `+ ${name} for ${feature}: ${mb(bytes)} (${closure.length} package${closure.length > 1 ? 's' : ''})`;
    });
    return [base, ...peers].join('; ');
  });

  let storeAssets = [];
  step("install into a fresh Vite page that keeps its state in gpualloc/store's MemoryStore, and build it", () => {
    cpSync(join(HERE, 'store-page'), storePage, { recursive: true });
    writeFileSync(join(storePage, 'package.json'), JSON.stringify({ name: 'consumer-store-page', private: true, type: 'module' }, null, 2));
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...DEPENDENCIES()], storePage);
    storeAssets = buildPage(storePage);
    const gz = (files) => files.reduce((t, f) => t + (storeAssets.find((a) => a.f === f)?.gz ?? 0), 0);
    const loads = loadedBy(storePage);
    const onDemand = storeAssets.filter((a) => a.f.endsWith('.js') && !loads.includes(a.f)).map((a) => a.f);
    return `${sizes(storeAssets)}; the page loads ${(gz(loads) / 1024).toFixed(1)} kB gzipped JavaScript (${(gz(onDemand) / 1024).toFixed(1)} kB more on demand)`;
  });

  let loaded = [];
  step(`the JavaScript the page loads is at most ${PAGE_JS_LIMIT / 1024} kB gzipped, plus the wasm`, () => {
    loaded = loadedBy(page);
    const js = (files) => files.reduce((t, f) => t + (assets.find((a) => a.f === f)?.gz ?? Number.NaN), 0);
    const onDemand = assets.filter((a) => a.f.endsWith('.js') && !loaded.includes(a.f)).map((a) => a.f);
    const wasm = assets.filter((a) => a.f.endsWith('.wasm'));
    if (wasm.length !== 1) throw new Error(`expected one .wasm asset, got ${wasm.length}`);
    if (!(js(loaded) <= PAGE_JS_LIMIT)) throw new Error(`the page loads ${(js(loaded) / 1024).toFixed(1)} kB of gzipped JavaScript (${loaded.join(', ')}), over ${PAGE_JS_LIMIT / 1024} kB`);
    const text = (files) => files.map((f) => readFileSync(join(page, 'dist', 'assets', f), 'utf8')).join('\n');
    const all = text([...loaded, ...onDemand]);
    for (const [what, marker] of Object.entries(NOT_ON_THE_PAGE)) if (all.includes(marker)) throw new Error(`the placement-only page ships ${what} (it contains ${JSON.stringify(marker)})`);
    if (text(loaded).includes(TS_KERNELS)) throw new Error("the page loads the TypeScript backend's kernels up front");
    if (!text(onDemand).includes(TS_KERNELS)) throw new Error(`no chunk loaded on demand holds the TypeScript backend's kernels (${onDemand.join(', ') || 'none'})`);
    return `${(js(loaded) / 1024).toFixed(1)} kB gzipped JavaScript + ${(wasm[0].gz / 1024).toFixed(1)} kB gzipped wasm; on demand (backend: 'ts'): ${(js(onDemand) / 1024).toFixed(1)} kB`;
  });

  const onWasm = await loadInChromium('load the placement page in headless Chromium', join(page, 'dist'), /^wasm \d+ options, best on GPUs 0,1$/, '', loaded);
  await loadInChromium("load it with backend: 'ts' (its kernels fetched on demand; the same answer)", join(page, 'dist'), new RegExp(`^${onWasm.replace(/^wasm/, 'ts')}$`), '?backend=ts');
  await loadInChromium('load the MemoryStore page in headless Chromium', join(storePage, 'dist'), /^stored \S+ on n1 GPUs 0,1$/);
} catch (error) {
  process.stdout.write(`FAIL ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (process.env.KEEP_CONSUMER !== '1') rmSync(work, { recursive: true, force: true });
  else process.stdout.write(`kept ${work}\n`);
}
const failedSteps = process.exitCode ? 1 : 0;
process.stdout.write(`${results.length} steps passed${failedSteps ? ', 1 failed' : ''}\n`);
if (process.env.CONSUMER_JSON) writeFileSync(process.env.CONSUMER_JSON, JSON.stringify({ numPassedTests: results.length, numFailedTests: failedSteps, testResults: [], steps: results }, null, 2));

/**
 * Loads `dir`'s index.html (with `query`) in headless Chromium and returns what #result says; with
 * `scripts`, the page must fetch exactly those of its JavaScript files.
 */
async function loadInChromium(name, dir, expected, query = '', scripts) {
  const { chromium } = await import('playwright-core');
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean);
  const executablePath = candidates.find((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
  if (executablePath === undefined) throw new Error(`no Chromium found (tried ${candidates.join(', ')}): apt-get install -y chromium, or set CHROMIUM_PATH`);
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  const fetched = [];
  const server = createServer((req, res) => {
    if (req.url.endsWith('.js')) fetched.push(req.url.replace(/^.*\//, ''));
    const path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/\/$/, '/index.html'));
    try {
      const body = readFileSync(path);
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const t0 = performance.now();
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    await tab.goto(`http://127.0.0.1:${server.address().port}/${query}`);
    await tab.waitForFunction(() => document.getElementById('result')?.textContent !== 'loading', null, { timeout: 30_000 });
    const text = await tab.textContent('#result');
    if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
    if (!expected.test(text ?? '')) throw new Error(`${name}: the page said ${JSON.stringify(text)}`);
    if (scripts !== undefined && [...fetched].sort().join() !== [...scripts].sort().join()) throw new Error(`${name}: the page fetched ${fetched.join(', ')}, not ${scripts.join(', ')}`);
    const line = `ok  ${name} (${Math.round(performance.now() - t0)} ms): ${text}`;
    results.push(line);
    process.stdout.write(line + '\n');
    return text;
  } finally {
    await browser.close();
    server.close();
  }
}
