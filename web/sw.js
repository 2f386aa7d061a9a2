// The demo page offline (a module service worker: web/main.mjs registers it with type 'module'):
// it keeps the page, its modules, the engine and the tokenizer library (cache PAGE_CACHE, filled
// when it installs) and answers from there when the network does not; models come from the cache
// web/model-store.mjs keeps (MODEL_CACHE). The names are the library's contract
// (bindings/js/lib/cache-contract.mjs). Online, the network answers first (a rebuilt package or page
// is seen at once) and refreshes the copy; a network that fails (no answer, or a 5xx) is answered
// with the kept copy, marked with the NETWORK_FAILED header and a console warning.
// Every path is relative to the worker's scope, so the page works served from a sub-path
// (https://host/some/path/, as GitHub Pages serves a project).
// tests/e2e/offline.test.mjs checks that PAGE names every file web/ serves to the page.
import { MODEL_CACHE, NETWORK_FAILED, PAGE_CACHE } from './dist/lib/cache-contract.mjs';

const PAGE = [
  './', 'index.html', 'style.css', 'main.mjs', 'worker.mjs', 'catalogue.mjs', 'export-png.mjs', 'labels.mjs',
  'model-store.mjs', 'random-model.mjs',
  'page/actions.mjs', 'page/kept-models.mjs', 'page/loaded-model.mjs', 'page/loading.mjs', 'page/render.mjs',
  'page/rpc.mjs', 'page/runs.mjs', 'page/state.mjs', 'page/torch-input.mjs', 'page/url-state.mjs',
  'views/colorbar.mjs', 'views/colors.mjs', 'views/headview.mjs', 'views/heatmap.mjs', 'views/modelview.mjs',
  'views/steps.mjs', 'views/task-output.mjs',
  'dist/browser.bundle.mjs', 'dist/lib/cache-contract.mjs', 'dist/simdformer.mjs', 'dist/simdformer.wasm', 'dist/simdformer-scalar.mjs',
  'dist/simdformer-scalar.wasm', 'node_modules/@huggingface/tokenizers/dist/tokenizers.mjs',
];
const inScope = (path) => new URL(path, self.registration.scope).href;

// Each file is kept on its own: one that cannot be fetched now (a 404 after a partial deploy, a
// dropped connection) leaves the rest kept, and is kept the first time the page fetches it.
async function keepPage() {
  const cache = await caches.open(PAGE_CACHE);
  const results = await Promise.allSettled(PAGE.map(async (path) => {
    const r = await fetch(inScope(path), { cache: 'no-cache' });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    await cache.put(inScope(path), r);
  }));
  results.forEach((r, i) => {
    if (r.status === 'rejected') console.warn(`simdformer demo: ${PAGE[i]} is not kept for offline use (${r.reason?.message ?? r.reason})`);
  });
}

self.addEventListener('install', (event) => {
  event.waitUntil(keepPage().then(() => self.skipWaiting()));
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// The kept copy, saying that (and why) the network failed; undefined when nothing is kept.
async function keptInstead(request, cacheName, why) {
  const kept = await caches.match(request.url, { cacheName, ignoreSearch: cacheName === PAGE_CACHE });
  if (!kept) return undefined;
  console.warn(`simdformer demo: ${request.url}: the network failed (${why}); answered with the kept copy`);
  const headers = new Headers(kept.headers);
  headers.set(NETWORK_FAILED, why);
  return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers });
}

// Network first; a page file that arrives OK refreshes the kept copy (inside event.waitUntil, so
// the write is not cut off when the worker stops). Model files are kept by web/model-store.mjs.
async function networkFirst(event, cacheName) {
  const { request } = event;
  let r;
  try {
    r = await fetch(request);
  } catch (e) {
    const kept = await keptInstead(request, cacheName, e?.message ?? String(e));
    if (kept) return kept;
    throw e;
  }
  if (r.status >= 500) return (await keptInstead(request, cacheName, `HTTP ${r.status}`)) ?? r;
  if (r.ok && cacheName === PAGE_CACHE) {
    const copy = r.clone();
    event.waitUntil(caches.open(PAGE_CACHE).then((c) => c.put(new URL(request.url).href.split('?')[0], copy)).catch(() => {}));
  }
  return r;
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || !url.href.startsWith(self.registration.scope)) return;
  const models = url.href.startsWith(inScope('models/'));
  event.respondWith(networkFirst(event, models ? MODEL_CACHE : PAGE_CACHE));
});
