// Node-only parts of threads: CPU counts for init({ threads: 'auto' }), and the CommonJS names
// the pthreads glue expects while it starts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/** Logical CPUs from os; physical cores from /proc/cpuinfo on Linux (0 when unknown). */
export function nodeCores() {
  const logical = os.availableParallelism?.() ?? os.cpus().length;
  let physical = 0;
  try {
    const cores = new Set();
    let socket = '0';
    for (const line of readFileSync('/proc/cpuinfo', 'utf8').split('\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim(), value = line.slice(colon + 1).trim();
      if (key === 'physical id') socket = value;
      else if (key === 'core id') cores.add(`${socket}/${value}`);
    }
    physical = cores.size;
  } catch {
    // not Linux, or /proc unreadable: only the logical count is known
  }
  return { logical, physical: physical > 0 && physical <= logical ? physical : 0 };
}

/**
 * Runs fn with global `require` and `__dirname` defined, then restores the globals. Emscripten
 * 3.1.6's ES-module glue, when built for node too (the pthreads build), still reads both
 * (fixed upstream later); it uses them only while the factory runs synchronously (fs,
 * worker_threads, its own folder), and we pass the wasm bytes, so the names exist only then.
 */
export function withCommonJsNames(fn) {
  const names = { require: createRequire(import.meta.url), __dirname: fileURLToPath(new URL('..', import.meta.url)) };  // the glue's folder: dist/
  const saved = Object.fromEntries(Object.keys(names).map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]));
  Object.assign(globalThis, names);
  try {
    return fn();
  } finally {
    for (const [k, d] of Object.entries(saved)) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete globalThis[k];
    }
  }
}
