// Simdformer: one loaded wasm module as users see it (created by init() in the Node and browser
// entries). It loads models and runs the standalone operations.
import { check, fail, jsonReply, translateInternalErrors } from './errors.mjs';
import { CallHeap, heapBytes } from './heap.mjs';
import { asBytes } from './inputs.mjs';
import { memoryBinary } from './file-sets.mjs';
import { createLinear } from './linear-layer.mjs';
import { Model } from './model.mjs';
import { attention, layerNorm, positionalEncoding } from './ops.mjs';
import { func, oneOf, readOptions, value, weightsFormat } from './options.mjs';
import { loadPretrained, loadWeights } from './pretrained.mjs';
import { setJinjaLoader } from './chat-template.mjs';
import { setTokenizersLoader } from './tokenizer.mjs';
import { wasmRelaxedSimdSupported } from './simd-detect.mjs';
import { stopThreads, threadsKind } from './threads.mjs';

export class Simdformer {
  #module;
  #readSource;
  #localFolder;
  #threadsStarting = null;  // { ready, cancel } while the threads build's pool starts

  /**
   * readSource(source, progress) -> bytes; localFolder(path) -> a file set (Node only);
   * threads: threads the module computes with; threadsNote: why fewer than asked ('' if none).
   * backend: 'wasm', or 'native' for the Node-API addon (same API, same errors).
   * threadsStarting: the threads build's pool starting in the background ({ ready, cancel },
   * lib/threads.mjs); sf.threads is 1 until it has started, and sf.threadsReady resolves then.
   */
  constructor(module, { simd, readSource, localFolder = null, threads = 1, threadsNote = '', backend = 'wasm',
                        threadsStarting = null, relaxedSimd = 'auto' }) {
    this.#module = module;
    const int8 = int8Kernel(module, relaxedSimd);
    this.relaxedSimd = int8.startsWith('relaxed');
    this.int8ActivationBits = int8 === 'relaxed' || int8 === 'portable' ? 7 : 8;  // '-u8', '-s8', 'off': 8
    this.relaxedF32 = f32Kernel(module, relaxedSimd) === 'relaxed';
    this.#readSource = readSource;
    this.#localFolder = localFolder;
    this.backend = backend;
    this.simd = simd;
    this.arch = module.simdArch();
    this.lanes = module.simdLanes();
    this.threadsNote = threadsNote;
    if (!threadsStarting) {
      this.threads = threads;
      this.threadsReady = Promise.resolve(threads);
      return;
    }
    // The wasm pthreads build: one thread until its pool has started in the background
    // (lib/threads.mjs startThreadsInBackground), then `threads`.
    this.#threadsStarting = threadsStarting;
    this.threads = 1;
    this.threadsReady = threadsStarting.ready.then((n) => {
      this.threads = n;
      return n;
    }, (e) => {
      this.threadsNote = e.message;
      throw e;
    });
    this.threadsReady.catch(() => {});  // reported by threadsReady and threadsNote, never as an unhandled rejection
  }

  /**
   * Stops the worker threads of a multi-threaded module (none is left running, and Node can
   * exit); models keep working on one thread. Safe to call more than once.
   */
  dispose() {
    this.#threadsStarting?.cancel();
    if (this.#module.native) {
      // The addon's pool is the process's (std::thread): back to one thread, nothing left running.
      if (this.threads > 1) this.#module.setThreads(1);
    } else {
      stopThreads(this.#module);
    }
    this.threads = 1;
  }

  /** Bytes of model weights and workspaces currently held in wasm memory. */
  get liveBytes() { return this.#module.liveBytes(); }
  /** Current size of the wasm memory (it only grows); natively the high-water mark of mallocBytes. */
  get heapBytes() { return heapBytes(this.#module); }
  /**
   * Bytes of wasm memory allocated right now (everything malloc handed out and not taken back);
   * natively the call buffers plus the tensor buffers (weights, workspaces) the addon holds.
   */
  get mallocBytes() { return this.#module.mallocBytes(); }
  /** The highest liveBytes since the module started or resetPeakLiveBytes() (a load's peak). */
  get peakLiveBytes() { return this.#module.peakLiveBytes(); }
  resetPeakLiveBytes() { this.#module.resetPeakLiveBytes(); }

  /**
   * Loads a model from safetensors bytes, a file path (Node) or a URL (browser). The config
   * (object or JSON text) may be omitted when the file's metadata holds it under "config".
   * options: { onProgress, weights: 'f32' | 'int8' }.
   */
  async loadModel(source, config, options) {
    const o = readOptions(options, { onProgress: func(), weights: weightsFormat() }, 'loadModel');
    const bytes = await this.#readSource(source, o.onProgress ?? (() => {}));
    return this.#loadBytes(bytes, config, o, 'loadModel');
  }

  /** loadModel for bytes already in memory. The third argument: options, or (older form) onProgress. */
  loadModelSync(bytes, config, options) {
    const o = typeof options === 'function' ? { onProgress: options, weights: 'f32' }
      : readOptions(options, { onProgress: func(), weights: weightsFormat() }, 'loadModelSync');
    return this.#loadBytes(bytes, config, o, 'loadModel');
  }

  // The C++ loader pulls each tensor's bytes from the JS copy (the file is never copied whole
  // into wasm memory), packing f32 or quantizing to int8 as it goes.
  #loadBytes(bytes, config, { onProgress, weights }, where) {
    bytes = asBytes(bytes, 'model source');
    let configText = '';
    if (config !== undefined && config !== null) {
      if (typeof config === 'string') configText = config;
      else if (typeof config === 'object') configText = configJson(config);
      else fail('config must be an object or JSON text');
    }
    const progress = onProgress ?? (() => {});
    progress({ stage: 'load', loaded: 0, total: bytes.length });
    const file = memoryBinary(bytes, 'model source');
    const handle = loadWeights(this.#module, configText, { indexText: '', shards: [{ name: 'model.safetensors', file }] },
      { progress: () => {}, signal: undefined, weightsKind: weights, where });
    let model = null;
    try {
      model = new Model(this.#module, handle);
      // A throwing progress callback cancels the load: the model is freed, not leaked.
      progress({ stage: 'load', loaded: bytes.length, total: bytes.length });
      return model;
    } catch (e) {
      if (model) model.dispose();
      else handle.delete();
      throw e;
    }
  }

  /**
   * Loads a Hugging Face model folder (BERT, RoBERTa, DistilBERT, GPT-2) with its tokenizer: a folder
   * path (Node), a base URL, a FileList / File[] or {config, weights, tokenizer}.
   */
  loadPretrained(source, options) {
    return loadPretrained(this.#module, source, options, { localFolder: this.#localFolder });
  }

  /** The tensors, dtypes, shapes and metadata of a safetensors file, without loading it. */
  async inspect(source) {
    const bytes = asBytes(await this.#readSource(source, () => {}), 'safetensors source');
    const heap = new CallHeap(this.#module);
    try {
      return jsonReply(this.#module.describeSafetensors(heap.u8(bytes), bytes.length));
    } finally {
      heap.free();
    }
  }

  attention(Q, K, V, options) { return attention(this.#module, Q, K, V, options); }
  layerNorm(x, options) { return layerNorm(this.#module, x, options); }
  /** A Linear layer from an nn.Linear weight [outFeatures * inFeatures] and optional bias. */
  linear(weight, bias, inFeatures, outFeatures) { return createLinear(this.#module, weight, bias, inFeatures, outFeatures); }
  positionalEncoding(n, d) { return positionalEncoding(this.#module, n, d); }
}

translateInternalErrors(Simdformer);

// JSON text of a config object; BigInt values and cycles are errors, not TypeErrors.
function configJson(config) {
  try {
    return JSON.stringify(config);
  } catch (e) {
    return fail(`config cannot be written as JSON: ${e.message}`);
  }
}

/**
 * The int8 GEMMs' k-loop (init's relaxedSimd; build_info.h use_int8_kernel): 'auto' relaxed SIMD
 * where this engine's int8 dot product is exact and faster than the 8-bit pair loop (on 8-bit
 * activations where it is exact on them: 'relaxed-u8' or 'relaxed-s8'), true insists on it,
 * false never, 'portable' true's numerics in portable code. The native addon has none of these.
 */
function int8Kernel(module, requested) {
  const mode = requested === true ? 'relaxed' : requested === false ? 'off' : requested;
  // 'auto' in an engine without relaxed SIMD: the module's check would refuse its relaxed module
  // (it cannot validate), and a new module starts on the 8-bit k-loop; skipping the call saves
  // ~1 ms of init() (its invoker, the failed validation). Issue 30's start-up.
  if (mode === 'auto' && !wasmRelaxedSimdSupported()) return 'off';
  const now = module.int8Kernel?.(mode) ?? (mode === 'auto' || mode === 'off' ? 'off' : '');
  return now || fail(`init: relaxedSimd: ${JSON.stringify(requested)} needs a SIMD128 wasm build (true: in an engine with relaxed SIMD)`, 'unsupported');
}

/**
 * The f32 GEMMs' k-loop (init's relaxedSimd; build_info.h use_f32_kernel): relaxed SIMD's
 * multiply-add (one FMA where the engine has it) under 'auto' and 'portable' where this engine runs
 * the module's f32 loops consistently, insisted on by true, never under false. Called after
 * int8Kernel, which has refused every mode that is refused here.
 */
function f32Kernel(module, requested) {
  const mode = requested === true ? 1 : requested === false ? 0 : 2;  // build_info.h F32Kernel
  if (mode === 2 && !wasmRelaxedSimdSupported()) return 'off';
  const now = module.f32Kernel?.(mode) ?? (mode === 1 ? -1 : 0);
  if (now < 0) fail(`init: relaxedSimd: true needs relaxed SIMD's f32 multiply-add, which this engine does not run consistently`, 'unsupported');
  return now ? 'relaxed' : 'off';
}

const cannotInstantiate = (e) => fail(`init: the wasm module cannot be instantiated: ${e?.message ?? e}`, 'unsupported');

/** Awaits a WebAssembly.compile; bytes that do not compile are a SimdformerError. */
export async function compiled(compiling) {
  try {
    return await compiling;
  } catch (e) {
    return cannotInstantiate(e);
  }
}

/**
 * Runs the Emscripten factory; a wasm file that does not compile or link is a SimdformerError.
 * wasmModule: the module already compiled (node.mjs compiles it while the glue loads), handed to
 * the glue through its instantiateWasm hook; without it the glue compiles the bytes itself.
 */
export async function instantiate(factory, moduleOptions, wasmModule) {
  let hookFailed;
  const failed = new Promise((resolve, reject) => { hookFailed = reject; });
  if (wasmModule) {
    // The glue's receiveInstance takes the module too: the threads build sends it to its workers.
    moduleOptions = {
      ...moduleOptions,
      instantiateWasm: (imports, receiveInstance) => {
        WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule)).catch(hookFailed);
        return {};
      },
    };
  }
  try {
    return await Promise.race([factory(moduleOptions), failed]);
  } catch (e) {
    return cannotInstantiate(e);
  }
}

/** Validates init() options shared by both entry points. */
export function initOptions(options) {
  const o = readOptions(options, { wasmUrl: value(), wasmBinary: value(), simd: oneOf(['auto', true, false], 'auto'),
                                   threads: threadsKind, tokenizers: func(), jinja: func(),
                                   backend: oneOf(['auto', 'native', 'wasm'], undefined),
                                   relaxedSimd: oneOf(['auto', true, false, 'portable'], 'auto') }, 'init');
  if (o.tokenizers) setTokenizersLoader(o.tokenizers);
  if (o.jinja) setJinjaLoader(o.jinja);
  if (o.wasmBinary !== undefined && !(o.wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(o.wasmBinary)) {
    fail('init: wasmBinary must be an ArrayBuffer or Uint8Array');
  }
  return o;
}
