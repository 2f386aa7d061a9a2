// The one cache contract of simdformer in the browser, imported by the library
// (model-cache.mjs), the demo page (web/model-store.mjs) and its service worker (web/sw.js, a
// module service worker): the cache names, the headers a kept file carries, the folder record.
// It imports nothing, so the page and the service worker load it as one small file.
//
// "simdformer-models" holds model files:
//   - each kept file is stored under its URL with the server's headers, decoded (no
//     Content-Encoding, Content-Length = the stored bytes), plus KEPT_AT and FOLDER;
//   - loadPretrained(url, { cache: 'browser' }) keeps a folder as one unit: its files also carry
//     PART, and a folder record (JSON {folder, keptAt, validator: {name, etag, lastModified},
//     absent: [name], files: [{name, url, bytes}]}, with RECORD set) is stored under the folder's
//     key once every file is; without a whole record, PART files are leftovers and never listed;
//   - the demo page keeps its bundled models' files one by one (each whole on its own; no PART).
// "simdformer-page" holds the demo page's own files (web/sw.js), under their URLs.
export const MODEL_CACHE = 'simdformer-models';
export const PAGE_CACHE = 'simdformer-page';
export const KEPT_AT = 'x-simdformer-kept-at';   // ISO date the file was kept
export const FOLDER = 'x-simdformer-folder';     // the key of the folder a file belongs to
export const PART = 'x-simdformer-part';         // on files that are part of a recorded folder
export const RECORD = 'x-simdformer-record';     // on a folder record
// On a response web/sw.js answered from its kept copy because the network failed (the value
// says how: 'HTTP 500', or the fetch error).
export const NETWORK_FAILED = 'x-simdformer-network-failed';

/** The headers a kept file carries: the server's, describing the stored (decoded) body. */
export function keptHeaders(serverHeaders, size, folder, { part = false } = {}) {
  const headers = new Headers(serverHeaders);
  // The body is stored decoded: a Content-Encoding and the encoded body's length no longer apply.
  headers.delete('content-encoding');
  if (size === undefined) headers.delete('content-length');
  else headers.set('content-length', String(size));
  headers.set(KEPT_AT, new Date().toISOString());
  headers.set(FOLDER, folder);
  if (part) headers.set(PART, folder);
  return headers;
}
