// Which of the three wasm builds init() loads, decided once for every entry (node.mjs,
// browser.mjs): SIMD128 when the engine has it (or as options.simd says), otherwise the scalar
// build; the SIMD128 + pthreads build when more than one thread is asked and can run here.
import { chooseSimd } from './simd-detect.mjs';
import { resolveThreads } from './threads.mjs';

/**
 * o: init's checked options; cores: { physical, logical } for threads: 'auto';
 * sharedMemory: whether this page or process can share wasm memory with workers.
 * Returns the build's file name (without .mjs / .wasm), simd, the threads it runs, the threads
 * asked, and why more than one thread cannot run ('scalar': simd is off; 'isolation': no shared
 * memory), or null. Each entry says in its own words what it does then (the browser falls back to
 * one thread with a note, Node.js refuses).
 */
export function chooseBuild(o, { cores, sharedMemory }) {
  const simd = chooseSimd(o.simd);
  const asked = resolveThreads(o.threads, cores);
  const refused = asked <= 1 ? null : !simd ? 'scalar' : !sharedMemory ? 'isolation' : null;
  const threads = refused ? 1 : asked;
  const name = threads > 1 ? 'simdformer-threads' : simd ? 'simdformer' : 'simdformer-scalar';
  return { name, simd, threads, asked, refused };
}
