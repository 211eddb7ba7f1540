// The consumer-project test (`npm run test:consumer`): packs gpualloc, installs the tarball offline
// into a fresh strict TypeScript service and a fresh Vite page, then type-checks and runs the service,
// builds the page (a placement-only page must ship at most 50 kB of gzipped JavaScript plus the wasm)
// and loads it in headless Chromium. Prints one line per step and exits non-zero on the first failure.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const HERE = join(ROOT, 'test', 'consumer');
/** The most gzipped JavaScript a placement-only page may ship, in bytes (the wasm comes on top). */
const PAGE_JS_LIMIT = 50 * 1024;
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

let tarball;
const project = join(work, 'service');
const page = join(work, 'page');
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
    run(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn', '--emptyOutDir'], page);
    const dist = join(page, 'dist', 'assets');
    assets = readdirSync(dist).map((f) => ({ f, bytes: statSync(join(dist, f)).size, gz: gzipSync(readFileSync(join(dist, f))).length }));
    return assets.map((a) => `${a.f} ${(a.bytes / 1024).toFixed(1)} kB (${(a.gz / 1024).toFixed(1)} kB gzipped)`).join('; ');
  });

  step(`the page's JavaScript is at most ${PAGE_JS_LIMIT / 1024} kB gzipped, plus the wasm`, () => {
    const js = assets.filter((a) => a.f.endsWith('.js')).reduce((t, a) => t + a.gz, 0);
    const wasm = assets.filter((a) => a.f.endsWith('.wasm'));
    if (wasm.length !== 1) throw new Error(`expected one .wasm asset, got ${wasm.length}`);
    if (js > PAGE_JS_LIMIT) throw new Error(`the page ships ${(js / 1024).toFixed(1)} kB of gzipped JavaScript, over ${PAGE_JS_LIMIT / 1024} kB`);
    return `${(js / 1024).toFixed(1)} kB gzipped JavaScript + ${(wasm[0].gz / 1024).toFixed(1)} kB gzipped wasm`;
  });

  await loadInChromium(join(page, 'dist'));
} catch (error) {
  process.stdout.write(`FAIL ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (process.env.KEEP_CONSUMER !== '1') rmSync(work, { recursive: true, force: true });
  else process.stdout.write(`kept ${work}\n`);
}
process.stdout.write(`${results.length} steps passed${process.exitCode ? ', 1 failed' : ''}\n`);

async function loadInChromium(dir) {
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
  const server = createServer((req, res) => {
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
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    await tab.waitForFunction(() => document.getElementById('result')?.textContent !== 'loading', null, { timeout: 30_000 });
    const text = await tab.textContent('#result');
    if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
    if (!/^wasm \d+ options, best on GPUs 0,1$/.test(text ?? '')) throw new Error(`the page said ${JSON.stringify(text)}`);
    const line = `ok  load the page in headless Chromium (${Math.round(performance.now() - t0)} ms): ${text}`;
    results.push(line);
    process.stdout.write(line + '\n');
  } finally {
    await browser.close();
    server.close();
  }
}
