// Node.js entry (ESM). Reads the .wasm with fs and compiles it, and hands the compiled module to
// the Emscripten glue (its instantiateWasm hook), which cannot fetch a file path under Node 18+.
import { closeSync, read, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { BUNDLED_MODELS, bundledModelUrl } from './lib/bundled-models.mjs';
import { SimdformerError, fail } from './lib/errors.mjs';
import { Model } from './lib/model.mjs';
import { forgetModel, keptModels } from './lib/model-cache.mjs';
import { TextModel } from './lib/text-model.mjs';
import { Simdformer, compiled, initOptions, instantiate } from './lib/instance.mjs';
import { folderFileSet, openRegularFile } from './node/files.mjs';
import { loadNative } from './node/native.mjs';
import { nodeCores, withCommonJsNames } from './node/threads.mjs';
import { wasmSimdSupported } from './lib/simd-detect.mjs';
import { resolveThreads, startThreadsInBackground, threadedModuleOptions, unrefWorkers } from './lib/threads.mjs';
import { chooseBuild } from './lib/wasm-build.mjs';

// keptModels / forgetModel exist here too (one set of types for both entries): Node.js has no
// Cache API, so they reject with 'unsupported'.
export { BUNDLED_MODELS, Model, Simdformer, SimdformerError, TextModel, bundledModelUrl, forgetModel, keptModels, wasmSimdSupported };

// Reads a model from bytes or a file path, reporting progress in chunks. Only a regular file is
// opened (openRegularFile): a FIFO would block the open forever.
async function readSource(source, progress) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (source instanceof URL && source.protocol === 'file:') source = fileURLToPath(source);
  if (typeof source !== 'string') {
    throw new SimdformerError('model source must be bytes or a file path in Node.js');
  }
  const file = openRegularFile(source);
  if (!file) throw new SimdformerError(`cannot open model file '${source}': ENOENT`, 'io_error');
  try {
    const bytes = new Uint8Array(file.size);
    const chunk = 1 << 22;
    for (let offset = 0; offset < file.size;) {
      let bytesRead;
      try {
        ({ bytesRead } = await readAt(file.fd, bytes, offset, Math.min(chunk, file.size - offset)));
      } catch (e) {
        throw new SimdformerError(`cannot read model file '${source}': ${e.code ?? e.message}`, 'io_error');
      }
      if (bytesRead === 0) throw new SimdformerError(`model file '${source}' ended at byte ${offset} of ${file.size}`, 'io_error');
      offset += bytesRead;
      progress({ stage: 'read', loaded: offset, total: file.size });
    }
    return bytes;
  } finally {
    closeSync(file.fd);
  }
}

const readAt = (fd, bytes, offset, length) => new Promise((resolve, reject) => {
  read(fd, bytes, offset, length, offset, (e, bytesRead) => (e ? reject(e) : resolve({ bytesRead })));
});

/** The bytes of the build's .wasm: beside this file, or where init's wasmUrl says. */
function readWasm(wasmUrl, name) {
  const url = typeof wasmUrl === 'function' ? wasmUrl(`${name}.wasm`) : wasmUrl;
  const where = url ? (url instanceof URL ? url : new URL(String(url), `file://${process.cwd()}/`)) : new URL(`./${name}.wasm`, import.meta.url);
  try {
    return readFileSync(where);
  } catch (e) {
    throw new SimdformerError(`init: cannot read the wasm file ${where}: ${e.code ?? e.message}`, 'io_error');
  }
}

const BACKENDS = ['auto', 'native', 'wasm'];

/**
 * The backend init() uses: options.backend, else SIMDFORMER_BACKEND from the environment (unless
 * the options ask for a wasm build), else 'auto'. 'auto' is the native addon when a prebuilt one loads on this platform and nothing asks
 * for a wasm build (simd: false, wasmUrl, wasmBinary), else wasm, silently.
 */
function chooseBackend(o) {
  const wantsWasm = o.simd === false || o.wasmUrl !== undefined || o.wasmBinary !== undefined;
  let asked = o.backend;
  if (asked === undefined) {
    asked = process.env.SIMDFORMER_BACKEND || 'auto';
    if (!BACKENDS.includes(asked)) fail(`init: SIMDFORMER_BACKEND must be one of ${BACKENDS.join(', ')}, not '${asked}'`);
    // The environment sets the default; options that name a wasm build still get it.
    if (wantsWasm) asked = 'wasm';
  }
  if (asked === 'wasm' || (asked === 'auto' && wantsWasm)) return { backend: 'wasm' };
  if (asked === 'native' && wantsWasm) {
    fail('init: simd: false, wasmUrl and wasmBinary choose a wasm build; they cannot be combined with backend: \'native\'');
  }
  const native = loadNative();
  if (native.module) return { backend: 'native', native };
  if (asked === 'native') fail(`init: backend 'native' is not available: ${native.reason}`, 'unsupported');
  return { backend: 'wasm' };
}

/** The Node-API addon as a Simdformer: its thread pool (process-wide) set to the threads asked. */
function nativeInstance(module, o) {
  const threads = resolveThreads(o.threads, nodeCores);
  const err = module.setThreads(threads);
  if (err) {
    const tab = err.indexOf('\t');
    fail(`init: cannot start ${threads} threads: ${err.slice(tab + 1)}`, tab > 0 ? err.slice(0, tab) : 'unsupported');
  }
  return new Simdformer(module, { simd: true, readSource, localFolder: folderFileSet, threads, backend: 'native', relaxedSimd: o.relaxedSimd });
}

/**
 * Loads the native addon (backend 'native', or 'auto' where a prebuilt one matches; node/native.mjs)
 * or the wasm module (SIMD128 when the engine has it and wasm exception handling, unless
 * options.simd says otherwise; lib/wasm-build.mjs says which engine gets which build).
 * threads: n > 1 or 'auto' (physical cores, at most 4): natively the addon's std::thread pool,
 * in wasm the pthreads build with n - 1 worker threads, whose pool starts in the background once
 * they have loaded (one thread until then: sf.threadsReady); sf.dispose() stops them.
 */
export async function init(options = {}) {
  const o = initOptions(options);
  const { backend, native } = chooseBackend(o);
  if (backend === 'native') return nativeInstance(native.module, o);
  // Node.js shares memory with worker threads everywhere.
  const { name, simd, threads, refused } = chooseBuild(o, { cores: nodeCores, sharedMemory: true });
  if (refused === 'scalar') {
    const why = o.simd === false ? 'simd: false runs' : 'this engine lacks wasm SIMD128 or wasm exception handling, so it runs';
    fail(`init: threads > 1 needs the SIMD128 build; ${why} the scalar build, one thread`, 'unsupported');
  }
  // Start-up in parallel (issue 30: init() <= 20 ms): the glue's import is parsed on this thread
  // while V8 compiles the wasm on its background threads, and the bytes go to the compiler as read
  // (the glue would copy them first). The file is read synchronously: ~1.6 ms for the 347 KB module
  // on the 2-core AMD EPYC, where fs/promises' readFile took 3-4 ms before the compile could start.
  const glueLoading = import(`./${name}.mjs`);
  glueLoading.catch(() => {});  // awaited below; a compile error is reported first
  const compiling = WebAssembly.compile(o.wasmBinary ?? readWasm(o.wasmUrl, name));
  const wasmModule = await compiled(compiling);
  const glue = await glueLoading;
  if (threads === 1) {
    const module = await instantiate(glue.default, {}, wasmModule);
    return new Simdformer(module, { simd, readSource, localFolder: folderFileSet, relaxedSimd: o.relaxedSimd });
  }
  // The worker script is loaded as a .cjs copy: a .js file in this package would be an ES module.
  const worker = fileURLToPath(new URL('./simdformer-threads.worker.cjs', import.meta.url));
  const moduleOptions = threadedModuleOptions({}, threads, worker);
  const module = await withCommonJsNames(() => instantiate(glue.default, moduleOptions, wasmModule));
  const threadsStarting = startThreadsInBackground(module, threads);
  // Idle workers never keep a script from ending -- once started: a loading worker keeps the
  // process alive until the pool is up, so a script awaiting sf.threadsReady is not cut short.
  const unref = () => unrefWorkers(module);
  threadsStarting.ready.then(unref, unref);
  return new Simdformer(module, { simd, readSource, localFolder: folderFileSet, threads, threadsStarting, relaxedSimd: o.relaxedSimd });
}

export default init;
