// Lifetime of objects that own wasm memory (models, layers): a warning when one is
// garbage-collected without dispose(), `using` support where the engine has Symbol.dispose, and
// the dispose() and disposed-check the models share.

import { fail } from './errors.mjs';

const leakRegistry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((what) => console.warn(`simdformer: ${what} was garbage-collected without dispose(); its wasm memory leaked`))
  : null;

/** Watches `owner` (described as `what`) until forget(owner) is called from its dispose(). */
export function watch(owner, what) {
  leakRegistry?.register(owner, what, owner);
}

export function forget(owner) {
  leakRegistry?.unregister(owner);
}

/** Makes `using x = ...` call x.dispose() (Node 22+, TypeScript 5.2+). */
export function disposable(Class) {
  if (typeof Symbol.dispose === 'symbol') Class.prototype[Symbol.dispose] = Class.prototype.dispose;
}

/**
 * dispose() of a model holding `handle` and calling through `guard` (a CallGuard): refused
 * ('busy') while one of its calls runs, then frees the handle once. Returns the owner's handle
 * from now on (null): `this.#handle = disposeHandle(this, this.#guard, this.#handle)`.
 */
export function disposeHandle(owner, guard, handle) {
  guard.check('dispose');
  if (handle) {
    handle.delete();
    forget(owner);
  }
  return null;
}

/** The handle of a live owner, else SimdformerError 'disposed': "<what> has been disposed". */
export function liveHandle(handle, what) {
  if (!handle) fail(`${what} has been disposed`, 'disposed');
  return handle;
}
