// LinearLayer: y = x Wᵀ + b (nn.Linear layout), weights packed once in wasm memory at creation.
import { check, fail, translateInternalErrors } from './errors.mjs';
import { CallHeap, copyF32, createHandle } from './heap.mjs';
import { disposable, forget, watch } from './lifetime.mjs';
import { describe } from './options.mjs';

export class LinearLayer {
  #module;
  #handle;

  constructor(module, handle, inFeatures, outFeatures) {
    this.#module = module;
    this.#handle = handle;
    this.inFeatures = inFeatures;
    this.outFeatures = outFeatures;
    watch(this, 'a linear layer');
  }

  /** x: Float32Array [rows * inFeatures] -> Float32Array [rows * outFeatures]. */
  forward(x) {
    if (!this.#handle) fail('this LinearLayer has been disposed', 'disposed');
    if (!(x instanceof Float32Array)) fail('linear.forward: x must be a Float32Array');
    if (x.length === 0 || x.length % this.inFeatures !== 0) fail(`linear.forward: ${x.length} values is not a whole number of rows of ${this.inFeatures}`);
    for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) fail(`linear.forward: x[${i}] is ${x[i]}, not a finite number`);
    const rows = x.length / this.inFeatures;
    const heap = new CallHeap(this.#module);
    try {
      const y = heap.alloc(rows * this.outFeatures * 4);  // [rows, outFeatures]
      check(this.#handle.forward(heap.f32(x), rows, y));
      return copyF32(this.#module, y, rows * this.outFeatures);
    } finally {
      heap.free();
    }
  }

  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
      forget(this);
    }
  }
}
disposable(LinearLayer);
translateInternalErrors(LinearLayer);

/** Creates a LinearLayer from an nn.Linear weight [outFeatures * inFeatures] and optional bias. */
export function createLinear(module, weight, bias, inFeatures, outFeatures) {
  for (const [name, x] of [['inFeatures', inFeatures], ['outFeatures', outFeatures]]) {
    if (!Number.isSafeInteger(x) || x < 1) fail(`linear: ${name} must be a positive integer, got ${describe(x)}`);
  }
  if (!(weight instanceof Float32Array) || weight.length !== inFeatures * outFeatures) {
    fail(`linear: weight must be a Float32Array of ${outFeatures} x ${inFeatures} = ${inFeatures * outFeatures} values`);
  }
  if (bias !== undefined && bias !== null && (!(bias instanceof Float32Array) || bias.length !== outFeatures)) {
    fail(`linear: bias must be a Float32Array of ${outFeatures} values`);
  }
  const heap = new CallHeap(module);
  const handle = createHandle(module, 'linear');
  let created = false;
  try {
    check(handle.create(heap.f32(weight), heap.f32(bias ?? null), inFeatures, outFeatures));  // C++ messages start with 'linear:'
    created = true;
  } finally {
    heap.free();
    if (!created) handle.delete();
  }
  return new LinearLayer(module, handle, inFeatures, outFeatures);
}
