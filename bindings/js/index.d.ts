// Types of the simdformer package (hand-written: Emscripten 3.1.6 cannot emit them).
// They need no DOM or Node typings: URLs, files and abort signals are typed structurally.

declare global {
  // Symbol.dispose (TypeScript's lib.esnext.disposable declares it too; the declarations merge).
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

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
  /**
   * Loads @huggingface/tokenizers where its bare name cannot be resolved (module workers, which
   * import maps do not reach): e.g. () => import('/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs').
   */
  tokenizers?: () => Promise<unknown>;
  /** The same for @huggingface/jinja (chat templates): e.g. () => import('/node_modules/@huggingface/jinja/dist/index.js'). */
  jinja?: () => Promise<unknown>;
  /**
   * Threads to compute with (default 1). n > 1 or 'auto' (physical cores in Node, logical CPUs in
   * browsers, at most 4) loads the pthreads build; browsers use it only on cross-origin isolated
   * pages and otherwise fall back to one thread (see Simdformer.threadsNote). Results are
   * bit-identical for every thread count.
   */
  threads?: number | 'auto';
  /**
   * Node.js: 'auto' (default, or the SIMDFORMER_BACKEND environment variable) runs the prebuilt
   * native addon where one matches the platform (linux-x64-gnu) and the wasm build elsewhere;
   * 'native' requires the addon (SimdformerError 'unsupported' without it); 'wasm' never loads it.
   * Browsers always run wasm ('native' is 'unsupported' there). simd: false, wasmUrl and
   * wasmBinary choose a wasm build.
   */
  backend?: 'auto' | 'native' | 'wasm';
  /**
   * int8 weights' matrix products: 'auto' (default) runs relaxed SIMD's int8 dot product where the
   * engine runs the wasm build's relaxed-SIMD kernel exactly on 8-bit activations (one VNNI
   * instruction per 16 multiply-adds in Chromium on x86 with AVX-VNNI, one sdot on Arm): results
   * bit-identical to false, faster. Elsewhere the 8-bit loop (x86 without AVX-VNNI, e.g. AMD Zen 4,
   * where the instruction is emulated, exact only on 7-bit activations and no faster). true insists
   * on the instruction, with 7-bit activations where it is exact only on those ('unsupported' where
   * it does not run: Node.js 20, the scalar build, the native addon); false never; 'portable' what
   * true computes without the instruction (bit-identical to it; 7-bit activations where true does
   * not run). See Simdformer.relaxedSimd and Simdformer.int8ActivationBits.
   * f32 weights' matrix products: 'auto' and 'portable' run relaxed SIMD's multiply-add (one fused
   * multiply-add where the engine has FMA) where the engine runs the module's f32 loops
   * consistently, true insists on it, false never (SIMD128's multiply and add). Results differ by
   * float rounding only, and under each setting rows are bit-identical across thread counts,
   * batches and decoding steps. See Simdformer.relaxedF32.
   */
  relaxedSimd?: 'auto' | boolean | 'portable';
}

export interface Progress {
  /**
   * loadPretrained: 'start', 'cache' (cache 'browser', a kept folder: what its revalidation
   * found), 'download' (URL sources, per file), 'load' (bytes of tensors), 'done'.
   */
  stage: 'read' | 'download' | 'load' | 'generate' | 'start' | 'done' | 'cache';
  loaded?: number;
  step?: number;
  /** 'download' events: 0 when unknown (a Content-Encoding: the Content-Length counts encoded bytes). */
  total: number;
  /** The file being downloaded ('download' events), or revalidated ('cache' events). */
  file?: string;
  /**
   * 'cache' events: 'unchanged' (the server confirmed the kept copy: it is used), 'changed' (the
   * folder is fetched again and replaces the kept one whole once it loaded), 'offline' (the
   * network or the server failed to answer: the kept copy is used; `reason` says what failed).
   */
  state?: 'unchanged' | 'changed' | 'offline';
  /** 'cache' events: why the kept copy was not confirmed ('offline') or is replaced ('changed'). */
  reason?: string;
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

/** Options that ask for attention maps (returnAttention: true or 'mean'): overloads taking them
 * type the maps as present. */
export type AsksAttention = { returnAttention: true | 'mean' };
export type WithAttentions<R> = R & { attentions: Attentions };
export type WithAllAttentions<R> = R & { encoderAttentions: Attentions; decoderAttentions: Attentions; crossAttentions: Attentions };
type OneSequence = Int32Array | Float32Array | number[];
type ManySequences = Int32Array[] | Float32Array[] | number[][][];

export declare class Model {
  readonly config: Readonly<ModelConfig>;
  readonly kind: ModelConfig['model_type'];
  readonly parameterCount: number;
  /** How the linear weights are held ('int8' after loadModel(..., { weights: 'int8' })). */
  readonly weights: WeightsFormat;
  readonly disposed: boolean;
  readonly workspaceBytes: number;
  /** One sequence (token ids, or a flat Float32Array of n * d_model). */
  encode(input: OneSequence, options: EncodeOptions & AsksAttention): WithAttentions<SequenceResult>;
  encode(input: OneSequence, options?: EncodeOptions): SequenceResult;
  /** A batch of sequences of any lengths (padded and masked internally). */
  encode(input: ManySequences, options: EncodeOptions & AsksAttention): { sequences: WithAttentions<SequenceResult>[]; lengths: number[] };
  encode(input: ManySequences, options?: EncodeOptions): BatchResult;
  /** number[][] is n vector rows for vector models but a batch of token sequences for token models. */
  encode(input: number[][], options: EncodeOptions & AsksAttention):
    WithAttentions<SequenceResult> | { sequences: WithAttentions<SequenceResult>[]; lengths: number[] };
  encode(input: number[][], options?: EncodeOptions): SequenceResult | BatchResult;
  forward(src: Sequence, tgt: Sequence, options: ForwardOptions & AsksAttention): WithAllAttentions<ForwardResult>;
  forward(src: Sequence, tgt: Sequence, options?: ForwardOptions): ForwardResult;
  forward(src: Sequence[], tgt: Sequence[], options: ForwardOptions & AsksAttention): { sequences: WithAllAttentions<ForwardResult>[]; lengths: number[] };
  forward(src: Sequence[], tgt: Sequence[], options?: ForwardOptions): { sequences: ForwardResult[]; lengths: number[] };
  generate(src: Int32Array | number[], options: GenerateOptions & AsksAttention): WithAllAttentions<GenerateResult>;
  generate(src: Int32Array | number[], options?: GenerateOptions): GenerateResult;
  generate(src: (Int32Array | number[])[], options: GenerateOptions & AsksAttention): WithAllAttentions<GenerateResult>[];
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
  /** 'native' (the Node-API addon) or 'wasm'. */
  readonly backend: 'native' | 'wasm';
  readonly simd: boolean;
  readonly arch: string;
  readonly lanes: number;
  /** Whether int8 models run relaxed SIMD's int8 dot product (InitOptions.relaxedSimd). */
  readonly relaxedSimd: boolean;
  /**
   * The bits int8 models quantize activations to: 8, or 7 where relaxed SIMD's int8 dot product
   * runs (or 'portable' reproduces it) and is exact only on 7-bit operands (InitOptions.relaxedSimd).
   */
  readonly int8ActivationBits: 7 | 8;
  /** Whether f32 matrix products run relaxed SIMD's multiply-add (InitOptions.relaxedSimd). */
  readonly relaxedF32: boolean;
  /**
   * Threads the module computes with now (1 after dispose()). The wasm threads build's pool
   * starts in the background once its workers have loaded (init() does not wait for them): until
   * then this is 1, and calls run on one thread, with the same results.
   */
  readonly threads: number;
  /**
   * Resolves to `threads` once the pool runs (at once for one thread and the native addon);
   * rejects with a SimdformerError if the workers could not start (threadsNote then says why,
   * and the module keeps working on one thread).
   */
  readonly threadsReady: Promise<number>;
  /** Why fewer threads run than init() asked for, or '' (e.g. a page that is not cross-origin isolated). */
  readonly threadsNote: string;
  /**
   * Stops the worker threads (none is left running; Node can exit); models keep working on one
   * thread. Natively the addon's pool is the process's: dispose() sets it back to one thread.
   */
  dispose(): void;
  /** Bytes of model weights and workspaces held in wasm memory (natively: in the addon). */
  readonly liveBytes: number;
  /** Size of the wasm memory (it only grows, up to 2 GiB); natively the high-water mark of mallocBytes. */
  readonly heapBytes: number;
  /**
   * Bytes malloc has handed out and not taken back: everything allocated in wasm memory now;
   * natively the call buffers plus the tensor buffers (weights, workspaces) the addon holds.
   */
  readonly mallocBytes: number;
  /** The highest liveBytes since init() or resetPeakLiveBytes(): e.g. a load's peak. */
  readonly peakLiveBytes: number;
  resetPeakLiveBytes(): void;
  loadModel(source: Bytes | UrlLike, config?: object | string, options?: LoadModelOptions): Promise<Model>;
  /** loadModel for bytes already in memory, synchronously (the third argument may be onProgress alone). */
  loadModelSync(bytes: Bytes, config?: object | string, options?: LoadModelOptions | ((p: Progress) => void)): Model;
  /**
   * A Hugging Face folder (BERT, RoBERTa, DistilBERT, GPT-2) with its tokenizer: a folder path (Node), a
   * base URL, a FileList / File[] (a dropped folder) or {config, weights, tokenizer}.
   */
  loadPretrained(source: PretrainedSource, options?: LoadPretrainedOptions): Promise<TextModel>;
  inspect(source: Bytes | UrlLike): Promise<SafetensorsDescription>;
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions & { returnWeights: true }): { output: Tensor2D; weights: Tensor2D };
  attention(Q: Matrix, K: Matrix, V: Matrix, options?: AttentionOptions): { output: Tensor2D; weights?: Tensor2D };
  positionalEncoding(n: number, d: number): Tensor2D;
  /** LayerNorm over the last dimension (gamma defaults to ones, beta to zeros, eps to 1e-5). */
  layerNorm(x: Matrix, options?: { gamma?: ArrayLike<number>; beta?: ArrayLike<number>; eps?: number }): Tensor2D;
  /** y = x Wᵀ + b with an nn.Linear weight [outFeatures * inFeatures]. */
  linear(weight: Float32Array, bias: Float32Array | null | undefined, inFeatures: number, outFeatures: number): LinearLayer;
}


/** Bytes in memory: an ArrayBuffer or any view of one (Uint8Array, Buffer, DataView...). */
export type Bytes = ArrayBuffer | ArrayBufferView;

// ---- Hugging Face text models ------------------------------------------------------------

/** A file as a browser's File / FileList entry has it (structural, no DOM typings needed). */
export interface FileLike {
  readonly name: string;
  readonly size: number;
  /** "folder/1_Pooling/config.json" for files of a dropped folder. */
  readonly webkitRelativePath?: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** An AbortSignal (structural). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
}

/** A JSON file's content: the parsed object, its text, or its bytes. */
export type JsonSource = object | string | Bytes;

export interface PretrainedObjects {
  config: JsonSource;
  /** model.safetensors bytes, or {fileName: bytes} of the shards named by `index`. */
  weights: Bytes | Record<string, Bytes>;
  tokenizer: JsonSource;
  tokenizerConfig?: JsonSource;
  /** model.safetensors.index.json for sharded weights. */
  index?: JsonSource;
}

/** A folder path (Node), a base URL, a FileList / File[] (a dropped folder), or the files themselves. */
export type PretrainedSource = string | UrlLike | ArrayLike<FileLike> | PretrainedObjects;

export interface LoadPretrainedOptions {
  /** Progress events; throwing from it cancels the load (nothing stays allocated). */
  onProgress?: (p: Progress) => void;
  /** Aborting cancels the load; the promise rejects with the signal's reason. */
  signal?: AbortSignalLike;
  /** How the linear weights are held: 'f32' (default) or 'int8' (see WeightsFormat). */
  weights?: WeightsFormat;
  /**
   * URL sources only. 'browser': the folder is kept in the Cache API (cache "simdformer-models")
   * as one unit: written whole once the model has loaded (a failed or cut-off load keeps
   * nothing). A kept folder is revalidated with one conditional request for its weights file
   * (If-None-Match / If-Modified-Since from the kept ETag / Last-Modified): unchanged, the kept
   * copy loads (a kept file reports one 'download' event with loaded = total); changed, the
   * folder is fetched again and replaces the kept one whole; the network failing, the kept copy
   * loads. A 'cache' progress event says which. The folder's key is its URL without the fragment,
   * with '/' ending the path and the query kept ('m/?v=2' is its own folder; each file is fetched
   * with that query). Rejects with 'unsupported' where there is no Cache API (Node.js, insecure
   * pages). 'none' (default): always the network. See keptModels().
   */
  cache?: ModelCache;
  /**
   * Folder sources (Node) only. A folder's files may be symlinks inside the folder, or into a
   * Hugging Face hub cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub, by real path:
   * what huggingface-cli download --local-dir made before 2024); a link anywhere else is refused
   * (invalid_argument) unless this is true (default false), which follows any link. Names
   * written in the folder's files (modules.json paths, weight_map shards) must stay inside the
   * folder either way.
   */
  followSymlinks?: boolean;
}

/** Where loadPretrained keeps the files of a URL source: 'browser' (the Cache API) or 'none'. */
export type ModelCache = 'browser' | 'none';

/** A model folder kept whole by loadPretrained(url, { cache: 'browser' }) (or by the demo page). */
export interface KeptModel {
  /** The folder's key: its absolute URL, '/' ending the path, the query kept, no fragment. */
  readonly url: string;
  /** How many of its files are kept. */
  readonly files: number;
  /** Their total size in bytes. */
  readonly bytes: number;
  /** When a file of it was last kept (ISO 8601). */
  readonly date: string;
}

/**
 * 'int8': every linear weight is quantized per output channel (symmetric, max|w| / 127) as it
 * loads, ~0.26x the memory of 'f32', and runs an int8 GEMM on dynamically quantized activation
 * rows; attention scores and softmax stay f32. Checkpoints already quantized (I8 tensors +
 * `_scale`) load as int8 whatever this says.
 */
export type WeightsFormat = 'f32' | 'int8';

export interface LoadModelOptions {
  onProgress?: (p: Progress) => void;
  /** How the linear weights are held: 'f32' (default) or 'int8'. */
  weights?: WeightsFormat;
}

/** The checkpoint, normalized (HF names mapped onto one set), plus the original config.json. */
export interface ModelInfo {
  architecture: 'bert' | 'roberta' | 'xlm-roberta' | 'distilbert' | 'gpt2' | 'llama' | 'qwen2' | 'mistral' | 'ministral' | 'torch';
  model_type: string;
  d_model: number;
  n_layers: number;
  n_heads: number;
  d_ff: number;
  vocab_size: number;
  /** Usable positions (RoBERTa's 514 -> 512). */
  max_positions: number;
  type_vocab_size: number;
  pad_token_id: number | null;
  bos_token_id: number | null;
  eos_token_id: number | null;
  /** Every end-of-sequence id (Llama 3 lists several); generateText stops at any by default. */
  eos_token_ids: number[];
  /**
   * Special-token ids of the config outside the vocabulary (only generation would use them), as
   * written: a number, or for a key holding a list (eos_token_id: [...]) the list of every one of
   * its ids outside the vocabulary.
   */
  unused_token_ids: Record<string, number | number[]>;
  hidden_act: string;
  /** RMSNorm's eps for Llama, Qwen2 and Mistral. */
  layer_norm_eps: number;
  /** 'rms_norm' for Llama, Qwen2 and Mistral. */
  norm: 'layer_norm' | 'rms_norm';
  /** Key/value heads (grouped-query attention): query head h reads key/value head h / (n_heads / n_kv_heads). */
  n_kv_heads: number;
  head_dim: number;
  /** Rotary positions (Llama, Qwen2, Mistral): theta, the rope_scaling type and its parameters; null otherwise. */
  rotary: { theta: number; type: 'default' | 'linear' | 'dynamic' | 'llama3'; dim: number; factor?: number;
    low_freq_factor?: number; high_freq_factor?: number; original_max_position_embeddings?: number } | null;
  /** The sliding window in positions (Mistral, Ministral, Qwen2) of the layers window_layers lists; null: none. */
  sliding_window: number | null;
  /** The first layer with the window (window_layers[0]); the layers before it attend to every earlier position.
   * Not every later layer need slide (a config's layer_types may alternate): window_layers says which do. */
  first_window_layer: number | null;
  /** The layers (0-based) that attend to the last sliding_window positions only, in order; null: none. */
  window_layers: number[] | null;
  has_pooler: boolean;
  has_mlm_head: boolean;
  has_lm_head: boolean;
  /** A ...ForSequenceClassification head (TextModel.classify, zeroShot, rerank). */
  has_classifier: boolean;
  /** A ...ForTokenClassification head (TextModel.tokenClassify); absent for GPT-2. */
  has_token_classifier?: boolean;
  /** A ...ForQuestionAnswering head (TextModel.answer); absent for GPT-2. */
  has_qa_head?: boolean;
  /** The classifier's labels (id2label; 'LABEL_<i>' where it names none), or null without one. */
  num_labels: number | null;
  labels: string[] | null;
  problem_type: 'regression' | 'single_label_classification' | 'multi_label_classification' | null;
  /** Tensors of the checkpoint no layer runs (a head simdformer does not run). */
  unused_tensors: string[];
  causal: boolean;
  parameters: number;
  /** As stored: 'F32', 'F16', 'BF16', ... */
  dtype: string;
  weights: 'f32' | 'int8';
  config: Record<string, unknown>;
}

/** One text, or a [text, textPair] sentence pair (a pair is always an item of an array). */
export type TextInput = string | readonly [string, string];

/** A tokenized text. */
export interface EncodedText {
  tokens: string[];
  ids: Int32Array;
  /** token_type_ids as the model received them (zeros for models without token types). */
  typeIds: Int32Array;
  /**
   * [start, end) of each token in the JS string (UTF-16 code units) of the text it came from:
   * text.slice(start, end) is the token's text. Special tokens added around the text: [0, 0].
   * Byte-level tokenizers keep the space before a word in its span unless their post-processor
   * trims offsets (RoBERTa's trim_offsets; GPT-2's, Llama 3's and Qwen2's do not), as in Hugging Face.
   */
  offsets: [number, number][];
  /** 0 = first text, 1 = second text of a pair, null = an added special token. */
  sequenceIds: (0 | 1 | null)[];
  length: number;
  /** true when the text was cut to maxLength (the content is cut, the special tokens kept). */
  truncated: boolean;
  /** The length it would have had without cutting, special tokens included. */
  originalLength: number;
}

export interface EncodedBatch {
  sequences: EncodedText[];
  nBatch: number;
  nSeq: number;
  /** [nBatch, nSeq], right-padded with the pad id. */
  ids: Int32Array;
  typeIds: Int32Array;
  /** [nBatch, nSeq], 1 = real token (Hugging Face's convention). */
  attentionMask: Uint8Array;
}

export interface TextTokenizer {
  /** Largest id + 1. */
  readonly vocabSize: number;
  /** Longest sequence, special tokens included. */
  readonly maxLength: number;
  readonly maskToken: string | null;
  readonly maskId: number | null;
  readonly padId: number;
  readonly unkId: number | null;
  readonly clsId: number | null;
  /** The model marks word continuations (WordPiece's ##). */
  readonly hasSubwordPrefix: boolean;
  /**
   * maxLength: an integer, special tokens included (a huge one keeps every token); anything else
   * is a SimdformerError. truncation: 'longest_first' (default) or 'only_first' (a pair's first
   * text only, as zero-shot classification cuts).
   */
  encodeOne(input: TextInput, maxLength: number, truncation?: 'longest_first' | 'only_first'): EncodedText;
  encodeBatch(inputs: readonly TextInput[], maxLength: number, truncation?: 'longest_first' | 'only_first'): EncodedBatch;
  /**
   * Question answering's windows: [question, context] with the context cut into windows of
   * maxLength tokens overlapping by stride (truncation only_second with a stride, as the Rust
   * tokenizers library's overflowing tokens); wordIds give each context token's word.
   */
  encodeWindows(question: string, context: string, maxLength: number, stride: number): (EncodedText & { wordIds: (number | null)[] })[];
  /** Encoded sequences (encodeOne, encodeWindows) padded into one batch. */
  padBatch(sequences: readonly EncodedText[]): EncodedBatch;
  /** Token strings to text through the tokenizer's decoder (convert_tokens_to_string). */
  convertTokensToString(tokens: readonly string[]): string;
  /** ids: an array or typed array of integers in [0, the model's embedding rows); [] gives ''. */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  idToToken(id: number): string | null;
}

export interface EncodeTextOptions {
  /** Attention maps per layer and head (true) or their mean per layer ('mean'). */
  returnAttention?: boolean | 'mean';
  /** Cut longer texts to this many tokens (special tokens included); default the model's maximum. */
  maxLength?: number;
}

export interface TextEncoding extends EncodedText {
  /** [length, d_model], row-major. */
  lastHiddenState: Float32Array;
  shape: [number, number];
  /** Dense + tanh on the first token (models with a pooler). */
  pooler?: Float32Array;
  /** attentions[layer][head], [length, length] each, when asked. */
  attentions?: Attentions;
}

export interface EmbedOptions {
  /** L2-normalise (default: true, or what the folder's sentence-transformers modules say). */
  normalize?: boolean;
  /** Default: the folder's 1_Pooling config, else 'mean' (over attention_mask = 1). */
  pooling?: 'mean' | 'cls' | 'max';
  /**
   * Default: the folder's sentence-transformers max_seq_length (sentence_bert_config.json of its
   * Transformer module) when it has one, else the model's maxLength. With do_lower_case there,
   * texts are lowercased first, as SentenceTransformer does.
   */
  maxLength?: number;
  /** Cut texts longer than maxLength (default true, as Hugging Face); false makes it an error. */
  truncation?: boolean;
  /** Texts run per forward pass (default 32). */
  batchSize?: number;
}

export interface FillMaskPrediction {
  id: number;
  /** The token as text (tokenizer.decode([id])). */
  token: string;
  /** Softmax probability over the vocabulary. */
  score: number;
  /** The text with this mask filled in (special tokens removed). */
  sequence: string;
}

export interface FillMaskResult {
  tokens: string[];
  ids: Int32Array;
  offsets: [number, number][];
  truncated: boolean;
  originalLength: number;
  /** One entry per mask token, in order: its token index and the topK predictions. */
  masks: { index: number; predictions: FillMaskPrediction[] }[];
}

export interface ClassifyOptions {
  /** How many labels per text, highest score first (default 1; 0: none); null: every label. */
  topK?: number | null;
  /**
   * Default as the text-classification pipeline: 'none' for problem_type 'regression', 'sigmoid'
   * for multi-label models and one label, otherwise 'softmax'.
   */
  functionToApply?: 'softmax' | 'sigmoid' | 'none';
  maxLength?: number;
  /** Texts run per forward pass (default 32). */
  batchSize?: number;
  /** Also return the tokens and what the deciding position (token 0) attends to. */
  returnAttention?: boolean;
}

/**
 * What a classifier's deciding position (token 0: [CLS] / <s>, which every classification head
 * reads) attends to, over the text's tokens.
 */
export interface DecidingAttention {
  position: number;
  /** heads[layer][head]: that head's attention weights of the position [length]. */
  heads: Float32Array[][];
  /**
   * Attention rollout (Abnar & Zuidema 2020): each layer as half its mean over heads plus half
   * the identity (the residual), multiplied through the layers; the position's row [length].
   */
  rollout: Float32Array;
}

export interface Classification {
  /** topK labels with their scores, highest first (equal scores keep the labels' order). */
  predictions: { label: string; score: number }[];
  /** The head's raw output [num_labels]. */
  logits: Float32Array;
  truncated: boolean;
  originalLength: number;
  /** With returnAttention: the tokens and the deciding position's attention. */
  tokens?: string[];
  attention?: DecidingAttention;
}

export type TokenAggregation = 'none' | 'simple' | 'first' | 'average' | 'max';

export interface TokenClassifyOptions {
  /**
   * As the token-classification pipeline's aggregation_strategy (default 'none': every token);
   * 'simple' groups B-/I- runs, 'first' / 'average' / 'max' first give each word one label.
   */
  aggregation?: TokenAggregation;
  /** Labels left out of the result (default ['O']). */
  ignoreLabels?: readonly string[];
  /** Tokens per window, special tokens included (default: the tokenizer's model_max_length). */
  maxLength?: number;
  /**
   * As the pipeline's stride: a text longer than maxLength is read in windows that overlap by
   * this many tokens, and entities found twice in the overlaps are merged (the longer one, or
   * the higher score). Without it a long text is cut at maxLength. Not with aggregation 'none'.
   */
  stride?: number;
  /** Windows run per forward pass (default 32). */
  batchSize?: number;
}

/** One token (aggregation 'none'): its best label. start/end index the text (UTF-16 units). */
export interface TokenEntity {
  entity: string;
  score: number;
  /** The token's position in the encoded sequence (special tokens counted). */
  index: number;
  /** The token as the vocabulary writes it ('##ing', 'Ġword'), or its text for an unknown token. */
  word: string;
  start: number;
  end: number;
}

/** A group of tokens or words with one tag (aggregation other than 'none'). */
export interface EntityGroup {
  /** The label without its B-/I- prefix. */
  entityGroup: string;
  /** The mean of the members' scores. */
  score: number;
  /** The members' tokens joined by the tokenizer's decoder. */
  word: string;
  start: number;
  end: number;
}

export interface AnswerOptions {
  /** How many answers (default 1: one object; more: an array, best first). */
  topK?: number;
  /** Longest answer in tokens (default 15). */
  maxAnswerLength?: number;
  /** Tokens per window, special tokens included (default min(maxLength, 384)). */
  maxSeqLen?: number;
  /** Tokens consecutive windows share (default min(maxSeqLen / 2, 128)). */
  docStride?: number;
  /** Also offer the empty answer, scored by the CLS token (default false). */
  handleImpossibleAnswer?: boolean;
  /** Windows run per forward pass (default 32). */
  batchSize?: number;
}

/** An answer: context.slice(start, end) (UTF-16 units), widened to whole words. */
export interface Answer {
  answer: string;
  score: number;
  start: number;
  end: number;
}

export interface ZeroShotOptions {
  /** The hypothesis for each label; {} is replaced by the label (default 'This example is {}.'). */
  hypothesisTemplate?: string;
  /** Score each label on its own (entailment vs contradiction) instead of against each other. */
  multiLabel?: boolean;
  maxLength?: number;
  batchSize?: number;
}

export interface ZeroShotResult {
  sequence: string;
  /** The candidate labels, highest score first. */
  labels: string[];
  scores: number[];
}

export interface RerankOptions {
  /** How many documents (default all; 0: none); null: all. */
  topK?: number | null;
  maxLength?: number;
  batchSize?: number;
}

/**
 * One attention head for one text, as the engine computed it (TextModel.attentionSteps). Row i of
 * q/k/v/context is token i ([length, dHead] row-major); weights, scores and mask are [length, length].
 */
export interface AttentionSteps {
  tokens: string[];
  ids: Int32Array;
  offsets: [number, number][];
  truncated: boolean;
  originalLength: number;
  layer: number;
  head: number;
  /** True for causal models (GPT-2): key j is hidden from query i when j > i. */
  causal: boolean;
  dHead: number;
  /** The factor of q·k in the scores (1/√dHead for BERT, GPT-2 and Llama). */
  scale: number;
  /** The key/value head this query head reads (itself without grouped-query attention). */
  kvHead: number;
  /** Projections with their bias, before any scaling (rotary models: rotated by position). */
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  /** Rotary models (Llama, Qwen2, Mistral): q and k as projected, before the rotation. */
  qBeforeRotation?: Float32Array;
  kBeforeRotation?: Float32Array;
  /** The head's output b_i = Σ_j α_ij v_j, before the output projection. */
  context: Float32Array;
  /** α: the engine's attention weights. */
  weights: Float32Array;
  /** q_i·k_j·scale from the engine's q and k; -Infinity where masked. */
  scores: Float32Array;
  /** 1 where key j is visible to query i. */
  mask: Uint8Array;
}

/** A prompt: a text, or token ids. */
export type Prompt = string | Int32Array | number[];

/** One message of a conversation, as chat templates take them. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  content: string | readonly unknown[] | null;
  [key: string]: unknown;
}

export interface ChatTemplateOptions {
  /** Ends the prompt with the assistant's turn opening (default false; generateText: true). */
  addGenerationPrompt?: boolean;
  /**
   * The template's tools, JSON schemas (and "tool_use" is chosen when the folder names one);
   * null or left out: none (the template sees none, as transformers' tools=None).
   */
  tools?: readonly Record<string, unknown>[] | null;
  /** The template's documents; null or left out: none. */
  documents?: readonly unknown[] | null;
  /** A name of the folder's templates, or the source of a template to use instead. */
  template?: string;
  /** More variables for the template. */
  variables?: Record<string, unknown>;
}

/** One token as generateText chooses it (onToken). */
export interface TokenEvent {
  /** Which prompt of a batch (0 for a single prompt). */
  index: number;
  /** 0 for the first new token. */
  step: number;
  id: number;
  /** The token as the vocabulary spells it (GPT-2: byte-level symbols, e.g. 'Ġthe'). */
  token: string;
  /** The text this token completes (may be '' while a multi-byte character is incomplete). */
  text: string;
  /** With returnAttention: [layer][head] over the context (prompt and earlier tokens). */
  attention?: Float32Array[][];
}

export interface GenerateTextOptions {
  /** Tokens to add at most (default 20, or what fits in the model's positions). */
  maxNewTokens?: number;
  /** Absent or 0: greedy. > 0: sample from softmax(logits / temperature) (1 when only topK / topP is set). */
  temperature?: number;
  /** Sample among the tokens scoring at least the k-th best (0: no top-k filter; above the vocabulary: every token). */
  topK?: number;
  /** In [0, 1]: sample among the most likely tokens whose probabilities reach topP (Hugging Face's rule; 0 keeps the best). */
  topP?: number;
  /** Seed of the sampler (SplitMix64): the same seed repeats a run. Default: random, reported in the result. */
  seed?: number;
  /** Token ids and/or texts that end a continuation (up to 1024 different ids, and at most 65,536 items). Default: the eos tokens, model.eosTokenIds (give them too when you set stop). */
  stop?: number | string | readonly (number | string)[];
  /** Every token as it is chosen. Returning false stops all prompts; throwing rejects with that error; a promise is awaited. */
  onToken?: (event: TokenEvent) => void | boolean | Promise<void | boolean>;
  /** Each token's attention over its context per layer and head (true) or their mean per layer ('mean'). */
  returnAttention?: boolean | 'mean';
  /** Aborting stops at the next step; the promise rejects with the signal's reason. */
  signal?: AbortSignalLike;
  /** For a conversation: how the chat template renders it (addGenerationPrompt defaults to true). */
  chatTemplate?: ChatTemplateOptions;
}

export interface GenerationStep {
  id: number;
  token: string;
  /** [layer][head] (or [layer][0] for 'mean'): the attention of the query that chose this token over its context. */
  attention: Float32Array[][];
}

export interface GeneratedText {
  /** The continuation (special tokens left out). */
  text: string;
  ids: Int32Array;
  tokens: string[];
  promptIds: Int32Array;
  /** 'stop': a stop token or text; 'length': maxNewTokens; 'cancelled': onToken returned false. */
  finishReason: 'stop' | 'length' | 'cancelled';
  /** The sampler's seed, when sampling. */
  seed?: number;
  steps?: GenerationStep[];
}
export type WithSteps<R> = R & { steps: GenerationStep[] };

export declare class TextModel {
  readonly info: Readonly<ModelInfo>;
  readonly architecture: ModelInfo['architecture'];
  readonly parameterCount: number;
  readonly maxLength: number;
  readonly tokenizer: TextTokenizer;
  readonly disposed: boolean;
  encodeText(input: string, options: EncodeTextOptions & AsksAttention): WithAttentions<TextEncoding>;
  encodeText(input: string, options?: EncodeTextOptions): TextEncoding;
  encodeText(input: readonly TextInput[], options: EncodeTextOptions & AsksAttention): WithAttentions<TextEncoding>[];
  encodeText(input: readonly TextInput[], options?: EncodeTextOptions): TextEncoding[];
  embed(input: string, options?: EmbedOptions): Float32Array;
  embed(input: readonly TextInput[], options?: EmbedOptions): Float32Array[];
  fillMask(input: string, options?: { topK?: number; maxLength?: number }): FillMaskResult;
  fillMask(input: readonly string[], options?: { topK?: number; maxLength?: number }): FillMaskResult[];
  /** Text classification (a ...ForSequenceClassification checkpoint), as the text-classification pipeline. */
  classify(input: string, options?: ClassifyOptions): Classification;
  classify(input: readonly TextInput[], options?: ClassifyOptions): Classification[];
  /** Token classification / NER (a ...ForTokenClassification checkpoint), as the token-classification pipeline. */
  tokenClassify(input: string, options?: TokenClassifyOptions & { aggregation?: 'none' }): TokenEntity[];
  tokenClassify(input: string, options: TokenClassifyOptions & { aggregation: 'simple' | 'first' | 'average' | 'max' }): EntityGroup[];
  tokenClassify(input: readonly string[], options?: TokenClassifyOptions & { aggregation?: 'none' }): TokenEntity[][];
  tokenClassify(input: readonly string[], options: TokenClassifyOptions & { aggregation: 'simple' | 'first' | 'average' | 'max' }): EntityGroup[][];
  /** Extractive question answering (a ...ForQuestionAnswering checkpoint), as the question-answering pipeline. */
  answer(question: string, context: string, options?: AnswerOptions & { topK?: 1 }): Answer;
  answer(question: string, context: string, options: AnswerOptions): Answer | Answer[];
  /** Zero-shot classification with an NLI model (its entailment label found by name). */
  zeroShot(input: string, labels: readonly string[] | string, options?: ZeroShotOptions): ZeroShotResult;
  zeroShot(input: readonly string[], labels: readonly string[] | string, options?: ZeroShotOptions): ZeroShotResult[];
  /** Reranking with a one-label cross-encoder (sentence-transformers CrossEncoder.rank): sigmoid scores. */
  rerank(query: string, documents: readonly string[], options?: RerankOptions): { index: number; score: number }[];
  /** The step-by-step view of one head (layer and head default to 0). */
  attentionSteps(input: string, options?: { layer?: number; head?: number; maxLength?: number }): AttentionSteps;
  /** Whether the folder has a chat template (tokenizer_config.json "chat_template" or chat_template.jinja). */
  readonly hasChatTemplate: boolean;
  /**
   * The ids generateText stops at by default, any of them: generation_config.json's eos_token_id
   * (one or a list, as Llama 3 gives it), else config.json's. Give them with your own `stop` to keep them.
   */
  readonly eosTokenIds: number[];
  /** A conversation rendered by the chat template, as transformers' apply_chat_template (tokenize: its ids). */
  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions & { tokenize: true }): Promise<Int32Array>;
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions & { tokenize?: false }): Promise<string>;
  /**
   * Continues a prompt (or a conversation, through the chat template) with a causal language
   * model (GPT-2, Llama, Qwen2, Mistral). While it runs, every other call on the model (dispose
   * included) is refused.
   */
  generateText(prompt: Prompt | readonly ChatMessage[], options: GenerateTextOptions & AsksAttention): Promise<WithSteps<GeneratedText>>;
  generateText(prompt: Prompt | readonly ChatMessage[], options?: GenerateTextOptions): Promise<GeneratedText>;
  generateText(conversations: readonly (readonly ChatMessage[])[], options?: GenerateTextOptions): Promise<GeneratedText[]>;
  generateText(prompts: readonly string[] | readonly (Int32Array | number[])[], options: GenerateTextOptions & AsksAttention):
    Promise<WithSteps<GeneratedText>[]>;
  generateText(prompts: readonly string[] | readonly (Int32Array | number[])[], options?: GenerateTextOptions): Promise<GeneratedText[]>;
  dispose(): void;
  [Symbol.dispose](): void;
}

export declare class SimdformerError extends Error {
  /**
   * 'busy': a call into a model from inside one of its own running calls (a callback);
   * 'cancelled': the caller stopped the operation; 'internal': a bug in simdformer.
   */
  readonly code: 'invalid_argument' | 'shape_mismatch' | 'unsupported' | 'io_error' | 'out_of_memory' | 'disposed'
    | 'cancelled' | 'busy' | 'internal';
}

export declare function init(options?: InitOptions): Promise<Simdformer>;
export declare function wasmSimdSupported(): boolean;
/** The model folders kept in the browser, newest first ('unsupported' without a Cache API). */
export declare function keptModels(): Promise<KeptModel[]>;
/**
 * Removes the kept folder at `url` (as keptModels names it; relative URLs resolve against the
 * page, '/' is added to the path, the fragment is ignored, the query names the folder): it is no
 * longer listed from the first step on, also while a load of it runs. Resolves to the number of
 * files removed.
 */
export declare function forgetModel(url: UrlLike): Promise<number>;

/** The trained models shipped in the package's web/models/ folder. */
export type BundledModelName = 'fortune-gpt2' | 'fortune-llama' | 'fortune-bert' | 'fortune-topics' | 'reverse';
/** What each bundled model is and which loader takes it. */
export declare const BUNDLED_MODELS: Readonly<Record<BundledModelName, string>>;
/**
 * The folder URL of a bundled model (file: under Node.js, http(s) in a browser):
 * `sf.loadPretrained(bundledModelUrl('fortune-bert'))`.
 */
export declare function bundledModelUrl(name: BundledModelName): { readonly href: string; toString(): string };
export default init;
