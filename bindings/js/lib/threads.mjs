// Threads: the init({ threads }) option, the pthreads build's pool of workers, and their end.
//
// threads: 1 (default) loads the one-thread build. n > 1 (or 'auto') loads simdformer-threads,
// whose glue starts n - 1 workers with the module (Module.sfPoolSize; see bindings/CMakeLists.txt)
// and then sizes the C++ pool with setThreads(n). Browsers can run it only on cross-origin
// isolated pages (shared memory); elsewhere init falls back to one thread and says why.
//
// init() does not wait for the workers. A worker's own start-up (Node's worker bootstrap, ~35 ms,
// then the module sent to it) is the slow part of a threaded init, and nothing needs it until a
// computation is split: the glue is linked with PTHREAD_POOL_DELAY_LOAD, init() resolves once the
// main module is ready, and the C++ pool starts when every worker has reported 'loaded'
// (whenWorkersLoaded). Until then calls run on one thread, which computes the same bits (every
// element of a split GEMM is one task's one-thread arithmetic). sf.threads says how many compute
// now; sf.threadsReady resolves to it once the pool is up.
import { SimdformerError, fail } from './errors.mjs';
import { describe } from './options.mjs';

export const MAX_THREADS = 16;      // explicit threads: n accepted up to this
export const AUTO_THREADS_CAP = 4;  // 'auto' never starts more workers than this

/** The init option kind (options.mjs): absent -> 1, 'auto', or an integer in [1, MAX_THREADS]. */
export const threadsKind = {
  fallback: 1,
  read: (v, what) => (v === 'auto' || (Number.isSafeInteger(v) && v >= 1 && v <= MAX_THREADS)
    ? v : fail(`${what} must be 'auto' or an integer in [1, ${MAX_THREADS}], got ${describe(v)}`)),
};

/**
 * 'auto' -> physical cores (when known, else logical) up to AUTO_THREADS_CAP. cores: { physical,
 * logical }, or a function returning them, called only for 'auto' (Node reads /proc/cpuinfo).
 */
export function resolveThreads(requested, cores) {
  if (requested !== 'auto') return requested;
  const { physical, logical } = typeof cores === 'function' ? cores() : cores;
  const n = physical || logical || 1;
  return Math.max(1, Math.min(AUTO_THREADS_CAP, n));
}

/**
 * Module options for the pthreads glue: n - 1 workers started with the module. `workerUrl`
 * overrides where the worker script is (Node passes a .cjs copy, see build-package.sh).
 */
export function threadedModuleOptions(moduleOptions, n, workerUrl) {
  const o = { ...moduleOptions, sfPoolSize: n - 1 };
  if (workerUrl) {
    const inner = moduleOptions.locateFile;
    o.locateFile = (file, dir) => (file.endsWith('.worker.js') ? String(workerUrl) : inner ? inner(file, dir) : dir + file);
  }
  return o;
}

/** Starts the C++ pool on the module's workers; on failure stops every worker and throws. */
export function startThreads(module, n) {
  let err;
  try {
    err = module.setThreads(n);
  } catch (e) {  // a C++ abort (no worker could be taken from the pool)
    err = `unsupported\t${e?.message ?? e}`;
  }
  if (err) {
    stopThreads(module);
    const tab = err.indexOf('\t');
    fail(`init: cannot start ${n} threads: ${err.slice(tab + 1)}`, tab > 0 ? err.slice(0, tab) : 'unsupported');
  }
}

const WORKER_LOAD_TIMEOUT_MS = 30000;  // a worker that has not loaded by then never will

/**
 * Waits until every worker of the module's pool has loaded the module (Emscripten marks it
 * `loaded` on its 'loaded' message; the glue's own handler was attached at instantiation, so it
 * has run when ours sees the message). Calls done(null) then, done(error) if a worker reports an
 * error or none loads within WORKER_LOAD_TIMEOUT_MS. Returns stop(), which removes the listeners
 * without calling done.
 */
function whenWorkersLoaded(module, done) {
  const pending = workers(module).filter((w) => !w.loaded);
  const undo = [];
  let settled = false;
  const stop = () => {
    settled = true;
    clearTimeout(timer);
    for (const u of undo.splice(0)) u();
  };
  const finish = (err) => { if (!settled) { stop(); done(err); } };
  const check = () => { if (pending.every((w) => w.loaded)) finish(null); };
  const broken = (e) => finish(new SimdformerError(`init: a worker thread failed to start: ${e?.message ?? e}`, 'unsupported'));
  for (const w of pending) {
    // The glue's own error handler (worker.onerror, which Node's 'error' events are routed to)
    // rethrows: in Node that is an uncaught exception, and a worker whose script fails to load
    // would end the whole process. Until the worker has loaded, its errors are ours to report
    // (threadsReady rejects, one thread goes on); then the glue's handler is put back.
    const glueOnError = w.onerror;
    w.onerror = broken;
    undo.push(() => { w.onerror = glueOnError; });
    if (typeof w.on === 'function') {  // Node's Worker is an EventEmitter, a browser's an EventTarget
      w.on('message', check);
      undo.push(() => w.off('message', check));
    } else {
      w.addEventListener('message', check);
      undo.push(() => w.removeEventListener('message', check));
    }
  }
  const timer = setTimeout(() => broken(new Error(`none loaded within ${WORKER_LOAD_TIMEOUT_MS / 1000} s`)), WORKER_LOAD_TIMEOUT_MS);
  timer.unref?.();  // the timer itself never keeps a Node script alive (node.mjs refs the loading workers)
  queueMicrotask(check);  // every worker may have loaded already
  return stop;
}

/**
 * Starts the C++ pool with n threads once the workers have loaded, in the background.
 * Returns { ready, cancel }: ready resolves to n when the pool runs, or to 1 after cancel() (the
 * instance was disposed first; the workers are then the caller's to stop); on failure the
 * workers are stopped and ready rejects with the SimdformerError.
 */
export function startThreadsInBackground(module, n) {
  let settle;
  const ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  const stop = whenWorkersLoaded(module, (err) => {
    if (err) {
      stopThreads(module);
      settle.reject(err);
      return;
    }
    try {
      startThreads(module, n);
      settle.resolve(n);
    } catch (e) {
      settle.reject(e);
    }
  });
  return { ready, cancel: () => { stop(); settle.resolve(1); } };
}

/** The workers of a pthreads module (idle pool and running), for unref/terminate. */
function workers(module) {
  const p = module.PThread;
  return p ? [...p.unusedWorkers, ...p.runningWorkers] : [];
}

/** Node: idle workers must not keep the process alive (a script ends when its work does). */
export function unrefWorkers(module) {
  for (const w of workers(module)) w.unref?.();
}

/** Joins the C++ pool's threads and terminates every worker: nothing runs after dispose(). */
export function stopThreads(module) {
  if (!module.PThread) return;
  try {
    module.setThreads(1);  // joins the pool's threads; their workers return to the idle list
  } catch {
    // the module may already be broken (abort); terminating the workers below still frees them
  }
  for (const w of workers(module)) w.terminate();
  module.PThread.unusedWorkers.length = 0;
  module.PThread.runningWorkers.length = 0;
}
