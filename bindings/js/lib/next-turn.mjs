// nextTurn(): a promise that resolves on a later turn of the event loop, so a long loop of
// synchronous wasm calls (decoding steps) lets timers, I/O, abort events and rendering run in
// between. setImmediate in Node; a MessageChannel in browsers and workers (setTimeout(0) is
// clamped to 4 ms after a few nested calls, longer than a small model's step).
let channel = null;
const waiting = [];

export function nextTurn() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel === 'function') {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => waiting.shift()?.();
    }
    return new Promise((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(0);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}
