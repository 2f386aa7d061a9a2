// The page's half of the worker protocol (web/worker.mjs): call(type, payload, onProgress)
// resolves with the reply, or rejects with an Error carrying the engine's error code.
// index.html started the worker (and so the engine's download and compile) before this module loaded.
const worker = window.simdformerWorker;
const pending = new Map();
let nextId = 1;
worker.onmessage = ({ data }) => {
  const p = pending.get(data.id);
  if (!p) return;
  if (data.progress) { p.onProgress?.(data.progress); return; }
  pending.delete(data.id);
  if (data.ok) p.resolve(data); else p.reject(Object.assign(new Error(data.error), { code: data.code }));
};

export const call = (type, payload = {}, onProgress) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject, onProgress });
  worker.postMessage({ id, type, ...payload }, payload.source?.bytes ? [payload.source.bytes.buffer] : []);
});
