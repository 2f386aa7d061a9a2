// Browser and bundler entry. The glue locates its .wasm with new URL(..., import.meta.url),
// which bundlers (Vite, webpack) rewrite; options.wasmUrl / wasmBinary override it (CDNs).
import { BUNDLED_MODELS, bundledModelUrl } from './lib/bundled-models.mjs';
import { SimdformerError } from './lib/errors.mjs';
import { Model } from './lib/model.mjs';
import { forgetModel, keptModels } from './lib/model-cache.mjs';
import { TextModel } from './lib/text-model.mjs';
import { Simdformer, initOptions, instantiate } from './lib/instance.mjs';
import { wasmSimdSupported } from './lib/simd-detect.mjs';
import { startThreadsInBackground, threadedModuleOptions } from './lib/threads.mjs';
import { chooseBuild } from './lib/wasm-build.mjs';
import { download } from './lib/url-files.mjs';

export { BUNDLED_MODELS, Model, Simdformer, SimdformerError, TextModel, bundledModelUrl, forgetModel, keptModels, wasmSimdSupported };

// Reads a model from bytes or a URL (fetch, with download progress when the size is known).
async function readSource(source, progress) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (typeof source !== 'string' && !(source instanceof URL)) {
    throw new SimdformerError('model source must be bytes or a URL in the browser');
  }
  // The body as loadPretrained downloads a file (url-files.mjs download): a Content-Length that
  // counts a Content-Encoding's bytes is no limit (a gzip-encoded model was refused as 'larger than
  // its Content-Length'), an announced length is a buffer only where one can be made (2^40 was a
  // RangeError) and up to 2 GiB, and a failed fetch or a body cut short is an io_error naming the
  // model (they were raw TypeErrors, 'fetch failed' and 'terminated').
  let response;
  try {
    response = await fetch(source);
  } catch (e) {
    throw new SimdformerError(`cannot fetch model '${source}': ${e?.cause?.message ?? e?.message ?? e}`, 'io_error');
  }
  if (!response.ok) throw new SimdformerError(`cannot fetch model '${source}': HTTP ${response.status}`, 'io_error');
  return download(response, `model '${source}'`, ({ loaded, total }) => progress({ stage: 'download', loaded, total }));
}

/**
 * Loads the wasm module (SIMD128 when the browser has it and wasm exception handling, unless
 * options.simd says otherwise; lib/wasm-build.mjs says which browser gets which build).
 * threads: n > 1 or 'auto' (logical CPUs, at most 4) loads the pthreads build with n - 1 workers,
 * only on cross-origin isolated pages (shared memory needs COOP/COEP headers); elsewhere the
 * one-thread build is loaded and sf.threadsNote says why. The pool starts in the background once
 * the workers have loaded: one thread until then (sf.threadsReady resolves when it runs).
 */
export async function init(options = {}) {
  const o = initOptions(options);
  if (o.backend === 'native') throw new SimdformerError("init: backend 'native' runs in Node.js only; browsers run the wasm build", 'unsupported');
  const cores = { logical: globalThis.navigator?.hardwareConcurrency ?? 1, physical: 0 };
  const { name, simd, threads, asked, refused } = chooseBuild(o, { cores, sharedMemory: globalThis.crossOriginIsolated });
  const scalarWhy = o.simd === false ? 'simd: false' : 'this browser lacks wasm SIMD128 or wasm exception handling';
  const threadsNote = refused === 'scalar' ? `threads: ${asked} asked, 1 used: the scalar build (${scalarWhy}) has no threads`
    : refused === 'isolation' ? `threads: ${asked} asked, 1 used: the page is not cross-origin isolated ` +
      '(serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)'
    : '';
  // Only the chosen build's glue is loaded (bundlers split the three imports).
  const factory = (name === 'simdformer-threads' ? await import('./simdformer-threads.mjs')
    : name === 'simdformer' ? await import('./simdformer.mjs') : await import('./simdformer-scalar.mjs')).default;
  let moduleOptions = {};
  if (o.wasmBinary) moduleOptions.wasmBinary = o.wasmBinary;
  else if (o.wasmUrl) {
    const url = typeof o.wasmUrl === 'function' ? o.wasmUrl(`${name}.wasm`) : o.wasmUrl;
    moduleOptions.locateFile = (file, dir) => (file.endsWith('.wasm') ? String(url) : dir + file);
  }
  if (threads > 1) moduleOptions = threadedModuleOptions(moduleOptions, threads);
  const module = await instantiate(factory, moduleOptions);
  const threadsStarting = threads > 1 ? startThreadsInBackground(module, threads) : null;
  return new Simdformer(module, { simd, readSource, threads, threadsNote, threadsStarting, relaxedSimd: o.relaxedSimd });
}

export default init;
