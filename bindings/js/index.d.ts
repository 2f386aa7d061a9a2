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
  /** Threads the module computes with (1 after dispose()). */
  readonly threads: number;
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
  architecture: 'bert' | 'roberta' | 'distilbert' | 'gpt2' | 'torch';
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
  hidden_act: string;
  layer_norm_eps: number;
  has_pooler: boolean;
  has_mlm_head: boolean;
  has_lm_head: boolean;
  /** A ...ForSequenceClassification head (TextModel.classify). */
  has_classifier: boolean;
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
  /** maxLength: an integer, special tokens included (a huge one keeps every token); anything else is a SimdformerError. */
  encodeOne(input: TextInput, maxLength: number): EncodedText;
  encodeBatch(inputs: readonly TextInput[], maxLength: number): EncodedBatch;
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
  /** How many labels per text, highest score first (default 1); null: every label. */
  topK?: number | null;
  /**
   * Default as the text-classification pipeline: 'none' for problem_type 'regression', 'sigmoid'
   * for multi-label models and one label, otherwise 'softmax'.
   */
  functionToApply?: 'softmax' | 'sigmoid' | 'none';
  maxLength?: number;
  /** Texts run per forward pass (default 32). */
  batchSize?: number;
}

export interface Classification {
  /** topK labels with their scores, highest first (equal scores keep the labels' order). */
  predictions: { label: string; score: number }[];
  /** The head's raw output [num_labels]. */
  logits: Float32Array;
  truncated: boolean;
  originalLength: number;
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
  /** The factor of q·k in the scores (1/√dHead for BERT and GPT-2). */
  scale: number;
  /** Projections with their bias, before any scaling. */
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
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
  /** Sample among the tokens scoring at least the k-th best. */
  topK?: number;
  /** Sample among the most likely tokens whose probabilities reach topP (Hugging Face's rule). */
  topP?: number;
  /** Seed of the sampler (SplitMix64): the same seed repeats a run. Default: random, reported in the result. */
  seed?: number;
  /** Token ids and/or texts that end a continuation. Default: the eos token (give it too when you set stop). */
  stop?: number | string | readonly (number | string)[];
  /** Every token as it is chosen. Returning false stops all prompts; throwing rejects with that error; a promise is awaited. */
  onToken?: (event: TokenEvent) => void | boolean | Promise<void | boolean>;
  /** Each token's attention over its context per layer and head (true) or their mean per layer ('mean'). */
  returnAttention?: boolean | 'mean';
  /** Aborting stops at the next step; the promise rejects with the signal's reason. */
  signal?: AbortSignalLike;
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
  /** The step-by-step view of one head (layer and head default to 0). */
  attentionSteps(input: string, options?: { layer?: number; head?: number; maxLength?: number }): AttentionSteps;
  /**
   * Continues a prompt with a causal language model (GPT-2). While it runs, every other call on
   * the model (dispose included) is refused.
   */
  generateText(prompt: Prompt, options: GenerateTextOptions & AsksAttention): Promise<WithSteps<GeneratedText>>;
  generateText(prompt: Prompt, options?: GenerateTextOptions): Promise<GeneratedText>;
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
export type BundledModelName = 'fortune-gpt2' | 'fortune-bert' | 'reverse';
/** What each bundled model is and which loader takes it. */
export declare const BUNDLED_MODELS: Readonly<Record<BundledModelName, string>>;
/**
 * The folder URL of a bundled model (file: under Node.js, http(s) in a browser):
 * `sf.loadPretrained(bundledModelUrl('fortune-bert'))`.
 */
export declare function bundledModelUrl(name: BundledModelName): { readonly href: string; toString(): string };
export default init;
