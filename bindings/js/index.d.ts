// Types of the simdformer package (hand-written: Emscripten 3.1.6 cannot emit them).

export type ScoreKind = 'scaled-dot' | 'dot' | 'additive';
export type NormalizeKind = 'softmax' | 'relu';
/** true/1 = masked (ignored), as PyTorch's key_padding_mask. */
export type Mask = ArrayLike<boolean | 0 | 1>;
export type Matrix = number[][] | Float32Array[] | { data: ArrayLike<number>; shape: [number, number] };
/** One sequence: token ids, or vectors (flat Float32Array of n * d_model, or n rows). */
export type Sequence = Int32Array | number[] | Float32Array | number[][] | Float32Array[];

/** A URL string or URL object (structural, so the types need no DOM or Node typings). */
export type UrlLike = string | { readonly href: string };

export interface InitOptions {
  /** URL of the .wasm (or a function of its file name) for bundlers and CDNs. */
  wasmUrl?: UrlLike | ((fileName: string) => UrlLike);
  /** The .wasm bytes themselves. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** 'auto' (default) picks SIMD128 when the engine supports it. */
  simd?: 'auto' | boolean;
}

export interface Progress {
  stage: 'read' | 'download' | 'load' | 'generate';
  loaded?: number;
  step?: number;
  total: number;
}

export interface ModelConfig {
  model_type: 'multihead_attention' | 'encoder_layer' | 'encoder' | 'decoder_layer' | 'decoder' | 'transformer';
  d_model: number;
  nhead: number;
  dim_feedforward: number;
  activation: 'relu' | 'gelu' | 'gelu_tanh';
  norm_first: boolean;
  layer_norm_eps: number;
  num_encoder_layers: number;
  num_decoder_layers: number;
  additive_dim: number;
  src_vocab_size: number;
  tgt_vocab_size: number;
  max_len: number;
  positional: 'none' | 'sinusoidal' | 'learned';
  scale_embedding: boolean;
  bos_token: number;
  eos_token: number;
}

/** One attention matrix [n_seq_q, n_seq_k], row-major. */
export interface AttentionHead {
  data: Float32Array;
  shape: [number, number];
  /** Set when this is the mean over heads (returnAttention: 'mean'). */
  mean?: true;
}
/** attentions[layer][head]. */
export type Attentions = AttentionHead[][];

export interface SequenceResult {
  output: Float32Array;
  shape: [number, number];
  attentions?: Attentions;
  crossAttentions?: Attentions;
}
export interface BatchResult {
  sequences: SequenceResult[];
  lengths: number[];
}

export interface EncodeOptions {
  paddingMask?: Mask | Mask[];
  causal?: boolean;
  /** Additive float mask [n, n] (-Infinity = masked); sequences of equal length only. */
  attnMask?: Matrix | Float32Array;
  returnAttention?: boolean | 'mean';
  score?: ScoreKind;
  normalize?: NormalizeKind;
  /** Cut sequences longer than the model's max_len instead of throwing. */
  truncation?: boolean;
  /** Decoder models: the encoder output. */
  memory?: Sequence | Sequence[];
  memoryPaddingMask?: Mask | Mask[];
  /** multihead_attention: key and value sequences (default: self-attention). */
  key?: Sequence | Sequence[];
  value?: Sequence | Sequence[];
  keyPaddingMask?: Mask | Mask[];
}

export interface ForwardOptions {
  srcPaddingMask?: Mask | Mask[];
  tgtPaddingMask?: Mask | Mask[];
  /** Causal target self-attention (default true). */
  causal?: boolean;
  /** Causal mask on the encoder's self-attention too (default false). */
  srcCausal?: boolean;
  returnAttention?: boolean | 'mean';
  score?: ScoreKind;
  normalize?: NormalizeKind;
  truncation?: boolean;
}

export interface ForwardResult extends SequenceResult {
  logits?: Float32Array;
  vocabSize?: number;
  encoderAttentions?: Attentions;
  decoderAttentions?: Attentions;
}

export interface GenerateOptions {
  maxLength?: number;
  bos?: number;
  eos?: number;
  paddingMask?: Mask | Mask[];
  /** Causal mask on the encoder's self-attention (default false). */
  causal?: boolean;
  returnAttention?: boolean | 'mean';
  score?: ScoreKind;
  normalize?: NormalizeKind;
  truncation?: boolean;
  onProgress?: (p: Progress) => void;
}

export interface GenerateResult {
  /** Generated ids, starting with bos and ending with eos when it was produced. */
  tokens: Int32Array;
  encoderAttentions?: Attentions;
  decoderAttentions?: Attentions;
  crossAttentions?: Attentions;
}

export declare class Model {
  readonly config: Readonly<ModelConfig>;
  readonly kind: ModelConfig['model_type'];
  readonly parameterCount: number;
  readonly disposed: boolean;
  readonly workspaceBytes: number;
  /** One sequence (token ids, or a flat Float32Array of n * d_model). */
  encode(input: Int32Array | Float32Array | number[], options?: EncodeOptions): SequenceResult;
  /** A batch of sequences of any lengths (padded and masked internally). */
  encode(input: Int32Array[] | Float32Array[] | number[][][], options?: EncodeOptions): BatchResult;
  /** number[][] is n vector rows for vector models but a batch of token sequences for token models. */
  encode(input: number[][], options?: EncodeOptions): SequenceResult | BatchResult;
  forward(src: Sequence, tgt: Sequence, options?: ForwardOptions): ForwardResult;
  forward(src: Sequence[], tgt: Sequence[], options?: ForwardOptions): { sequences: ForwardResult[]; lengths: number[] };
  generate(src: Int32Array | number[], options?: GenerateOptions): GenerateResult;
  generate(src: (Int32Array | number[])[], options?: GenerateOptions): GenerateResult[];
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface AttentionOptions {
  score?: ScoreKind;
  normalize?: NormalizeKind;
  /** Key mask (length n_seq_k) or boolean matrix [n_seq_q, n_seq_k]; true = masked. */
  mask?: Mask | boolean[][];
  attnMask?: Matrix;
  causal?: boolean;
  returnWeights?: boolean;
  additive?: { wQ: Matrix; wK: Matrix; wV: ArrayLike<number> };
}

export interface Tensor2D {
  data: Float32Array;
  shape: [number, number];
}

export interface SafetensorsDescription {
  tensors: { name: string; dtype: string; shape: number[] }[];
  metadata: Record<string, string>;
  parameters: number;
}

export declare class LinearLayer {
  readonly inFeatures: number;
  readonly outFeatures: number;
  forward(x: Float32Array): Float32Array;
  dispose(): void;
  [Symbol.dispose](): void;
}

export declare class Simdformer {
  readonly simd: boolean;
  readonly arch: string;
  readonly lanes: number;
  readonly liveBytes: number;
  readonly heapBytes: number;
  loadModel(source: Uint8Array | ArrayBuffer | UrlLike, config?: object | string,
            options?: { onProgress?: (p: Progress) => void }): Promise<Model>;
  inspect(source: Uint8Array | ArrayBuffer | UrlLike): Promise<SafetensorsDescription>;
  attention(Q: Matrix, K: Matrix, V: Matrix, options?: AttentionOptions): { output: Tensor2D; weights?: Tensor2D };
  positionalEncoding(n: number, d: number): Tensor2D;
  /** LayerNorm over the last dimension (gamma defaults to ones, beta to zeros, eps to 1e-5). */
  layerNorm(x: Matrix, options?: { gamma?: ArrayLike<number>; beta?: ArrayLike<number>; eps?: number }): Tensor2D;
  /** y = x Wᵀ + b with an nn.Linear weight [outFeatures * inFeatures]. */
  linear(weight: Float32Array, bias: Float32Array | null | undefined, inFeatures: number, outFeatures: number): LinearLayer;
}

export declare class SimdformerError extends Error {
  readonly code: 'invalid_argument' | 'shape_mismatch' | 'unsupported' | 'io_error' | 'out_of_memory' | 'disposed';
}

export declare function init(options?: InitOptions): Promise<Simdformer>;
export declare function wasmSimdSupported(): boolean;
export default init;
