// The demo page offline: this service worker keeps the page, its modules, the engine and the
// tokenizer library (cache "simdformer-page", filled when it installs) and answers from there
// when the network does not; models come from the cache web/model-store.mjs keeps. Online, the
// network answers first (a rebuilt package or page is seen at once) and refreshes the copy.
// tests/e2e/offline.test.mjs checks that PAGE names every file web/ serves to the page.
const PAGE_CACHE = 'simdformer-page';
const MODEL_CACHE = 'simdformer-models';  // web/model-store.mjs
const PAGE = [
  '/', '/index.html', '/style.css', '/main.mjs', '/worker.mjs', '/catalogue.mjs', '/export-png.mjs', '/labels.mjs',
  '/model-store.mjs', '/random-model.mjs',
  '/page/actions.mjs', '/page/kept-models.mjs', '/page/loaded-model.mjs', '/page/loading.mjs', '/page/render.mjs',
  '/page/rpc.mjs', '/page/runs.mjs', '/page/state.mjs', '/page/torch-input.mjs', '/page/url-state.mjs',
  '/views/colorbar.mjs', '/views/colors.mjs', '/views/headview.mjs', '/views/heatmap.mjs', '/views/modelview.mjs',
  '/views/steps.mjs',
  '/dist/browser.bundle.mjs', '/dist/simdformer.mjs', '/dist/simdformer.wasm', '/dist/simdformer-scalar.mjs',
  '/dist/simdformer-scalar.wasm', '/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(PAGE_CACHE).then((cache) => cache.addAll(PAGE)).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

async function networkFirst(request) {
  try {
    const r = await fetch(request);
    if (r.ok) (await caches.open(PAGE_CACHE)).put(new URL(request.url).pathname, r.clone());
    return r;
  } catch (e) {
    const kept = await caches.match(new URL(request.url).pathname, { cacheName: PAGE_CACHE });
    if (kept) return kept;
    throw e;
  }
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/models/')) {
    event.respondWith(caches.match(event.request, { cacheName: MODEL_CACHE }).then((kept) => kept ?? fetch(event.request)));
  } else {
    event.respondWith(networkFirst(event.request));
  }
});
