// A small static file server bound to 127.0.0.1: correct MIME types (application/wasm for the
// engine), no caching, no directory listings, nothing outside the served roots. Pages are
// cross-origin isolated (COOP/COEP headers), so the multi-threaded build can run in them;
// --no-coi serves without those headers (the one-thread fallback).
// Files carry an ETag (size and modification time) and a matching If-None-Match gets a 304, so
// the page's kept copies are revalidated cheaply. --prefix /some/path/ serves everything below
// that path (as GitHub Pages serves a project), and nothing outside it.
//   node web/serve.mjs [--port 8080] [--root DIR] [--prefix /some/path/] [--no-coi]   (default:
//   the demo, web/ + dist/ + the tokenizer package the demo's worker imports)
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// A Map, not an object: a requested file's extension is never looked up on Object.prototype.
const TYPES = new Map(Object.entries({
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.safetensors': 'application/octet-stream', '.txt': 'text/plain; charset=utf-8', '.ico': 'image/x-icon',
}));

// What the demo page needs from a checkout: the page, the built package, the tokenizer library
// and the chat-template library.
export const TOKENIZERS_URL = '/node_modules/@huggingface/tokenizers/';
export const JINJA_URL = '/node_modules/@huggingface/jinja/';
export function demoMounts(root) {
  const lib = (name) => join(root, 'node_modules', '@huggingface', name);
  return [['/dist/', join(root, 'dist')], [TOKENIZERS_URL, lib('tokenizers')], [JINJA_URL, lib('jinja')], ['/', join(root, 'web')]];
}

// mounts: [[urlPrefix, directory]], longest prefix first; prefix: a path every mount sits below.
// answer(path) -> undefined, or {status, body?, type?, headers?} to answer instead of the file
// (tests: a server that fails some files, serves a newer one, or redirects).
export function startServer({ mounts, port = 0, host = '127.0.0.1', crossOriginIsolated = true, prefix = '/', answer } = {}) {
  if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`serve: the prefix must start and end with '/', got ${prefix}`);
  // SharedArrayBuffer (wasm threads) needs a cross-origin isolated page; every resource here is
  // same-origin, so require-corp blocks nothing.
  const isolation = crossOriginIsolated
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const roots = mounts.map(([at, dir]) => [prefix + at.slice(1), resolve(dir)]).sort((a, b) => b[0].length - a[0].length);
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const instead = answer?.(path);
    if (instead) {
      res.writeHead(instead.status, { 'Content-Type': instead.type ?? 'text/plain', 'Cache-Control': 'no-store', ...isolation, ...instead.headers });
      res.end(instead.body ?? `HTTP ${instead.status}`);
      return;
    }
    const mount = roots.find(([prefix]) => path.startsWith(prefix));
    if (!mount) { res.writeHead(404).end('not found'); return; }
    const file = normalize(join(mount[1], path.slice(mount[0].length)));
    if (file !== mount[1] && !file.startsWith(mount[1] + sep)) { res.writeHead(403).end('forbidden'); return; }
    let stat;
    try { stat = statSync(file); } catch { stat = null; }
    if (!stat || !stat.isFile()) { res.writeHead(404).end('not found'); return; }
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, { ETag: etag, ...isolation }).end(); return; }
    res.writeHead(200, {
      'Content-Type': TYPES.get(extname(file)) ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': 'no-store',
      ETag: etag,
      ...isolation,
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok({ server, url: `http://${host}:${server.address().port}${prefix}`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) }));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
  const here = fileURLToPath(new URL('.', import.meta.url));
  const root = opt('--root');
  const mounts = root ? [['/', root]] : demoMounts(join(here, '..'));
  const { url } = await startServer({ mounts, port: Number(opt('--port', 8080)), crossOriginIsolated: !args.includes('--no-coi'), prefix: opt('--prefix', '/') });
  console.log(`simdformer demo: ${url}`);
}
