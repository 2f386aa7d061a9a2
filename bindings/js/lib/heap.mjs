// Copies between JavaScript arrays and wasm memory. Every allocation of a call is freed in the
// call's finally block; views of the heap are made fresh for each copy, after the allocation that
// may grow memory (heapView), and results leave as copies, so no view can go stale.
import { fail } from './errors.mjs';

/**
 * The wasm memory's bytes as they are now. In the pthreads build any thread may grow memory
 * (a worker's malloc), and the glue refreshes Module.HEAPU8 only when its own code next runs: a
 * view taken from it can be shorter than memory, so this build's buffer comes from the Memory
 * itself (its glue exports Module.wasmMemory). The one-thread build grows only inside calls made
 * from this thread, and its glue replaces HEAPU8 as it grows.
 */
export function heapBuffer(module) {
  return module.wasmMemory ? module.wasmMemory.buffer : module.HEAPU8.buffer;
}

/** A view of `count` elements of Type at byte address `pointer`; never short, never stale. */
export function heapView(module, Type, pointer, count) {
  const buffer = heapBuffer(module);
  const bytes = count * Type.BYTES_PER_ELEMENT;
  if (!Number.isSafeInteger(pointer) || pointer < 0 || pointer % Type.BYTES_PER_ELEMENT !== 0 || pointer + bytes > buffer.byteLength) {
    fail(`internal error: ${bytes} bytes at ${pointer} are outside the wasm memory of ${buffer.byteLength} bytes`, 'internal');
  }
  return new Type(buffer, pointer, count);
}

// wasm32's malloc takes a 32-bit size: anything larger would wrap to a small block.
const MAX_ALLOCATION = 2 ** 32 - 1;
const utf8 = new TextEncoder();

export class CallHeap {
  constructor(module) {
    this.module = module;
    this.pointers = [];
  }

  alloc(bytes) {
    if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > MAX_ALLOCATION) {
      fail(`out of wasm memory: cannot allocate ${bytes} bytes (wasm32 allows at most 4 GiB)`, 'out_of_memory');
    }
    const p = this.module._malloc(Math.max(bytes, 8));
    if (!p) fail(`out of wasm memory: cannot allocate ${bytes} bytes`, 'out_of_memory');
    this.pointers.push(p);
    return p;
  }

  f32(values) {
    if (!values) return 0;
    const p = this.alloc(values.length * 4);
    heapView(this.module, Float32Array, p, values.length).set(values);
    return p;
  }

  i32(values) {
    if (!values) return 0;
    const p = this.alloc(values.length * 4);
    heapView(this.module, Int32Array, p, values.length).set(values);
    return p;
  }

  u8(values) {
    if (!values) return 0;
    const p = this.alloc(values.length);
    heapView(this.module, Uint8Array, p, values.length).set(values);
    return p;
  }

  /** A string as UTF-8 bytes in wasm memory: {ptr, length} (the C++ side's TextArg). */
  text(string) {
    if (typeof string !== 'string') fail(`expected a string, got ${typeof string}`);
    if (string.length === 0) return { ptr: 0, length: 0 };
    const bytes = utf8.encode(string);
    return { ptr: this.u8(bytes), length: bytes.length };
  }

  free() {
    for (const p of this.pointers) this.module._free(p);
    this.pointers.length = 0;
  }
}

/**
 * A new ModelHandle or LinearHandle ('model' | 'linear'). The C++ side makes it with
 * new (std::nothrow): null means out of memory.
 */
export function createHandle(module, kind) {
  const handle = kind === 'model' ? module.createModelHandle() : module.createLinearHandle();
  if (!handle) fail(`out of wasm memory: cannot create a ${kind} handle`, 'out_of_memory');
  return handle;
}

// Copies out of wasm memory (into ordinary, unshared ArrayBuffers).
export const copyF32 = (module, pointer, count) => heapView(module, Float32Array, pointer, count).slice();
export const copyI32 = (module, pointer, count) => heapView(module, Int32Array, pointer, count).slice();
export const copyU8 = (module, pointer, count) => heapView(module, Uint8Array, pointer, count).slice();
