// Models the page loaded, kept in the browser: the bundled models' files are fetched through
// fetchKept, which keeps what it fetched, so a second visit loads them without the network
// (web/sw.js keeps the page itself). The cache names and the headers of a kept file are the
// library's contract (bindings/js/lib/cache-contract.mjs, served from dist/lib/), which the library's
// loadPretrained(url, { cache: 'browser' }), keptModels and forgetModel and web/sw.js follow
// too: the list of kept models and forgetting one are the library's (web/page/kept-models.mjs
// asks the worker). (fetchKept stays the page's own: it serves files the main thread reads
// before the engine has loaded.)
import { MODEL_CACHE, keptHeaders } from './dist/lib/cache-contract.mjs';

export { MODEL_CACHE };

const available = () => typeof caches !== 'undefined';
const pending = new Set();  // copies being written

// Resolves when every copy fetchKept started in this global is written (a list shown after a
// load then has all of its files).
export const keptSettled = () => Promise.all([...pending]);

// What the kept copy lets the server answer with a 304: its ETag / Last-Modified.
function conditionalHeaders(kept) {
  const headers = {};
  const etag = kept?.headers.get('etag');
  const modified = kept?.headers.get('last-modified');
  if (etag) headers['if-none-match'] = etag;
  if (modified) headers['if-modified-since'] = modified;
  return headers;
}

// fetch() for a file of a page-served model folder, never stale and never lost: the network's
// copy when it answers (asked conditionally when a copy is kept: a 304 answers with the kept
// one), kept when OK; the kept copy when the network fails (offline, or a 5xx).
export async function fetchKept(url) {
  if (!available()) return fetch(url);
  const cache = await caches.open(MODEL_CACHE);
  const kept = await cache.match(url);
  let r;
  try {
    r = await fetch(url, { headers: conditionalHeaders(kept) });
  } catch (e) {
    if (kept) return kept;
    throw e;
  }
  if (r.status === 304 && kept) return kept;
  if (r.status >= 500 && kept) return kept;
  if (!r.ok) return r;
  keep(cache, url, r.clone());
  return r;
}

// Kept while the caller reads the network's copy: the first picture does not wait for the cache.
function keep(cache, url, copy) {
  const folder = new URL('.', new URL(url, location.href)).href;
  const length = copy.headers.get('content-length');
  const size = copy.headers.has('content-encoding') || length === null ? undefined : Number(length);
  const headers = keptHeaders(copy.headers, size, folder);
  const put = cache.put(url, new Response(copy.body, { status: copy.status, headers })).catch(() => {});  // a full disk keeps nothing
  pending.add(put);
  put.finally(() => pending.delete(put));
}
