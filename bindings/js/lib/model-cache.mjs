// Model folders kept in the browser: loadPretrained(url, { cache: 'browser' }) keeps every file it
// fetched in the Cache API, so a second visit loads without the network; keptModels lists what is
// kept, forgetModel removes a folder. The cache and its headers are the ones the demo page's
// web/model-store.mjs writes, so the page and the library see (and forget) the same models:
//   cache "simdformer-models"; each stored Response keeps the server's headers, plus
//   x-simdformer-kept-at (ISO date) and x-simdformer-folder (the folder URL it belongs to: a
//   file in a subfolder such as 1_Pooling/config.json still belongs to the model's folder).
// The Cache API rather than OPFS: a cached Response keeps its headers, and the page's service
// worker reads the same cache.
import { untilAborted } from './abortable.mjs';
import { fail } from './errors.mjs';

export const MODEL_CACHE = 'simdformer-models';
export const KEPT_AT = 'x-simdformer-kept-at';
export const FOLDER = 'x-simdformer-folder';

// The Cache API, or a SimdformerError 'unsupported' saying why it is missing: asking to keep
// models where they cannot be kept must not silently download them every time.
export function browserCaches(where) {
  if (typeof globalThis.caches?.open === 'function') return globalThis.caches;
  const why = globalThis.isSecureContext === false
    ? 'this page is not a secure context (the Cache API needs https: or http://localhost)'
    : 'this runtime has no Cache API (Node.js has none; it exists in browsers and workers)';
  return fail(`${where}: cache 'browser' cannot keep models: ${why}`, 'unsupported');
}

/**
 * The kept copies of one folder (root: its URL, with the trailing slash), for urlFileSet:
 *   match(url)            -> Promise<Response | undefined>  (a failing cache is a miss)
 *   keep(url, response, bytes) -> Promise<void>  (bytes: the body as downloaded; a full disk
 *                            keeps nothing and the load goes on)
 *   holdsFolder()         -> Promise<boolean>  (was this folder kept: its config.json is)
 */
export function folderCache(root, signal) {
  const opened = browserCaches('loadPretrained').open(MODEL_CACHE);
  opened.catch(() => {});  // reported by the first match, not as an unhandled rejection
  const match = async (url) => {
    try {
      return await untilAborted(opened.then((c) => c.match(url)), signal);
    } catch (e) {
      if (signal?.aborted) throw e;
      return undefined;
    }
  };
  return {
    match,
    async keep(url, response, bytes) {
      try {
        const cache = await opened;
        await cache.put(url, new Response(bytes, { status: response.status, statusText: response.statusText, headers: keptHeaders(response, bytes, root) }));
      } catch {
        // Not kept (quota, private mode): this load has the bytes; the next one fetches again.
      }
    },
    async holdsFolder() { return (await match(new URL('config.json', root))) !== undefined; },
  };
}

// The server's headers, with what describes the stored body: the body is stored decoded, so a
// Content-Encoding (and the Content-Length of the encoded body) no longer apply.
function keptHeaders(response, bytes, root) {
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.set('content-length', String(bytes.length));
  headers.set(KEPT_AT, new Date().toISOString());
  headers.set(FOLDER, root.href);
  return headers;
}

// A kept file's folder URL: its x-simdformer-folder header, or (files kept without one) the URL
// of the folder the file is in.
const folderOf = (request, response) => response.headers.get(FOLDER) ?? new URL('.', request.url).href;

async function keptSize(response) {
  const declared = Number(response.headers.get('content-length'));
  return response.headers.has('content-length') && Number.isSafeInteger(declared) ? declared : (await response.blob()).size;
}

/** [{ url, files, bytes, date }]: the kept model folders, newest first (date: ISO, when last kept). */
export async function keptModels() {
  const cache = await browserCaches('keptModels').open(MODEL_CACHE);
  const byFolder = new Map();
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    if (!response) continue;  // forgotten meanwhile (another tab)
    const url = folderOf(request, response);
    const entry = byFolder.get(url) ?? { url, files: 0, bytes: 0, date: '' };
    entry.files++;
    entry.bytes += await keptSize(response);
    const at = response.headers.get(KEPT_AT) ?? '';
    if (at > entry.date) entry.date = at;
    byFolder.set(url, entry);
  }
  return [...byFolder.values()].sort((a, b) => b.date.localeCompare(a.date));
}

/**
 * Removes every kept file of the folder at `url` (as keptModels names it; relative URLs resolve
 * against the page, a missing trailing slash is added). Resolves to the number of files removed.
 */
export async function forgetModel(url) {
  const cache = await browserCaches('forgetModel').open(MODEL_CACHE);
  const root = folderUrl(url, 'forgetModel');
  let removed = 0;
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    const folder = response ? folderOf(request, response) : new URL('.', request.url).href;
    if ((folder === root || request.url.startsWith(root)) && await cache.delete(request)) removed++;
  }
  return removed;
}

/** A folder's URL as the cache names it: absolute, ending in '/'. */
export function folderUrl(url, where) {
  const text = typeof url === 'string' ? url : url?.href;
  if (typeof text !== 'string') fail(`${where}: the folder must be a URL (string or URL)`);
  const page = globalThis.document?.baseURI ?? globalThis.location?.href;
  try {
    return new URL(text.endsWith('/') ? text : `${text}/`, page).href;
  } catch {
    return fail(`${where}: '${text}' is not a URL`);
  }
}
