// Vite config of the browser planning page: root web/, output web/dist/, engine imported from ../src.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

// Node-only code must never reach the page: the CLI, the NVML bindings, koffi.
const FORBIDDEN = [/[\\/]src[\\/]cli[\\/]/, /[\\/]bindings[\\/]/, /[\\/]node_modules[\\/]koffi[\\/]/];

/** Fails the build when a Node-only module would be bundled into the page. */
function browserOnly(): Plugin {
  return {
    name: 'gpualloc-browser-only',
    enforce: 'post',
    load(id) {
      if (FORBIDDEN.some((re) => re.test(id))) this.error(`the page must not import Node-only code, but ${id} was pulled in`);
      return null;
    },
  };
}

export default defineConfig({
  root: webRoot,
  base: './',
  plugins: [browserOnly()],
  server: { fs: { allow: [repoRoot] } },
  preview: { host: '127.0.0.1' },
  build: {
    outDir: 'dist',
    // Three pages: the node planner, the fleet simulation (web/simulate.html) and the DRA view (web/dra.html).
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        simulate: fileURLToPath(new URL('simulate.html', import.meta.url)),
        dra: fileURLToPath(new URL('dra.html', import.meta.url)),
      },
    },
    emptyOutDir: true,
    target: 'es2022',
    // Keep the wasm core a file of its own (it is small enough to be inlined otherwise).
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
});
