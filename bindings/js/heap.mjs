// Copies between JavaScript arrays and wasm memory. Every allocation of a call is freed in the
// call's finally block; views of the heap are made fresh for each copy (memory growth detaches
// old ones) and results leave as copies, so users never hold a view that can go stale.
import { fail } from './errors.mjs';

// wasm32's malloc takes a 32-bit size: anything larger would wrap to a small block.
const MAX_ALLOCATION = 2 ** 32 - 1;

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
    this.module.HEAPF32.set(values, p >>> 2);
    return p;
  }

  i32(values) {
    if (!values) return 0;
    const p = this.alloc(values.length * 4);
    this.module.HEAP32.set(values, p >>> 2);
    return p;
  }

  u8(values) {
    if (!values) return 0;
    const p = this.alloc(values.length);
    this.module.HEAPU8.set(values, p);
    return p;
  }

  free() {
    for (const p of this.pointers) this.module._free(p);
    this.pointers.length = 0;
  }
}

export function copyF32(module, pointer, count) {
  const start = pointer >>> 2;
  return module.HEAPF32.slice(start, start + count);
}

export function copyI32(module, pointer, count) {
  const start = pointer >>> 2;
  return module.HEAP32.slice(start, start + count);
}
