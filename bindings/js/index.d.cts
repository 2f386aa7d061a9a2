// Types for require('simdformer'): the CommonJS entry exposes init() (asynchronous).
import type { InitOptions, Simdformer } from './index.js' with { 'resolution-mode': 'import' };

declare const simdformer: {
  init(options?: InitOptions): Promise<Simdformer>;
  default: (options?: InitOptions) => Promise<Simdformer>;
  loadEsm(): Promise<typeof import('./index.js', { with: { 'resolution-mode': 'import' } })>;
};
export = simdformer;
