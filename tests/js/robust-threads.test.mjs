// Threads at any count init() accepts (issue 18): starting 7-15 workers grows wasm memory (their
// stacks), so a view of memory taken before that -- or by another thread's growth later -- is too
// short. Every count loads a Hugging Face folder and runs sf.linear with the one-thread results,
// sf.heapBytes is the memory's real size, and a copy out of memory is never silently short.
// Starting and joining a pool leaves mallocBytes where it was: the runtime frees a joined
// thread's blocks past malloc, and the counting malloc must see those frees too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import createThreadsModule from '../../dist/simdformer-threads.mjs';
import { SimdformerError, init } from '../../dist/node.mjs';
import { copyF32, copyI32 } from '../../dist/lib/heap.mjs';
import { withCommonJsNames } from '../../dist/node/threads.mjs';
import { startThreadsInBackground, stopThreads, threadedModuleOptions } from '../../dist/lib/threads.mjs';
import { DATA, DIST } from './helpers.mjs';

const BERT = join(DATA, 'hf', 'bert');
// Layers of several sizes: where malloc puts a block (and so whether it lies past a stale view's
// end) depends on its size.
const SIZES = [8, 64, 96, 160, 384];
const matrix = (k, salt) => Float32Array.from({ length: k * k }, (_, i) => (((i + salt) * 7919) % 1001 - 500) / 10000);

async function compute(sf) {
  const y = SIZES.map((k) => {
    const layer = sf.linear(matrix(k, 1), null, k, k);
    const out = layer.forward(matrix(k, 2));
    layer.dispose();
    return Array.from(out);
  });
  const model = await sf.loadPretrained(BERT);
  const e = model.embed(['threads of any count', 'give the same bits']);
  model.dispose();
  return { y, e: e.map((v) => Array.from(v)) };
}

test('init({ threads: 8 | 12 | 16 }): loadPretrained and sf.linear work and equal one thread', async () => {
  const one = await init();
  const expected = await compute(one);
  for (const threads of [8, 12, 16]) {
    const sf = await init({ threads });
    try {
      assert.equal(await sf.threadsReady, threads);  // every worker has started (and grown memory)
      assert.equal(sf.threads, threads);
      const got = await compute(sf);
      assert.deepEqual(got.e, expected.e, `threads ${threads}: embeddings`);
      // The engine promises bit-identical results at every thread count (each element of a split
      // GEMM is computed by one task with the one-thread arithmetic): equal, not close.
      got.y.forEach((y, s) => assert.deepEqual(y, expected.y[s], `threads ${threads}: size ${SIZES[s]}`));
      // heapBytes is the memory's size now: whole 64 KiB pages, holding everything malloc gave out.
      assert.equal(sf.heapBytes % 65536, 0);
      assert.ok(sf.heapBytes >= sf.mallocBytes, `threads ${threads}: heapBytes ${sf.heapBytes} < mallocBytes ${sf.mallocBytes}`);
    } finally {
      sf.dispose();
    }
  }
});

test('a copy out of wasm memory is never silently short', () => {
  // A module whose cached views are older (shorter) than its memory, as after another thread grew it.
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
  const stale = { HEAPU8: new Uint8Array(memory.buffer), HEAPF32: new Float32Array(memory.buffer), HEAP32: new Int32Array(memory.buffer) };
  memory.grow(1);
  new Float32Array(memory.buffer).fill(2.5, 16384 - 2, 16384 + 2);
  const module = { ...stale, wasmMemory: memory };
  assert.deepEqual(Array.from(copyF32(module, 65536 - 8, 4)), [2.5, 2.5, 2.5, 2.5]);  // across the old end
  assert.equal(copyF32(module, 65536 - 8, 4).buffer instanceof SharedArrayBuffer, false);  // a copy, not shared
  // Past the end of memory: an error, not fewer values.
  assert.throws(() => copyF32(module, 2 * 65536 - 8, 4), (e) => e instanceof SimdformerError && e.code === 'internal');
  assert.throws(() => copyI32(module, 2 * 65536, 1), (e) => e instanceof SimdformerError && e.code === 'internal');
});

// pthread_create mallocs a thread's block, stack and key table, and the main thread frees them
// with emscripten_builtin_free once the thread is joined; the thread's TLS block comes from
// emscripten_builtin_memalign. counted_malloc.cpp wraps those entry points, so a pool started
// and joined again and again leaves the count exactly where it was (without the wrap, the frees
// would reach emmalloc past the header: a wrong count, or a corrupt heap).
test('threads module: mallocBytes is back at its level after each pool is joined', async () => {
  const options = threadedModuleOptions({ wasmBinary: readFileSync(join(DIST, 'simdformer-threads.wasm')) }, 4,
    join(DIST, 'simdformer-threads.worker.cjs'));
  const module = await withCommonJsNames(() => createThreadsModule(options));
  try {
    assert.equal(await startThreadsInBackground(module, 4).ready, 4);
    assert.equal(module.setThreads(1), '');  // a first cycle: whatever the first start keeps stays
    const level = module.mallocBytes();
    for (const threads of [2, 4, 3, 4]) {
      assert.equal(module.setThreads(threads), '');
      assert.ok(module.mallocBytes() > level, `${threads} threads: their stacks are counted`);
      assert.equal(module.setThreads(1), '');
      assert.equal(module.mallocBytes(), level, `after ${threads} threads were joined`);
    }
  } finally {
    stopThreads(module);
  }
});
