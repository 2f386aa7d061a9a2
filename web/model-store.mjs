// Models the page loaded, kept in the browser (Cache API, cache "simdformer-models"): the bundled
// models' files are fetched through fetchKept, which answers from the cache when it can and keeps
// what it fetched, so a second visit loads them without the network (web/sw.js keeps the page
// itself). The list of kept models and forgetting one are the library's (keptModels,
// forgetModel: web/page/kept-models.mjs asks the worker).
// The Cache API rather than the origin-private file system: the service worker that makes the page
// work offline reads the same cache, and a cached Response keeps its headers (type, length).
// The library's loadPretrained(url, { cache: 'browser' }) keeps folders in the same cache with the
// same headers (bindings/js/lib/model-cache.mjs). (fetchKept stays the page's own: it serves files the
// main thread reads before the engine has loaded, and sw.js reads the cache without modules.)
export const MODEL_CACHE = 'simdformer-models';
const KEPT_AT = 'x-simdformer-kept-at';
const FOLDER = 'x-simdformer-folder';  // the model folder's URL: files in subfolders belong to it
const available = () => typeof caches !== 'undefined';
const pending = new Set();  // copies being written

// Resolves when every copy fetchKept started in this global is written (a list shown after a
// load then has all of its files).
export const keptSettled = () => Promise.all([...pending]);

// fetch() for a file of a page-served model folder: the kept copy, else the network (kept when OK).
export async function fetchKept(url) {
  if (!available()) return fetch(url);
  const cache = await caches.open(MODEL_CACHE);
  const kept = await cache.match(url);
  if (kept) return kept;
  const r = await fetch(url);
  if (!r.ok) return r;
  // Kept while the caller reads the network's copy: the first picture does not wait for the cache.
  const copy = r.clone();
  const headers = new Headers(copy.headers);
  headers.set(KEPT_AT, new Date().toISOString());
  headers.set(FOLDER, new URL('.', new URL(url, location.href)).href);
  const put = cache.put(url, new Response(copy.body, { status: copy.status, headers })).catch(() => {});  // a full disk keeps nothing
  pending.add(put);
  put.finally(() => pending.delete(put));
  return r;
}
