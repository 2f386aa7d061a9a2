// Which of the three wasm builds init() loads, decided once for every entry (node.mjs,
// browser.mjs), by what the engine validates (lib/simd-detect.mjs):
//  - simdformer: SIMD128 and native wasm exception handling (-fwasm-exceptions), for engines
//    that have both: Chrome/Edge >= 95, Firefox >= 100, Safari >= 16.4 (SIMD128 came after
//    exceptions there, in 16.4), Node >= 17 -- every current browser and supported Node;
//  - simdformer-threads: the same plus pthreads, when more than one thread is asked and memory
//    can be shared with workers (Node; cross-origin isolated pages);
//  - simdformer-scalar: no SIMD opcode and JavaScript-based exceptions (-fexceptions), so it runs
//    on any engine with wasm MVP: older ones that lack SIMD128 or exceptions (Chrome 91-94,
//    Firefox 89-99, Safari < 16.4, Node 16), and simd: false. Its refusals of bad input and its
//    out_of_memory replies are the same as the others' (tests/js/eh-fallback.test.mjs).
import { chooseSimd } from './simd-detect.mjs';
import { resolveThreads } from './threads.mjs';

/**
 * o: init's checked options; cores: { physical, logical } for threads: 'auto' (or a function
 * returning them, called only then); sharedMemory: whether this page or process can share wasm
 * memory with workers.
 * Returns the build's file name (without .mjs / .wasm), simd, the threads it runs, the threads
 * asked, and why more than one thread cannot run ('scalar': the scalar build is loaded, by
 * simd: false or because the engine lacks SIMD128 or wasm exceptions; 'isolation': no shared
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
