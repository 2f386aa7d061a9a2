// Models the page loaded, kept in the browser (Cache API, cache "simdformer-models"): the bundled
// models' files are fetched through fetchKept, which answers from the cache when it can and keeps
// what it fetched, so a second visit loads them without the network (web/sw.js keeps the page
// itself). The page lists what is kept (keptModels), with sizes and dates, and can forget a model.
// The Cache API rather than the origin-private file system: the service worker that makes the page
// work offline reads the same cache, and a cached Response keeps its headers (type, length).
// The library's loadPretrained(url, { cache: 'browser' }) keeps folders in the same cache with the
// same headers (bindings/js/model-cache.mjs), so this list shows those too and the library's
// keptModels() shows the page's. (This module stays the page's own: fetchKept serves files the
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

// [{ folder: 'models/fortune-gpt2/', name: 'fortune-gpt2', files, bytes, date }], newest first.
export async function keptModels() {
  if (!available()) return [];
  const cache = await caches.open(MODEL_CACHE);
  const byFolder = new Map();
  for (const request of await cache.keys()) {
    const r = await cache.match(request);
    if (!r) continue;  // forgotten meanwhile
    const folder = new URL(r.headers.get(FOLDER) ?? new URL('.', request.url).href).pathname;
    const entry = byFolder.get(folder) ?? { folder, name: folder.split('/').filter(Boolean).pop(), files: 0, bytes: 0, date: '' };
    entry.files++;
    entry.bytes += r.headers.has('content-length') ? Number(r.headers.get('content-length')) : (await r.blob()).size;
    const at = r.headers.get(KEPT_AT) ?? '';
    if (at > entry.date) entry.date = at;
    byFolder.set(folder, entry);
  }
  return [...byFolder.values()].sort((a, b) => b.date.localeCompare(a.date));
}

// Removes every kept file of one folder (as keptModels names it).
export async function forgetModel(folder) {
  if (!available()) return;
  const cache = await caches.open(MODEL_CACHE);
  for (const request of await cache.keys()) {
    if (new URL(request.url).pathname.startsWith(folder)) await cache.delete(request);
  }
}
