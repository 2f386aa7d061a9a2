// Waiting on something the caller gave us (a File's arrayBuffer(), an onToken promise) must never
// outlast an abort: the wait settles with the signal's reason as soon as it aborts, and whatever
// the awaited promise does later is ignored (also its rejection: no unhandled rejection).

/** The error an aborted signal rejects with: its reason, or an AbortError. */
export function abortReason(signal) {
  if (signal.reason !== undefined) return signal.reason;
  const e = new Error('the operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Throws abortReason(signal) when signal has aborted: every abort check of the package. */
export function throwIfAborted(signal) {
  if (signal?.aborted) throw abortReason(signal);
}

/** value (a promise or not), settled early with abortReason(signal) when signal aborts first. */
export function untilAborted(value, signal) {
  const promise = Promise.resolve(value);
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then((v) => { signal.removeEventListener?.('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener?.('abort', onAbort); reject(e); });
  });
}
