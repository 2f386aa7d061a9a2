// Lifetime of objects that own wasm memory (models, layers): a warning when one is
// garbage-collected without dispose(), and `using` support where the engine has Symbol.dispose.

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
