// Types for require('simdformer'): the CommonJS entry exposes init() (asynchronous). Options such
// as loadPretrained's cache ('browser' | 'none') and followSymlinks (boolean) are typed in
// index.d.ts (LoadPretrainedOptions); keptModels and forgetModel come with loadEsm() (they need
// a browser's Cache API).
import type { InitOptions, Simdformer } from './index.js' with { 'resolution-mode': 'import' };

declare const simdformer: {
  init(options?: InitOptions): Promise<Simdformer>;
  default: (options?: InitOptions) => Promise<Simdformer>;
  loadEsm(): Promise<typeof import('./index.js', { with: { 'resolution-mode': 'import' } })>;
};
export = simdformer;
