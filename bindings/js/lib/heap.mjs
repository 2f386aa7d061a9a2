// Copies between JavaScript arrays and wasm memory. Every allocation of a call is freed in the
// call's finally block; views of the heap are made fresh for each copy, after the allocation that
// may grow memory (heapView), and results leave as copies, so no view can go stale.
//
// The same functions serve the native addon (bindings/node), whose `module` has `native: true`:
// there addresses are real pointers, never wrapped in a view; the addon copies in (write) and out
// (read), checking each range against the blocks allocated for the call (bindings/node/memory.h).
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

/** Bytes the backend's memory has grown to: the wasm memory, or natively the addon's high-water mark. */
export function heapBytes(module) {
  return module.native ? module.heapBytes() : heapBuffer(module).byteLength;
}

/** A view of `count` elements of Type at byte address `pointer`; never short, never stale (wasm only). */
export function heapView(module, Type, pointer, count) {
  const buffer = heapBuffer(module);
  const bytes = count * Type.BYTES_PER_ELEMENT;
  if (!Number.isSafeInteger(pointer) || pointer < 0 || pointer % Type.BYTES_PER_ELEMENT !== 0 || pointer + bytes > buffer.byteLength) {
    fail(`internal error: ${bytes} bytes at ${pointer} are outside the wasm memory of ${buffer.byteLength} bytes`, 'internal');
  }
  return new Type(buffer, pointer, count);
}

/** Copies `values` (a typed array or an array of numbers) into `count` elements of Type at `pointer`. */
function writeHeap(module, Type, pointer, values) {
  if (module.native) module.write(pointer, values instanceof Type ? values : Type.from(values));
  else heapView(module, Type, pointer, values.length).set(values);
}

/**
 * Fills `length` bytes at `pointer` with fill(dst), dst a Uint8Array of that length: a view of
 * the wasm memory, or natively a JS buffer copied in afterwards.
 */
export function fillHeap(module, pointer, length, fill) {
  if (!module.native) return fill(heapView(module, Uint8Array, pointer, length));
  const dst = new Uint8Array(length);
  const r = fill(dst);
  module.write(pointer, dst);
  return r;
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

  f32(values) { return values ? this.#copyIn(Float32Array, values) : 0; }
  i32(values) { return values ? this.#copyIn(Int32Array, values) : 0; }
  u8(values) { return values ? this.#copyIn(Uint8Array, values) : 0; }

  // The block is sized from the array that is copied, read once. Anything but a genuine typed
  // array of Type (a Proxy of one passes instanceof, and its length can differ from one read to
  // the next) is first copied into one: sized from one read of its length and written from
  // another, it overran its malloc block (a trap, or other blocks overwritten).
  #copyIn(Type, values) {
    const genuine = ArrayBuffer.isView(values) && values instanceof Type ? values : Type.from(values);
    const p = this.alloc(genuine.length * Type.BYTES_PER_ELEMENT);
    writeHeap(this.module, Type, p, genuine);
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

// Copies out of wasm (or native) memory, into ordinary, unshared ArrayBuffers.
function copyOut(module, Type, pointer, count) {
  if (!module.native) return heapView(module, Type, pointer, count).slice();
  if (!Number.isSafeInteger(count) || count < 0) fail(`internal error: cannot copy ${count} elements`, 'internal');
  return new Type(module.read(pointer, count * Type.BYTES_PER_ELEMENT));
}
export const copyF32 = (module, pointer, count) => copyOut(module, Float32Array, pointer, count);
export const copyI32 = (module, pointer, count) => copyOut(module, Int32Array, pointer, count);
export const copyU8 = (module, pointer, count) => copyOut(module, Uint8Array, pointer, count);
