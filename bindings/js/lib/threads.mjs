// Threads: the init({ threads }) option, the pthreads build's pool of workers, and their end.
//
// threads: 1 (default) loads the one-thread build. n > 1 (or 'auto') loads simdformer-threads,
// whose glue starts n - 1 workers with the module (Module.sfPoolSize; see bindings/CMakeLists.txt)
// and then sizes the C++ pool with setThreads(n). Browsers can run it only on cross-origin
// isolated pages (shared memory); elsewhere init falls back to one thread and says why.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

export const MAX_THREADS = 16;      // explicit threads: n accepted up to this
export const AUTO_THREADS_CAP = 4;  // 'auto' never starts more workers than this

/** The init option kind (options.mjs): absent -> 1, 'auto', or an integer in [1, MAX_THREADS]. */
export const threadsKind = {
  fallback: 1,
  read: (v, what) => (v === 'auto' || (Number.isSafeInteger(v) && v >= 1 && v <= MAX_THREADS)
    ? v : fail(`${what} must be 'auto' or an integer in [1, ${MAX_THREADS}], got ${describe(v)}`)),
};

/** 'auto' -> physical cores (when known, else logical) up to AUTO_THREADS_CAP. */
export function resolveThreads(requested, { physical, logical }) {
  if (requested !== 'auto') return requested;
  const cores = physical || logical || 1;
  return Math.max(1, Math.min(AUTO_THREADS_CAP, cores));
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
