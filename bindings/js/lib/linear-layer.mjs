// LinearLayer: y = x Wᵀ + b (nn.Linear layout), weights packed once in wasm memory at creation.
import { check, fail, translateInternalErrors } from './errors.mjs';
import { CallHeap, copyF32, createHandle } from './heap.mjs';
import { disposable, forget, watch } from './lifetime.mjs';
import { floatCopy } from './inputs.mjs';
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
    x = float32Copy(x, 'linear.forward: x must be a Float32Array');
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

/**
 * A Float32Array as this call's own copy (inputs.mjs floatCopy), checked and copied into wasm
 * memory from there, else `message`. A Proxy of a Float32Array passes instanceof (not
 * ArrayBuffer.isView) and gave one length to the checks and another to the copy into wasm
 * memory, which overran its block (a RuntimeError, and 80 KB never freed); a SharedArrayBuffer's
 * values can change meanwhile.
 */
function float32Copy(values, message) {
  if (!(ArrayBuffer.isView(values) && values instanceof Float32Array)) fail(message);
  return floatCopy(values);
}

/** Creates a LinearLayer from an nn.Linear weight [outFeatures * inFeatures] and optional bias. */
export function createLinear(module, weight, bias, inFeatures, outFeatures) {
  for (const [name, x] of [['inFeatures', inFeatures], ['outFeatures', outFeatures]]) {
    if (!Number.isSafeInteger(x) || x < 1) fail(`linear: ${name} must be a positive integer, got ${describe(x)}`);
  }
  const weightMessage = `linear: weight must be a Float32Array of ${outFeatures} x ${inFeatures} = ${inFeatures * outFeatures} values`;
  weight = float32Copy(weight, weightMessage);
  if (weight.length !== inFeatures * outFeatures) fail(weightMessage);
  if (bias !== undefined && bias !== null) {
    bias = float32Copy(bias, `linear: bias must be a Float32Array of ${outFeatures} values`);
    if (bias.length !== outFeatures) fail(`linear: bias must be a Float32Array of ${outFeatures} values`);
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
