// Node.js entry (ESM). Reads the .wasm with fs and hands the bytes to the Emscripten glue,
// which cannot fetch a file path under Node 18+ itself.
import { open, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { BUNDLED_MODELS, bundledModelUrl } from './bundled-models.mjs';
import { SimdformerError, fail } from './errors.mjs';
import { Model } from './model.mjs';
import { TextModel } from './text-model.mjs';
import { Simdformer, initOptions, instantiate } from './instance.mjs';
import { folderFileSet } from './node-files.mjs';
import { nodeCores, withCommonJsNames } from './node-threads.mjs';
import { chooseSimd, wasmSimdSupported } from './simd-detect.mjs';
import { resolveThreads, startThreads, threadedModuleOptions, unrefWorkers } from './threads.mjs';

export { BUNDLED_MODELS, Model, Simdformer, SimdformerError, TextModel, bundledModelUrl, wasmSimdSupported };

// Reads a model from bytes or a file path, reporting progress in chunks.
async function readSource(source, progress) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (source instanceof URL && source.protocol === 'file:') source = fileURLToPath(source);
  if (typeof source !== 'string') {
    throw new SimdformerError('model source must be bytes or a file path in Node.js');
  }
  let file;
  try {
    file = await open(source, 'r');
  } catch (e) {
    throw new SimdformerError(`cannot open model file '${source}': ${e.code ?? e.message}`, 'io_error');
  }
  try {
    const stat = await file.stat();
    if (!stat.isFile()) {
      throw new SimdformerError(`'${source}' is not a file (loadModel takes a .safetensors file; loadPretrained takes a Hugging Face folder)`, 'io_error');
    }
    const { size } = stat;
    const bytes = new Uint8Array(size);
    const chunk = 1 << 22;
    for (let offset = 0; offset < size;) {
      let bytesRead;
      try {
        ({ bytesRead } = await file.read(bytes, offset, Math.min(chunk, size - offset), offset));
      } catch (e) {
        throw new SimdformerError(`cannot read model file '${source}': ${e.code ?? e.message}`, 'io_error');
      }
      if (bytesRead === 0) break;
      offset += bytesRead;
      progress({ stage: 'read', loaded: offset, total: size });
    }
    return bytes;
  } finally {
    await file.close();
  }
}

/**
 * Loads the wasm module (SIMD128 when the engine has it, unless options.simd says otherwise).
 * threads: n > 1 or 'auto' (physical cores, at most 4) loads the pthreads build with n - 1
 * worker threads; sf.dispose() stops them.
 */
export async function init(options = {}) {
  const o = initOptions(options);
  const simd = chooseSimd(o.simd);
  const threads = resolveThreads(o.threads, nodeCores());
  if (threads > 1 && !simd) fail('init: threads > 1 needs the SIMD128 build; simd: false runs one thread', 'unsupported');
  const name = threads > 1 ? 'simdformer-threads' : simd ? 'simdformer' : 'simdformer-scalar';
  const glue = await import(`./${name}.mjs`);
  let wasmBinary = o.wasmBinary;
  if (!wasmBinary) {
    const url = typeof o.wasmUrl === 'function' ? o.wasmUrl(`${name}.wasm`) : o.wasmUrl;
    const where = url ? (url instanceof URL ? url : new URL(String(url), `file://${process.cwd()}/`)) : new URL(`./${name}.wasm`, import.meta.url);
    try {
      wasmBinary = await readFile(where);
    } catch (e) {
      throw new SimdformerError(`init: cannot read the wasm file ${where}: ${e.code ?? e.message}`, 'io_error');
    }
  }
  if (threads === 1) {
    const module = await instantiate(glue.default, { wasmBinary });
    return new Simdformer(module, { simd, readSource, localFolder: folderFileSet });
  }
  // The worker script is loaded as a .cjs copy: a .js file in this package would be an ES module.
  const worker = fileURLToPath(new URL('./simdformer-threads.worker.cjs', import.meta.url));
  const moduleOptions = threadedModuleOptions({ wasmBinary }, threads, worker);
  const module = await withCommonJsNames(() => instantiate(glue.default, moduleOptions));
  startThreads(module, threads);
  unrefWorkers(module);  // idle workers never keep a script from ending
  return new Simdformer(module, { simd, readSource, localFolder: folderFileSet, threads });
}

export default init;
