// The one rule for callbacks (README "Calls from callbacks"): while a call into a model runs --
// including while it runs one of your callbacks (generate's onProgress, ...) and, for an async
// call (TextModel.generateText), until its promise settles -- every other call
// into that same model, dispose() included, throws SimdformerError code 'busy'. The running call
// reuses the model's workspace; a nested call would overwrite it, and a nested dispose() would
// free it under the running call. Calls into other models and the module's own operations are
// allowed from callbacks.
import { fail } from './errors.mjs';

export class CallGuard {
  #running = null;  // the running call's name

  /** Throws 'busy' when a call is running. */
  check(what) {
    if (this.#running !== null) {
      fail(`${what}: the model is busy running ${this.#running}; call it after ${this.#running} returns (or its promise settles), `
        + 'not from its callbacks', 'busy');
    }
  }

  /** Runs fn() as call `what`: rejected while another call runs; marks the model busy meanwhile. */
  run(what, fn) {
    this.check(what);
    this.#running = what;
    try {
      return fn();
    } finally {
      this.#running = null;
    }
  }

  /** run() for an async call: the model stays busy until fn()'s promise settles. */
  async runAsync(what, fn) {
    this.check(what);
    this.#running = what;
    try {
      return await fn();
    } finally {
      this.#running = null;
    }
  }
}
