// The size budget of what the package ships, as size-limit does for npm packages: the test
// command fails when a build of the engine grows past its budget (gzip -9 bytes, what a page
// downloads from a server that compresses). The budgets sit a little above today's sizes, so
// growth is noticed where it happens; BENCHMARKS.md ("Footprint") has the sizes, where the bytes
// go, and the 150 KB goal. A change that shrinks a build lowers its budget in the same commit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { DIST } from './helpers.mjs';

const KB = 1024;
// Goal (issue 30): every shipped wasm build <= 150 KB gzip. Not met: after native wasm exceptions
// and -Oz for the cold code (2026-12-01, zlib -9) simdformer.wasm was 177,768 B, the scalar build
// 195,037 B and the threads build 190,726 B; Llama / Qwen2 / Mistral (issue 32) and the task heads
// (issue 33) then took them to 187,961 / 204,594 / 200,890 B. The layers' loading split out for
// -Oz, info_json's config parsed by the loader's JSON parser (one nlohmann parser, not two), error
// messages joined by cat(), the link at -Oz and one guarded() try/catch brought them to
// 172,496 / 183,052 / 186,208 B (2026-12-02; BENCHMARKS.md "Footprint", issue 30, has each lever
// and what is left). Issue 30's third round: emmalloc under a counting malloc in the one-thread
// builds, the runners' checks split out for -Oz, one SAX parser for every JSON text:
// 167,237 / 177,180 / 183,474 B; the runners' orchestration at -Oz (an idle A/B showed no
// slowdown), with the new erf merged: 162,692 / 173,257 / 178,565 B (2026-12-02). Fourth round:
// emmalloc under the counting malloc in the threads build too (the runtime's own allocator entry
// points wrapped onto it), Binaryen's -Oz once more after Emscripten's meta-DCE and one sort of
// tensors by name instead of two: 161,806 / 170,907 / 174,444 B; the choice of each generated
// token (model/decoding.cpp, sampler.cpp) at -Oz after an idle A/B (GPT-2 step 0.989):
// 160,366 / 169,725 / 172,968 B (2026-12-02). Fifth round: nlohmann's dump() replaced by our own
// serializer (io/json_text.cpp, the same bytes): 159,299 / 169,753 / 172,429 -> 156,595 / 167,322 /
// 170,292 B (2026-12-03). Link-time optimization of every wasm object (-flto, SIMDFORMER_WASM_LTO):
// 150,637 / 153,481 / 162,934 B, the goal met by the one-thread builds (2026-12-03). Sixth round:
// our own strtod / strtof (io/decimal.cpp: musl's compute in wasm32's 128-bit software long double)
// took the threads build from 163,773 to 157,970 B; no RTTI in the wasm builds (-fno-rtti, Embind
// without type names): 144,369 / 147,226 / 156,173 B, the goal met by the scalar build too
// (2026-12-04). Then the relaxed-SIMD int8 kernel module (issue 29: 2.3 KB raw embedded in the
// SIMD128 builds, its driver and init check; the scalar build only gains the packed column sums)
// and the config readings of transformers 5 / Qwen2 layer_types / CrossEncoder activations
// (+1.7 KB): 150,164 / 150,359 / 162,073 B, the goal met by both one-thread builds. Issue 32/33's
// acceptance fixes of 2026-12-05 (position_embedding_type null, Mistral's layer_types read as
// Ministral's, strtod's 64-bit exponents and IEEE tininess, id2label's duplicate check without
// std::sort): +363 B, simdformer.wasm 150,527 B. Then the threads build's median of fork-join
// timings without std::sort (-1.4 KB) and the int8 column split that quantizes A once, in the
// pool's job scratch (issue 29, +~2 KB in the threads build only), with the length-grouped
// batches' softmax: 149,670 / 150,771 / 163,104 B (2026-12-05). The threads build's pool over
// pthreads directly (runtime/sync.h: libc++'s std::thread / mutex / condition_variable /
// steady_clock throw std::system_error, which linked strerror's table of every errno message) and
// its once-per-set_threads code at minsize, the calibration's callback without std::function:
// threads 163,104 -> 160,993 B (2026-12-05), still 7.2 KB over the goal. Hugging Face's configs
// as Hugging Face reads them (issues 32/33: ACT2FN's other GELU names, tanh and linear; null and
// numeric flags as Python's truth; DistilBERT's sinusoidal table built when the file has none;
// Ministral; rope_parameters per layer type; info.window_layers): 150,283 / 151,442 / 161,476 B
// (2026-12-05), the goal still met by both one-thread builds. The threads build's second round
// (foot16): no thread-safe statics in the wasm builds (-fno-threadsafe-statics: the guards were
// libc++abi's, over a global mutex and condition variable), no libc printf in the threads build
// (only brk() named it, which kept stdout's FILE and the fd_write import) and the pool's condition
// variable over a futex instead of musl's pthread_cond_t: 150,183 / 151,396 / 161,386 ->
// 150,138 / 151,396 / 160,011 B (2026-12-05), the threads build 6,411 B over the goal. Third round
// (foot17): no libc printf in any build (numbers as text by json_text's Grisu2, nlohmann's lexer
// driven by our own SAX loop, Embind's one siprintf defined) and libc++abi's per-thread exception
// state in a thread_local in the threads build: 149,952 / 150,927 / 159,870 -> 143,588 / 144,370 /
// 152,923 B (2026-12-05), the goal met by every build.
const GOAL = 150 * KB;
// The bundle's budget rose 32 -> 37 KB with the task heads of issue 33 (token classification,
// question answering, zero-shot, reranking: the pipelines' post-processing, the tokenizer's
// windows and word ids, classify's attention rollout; 30,957 -> 36,654 B, +5.7 KB gzip); the wasm
// builds grew 0.6-1.1 KB with the per-token head. Chat templates, the generation files of language
// models and the bundled Fortune Llama (issues 32, 34) took it to 40,056 B; the text APIs'
// hardening (readList, option checks) and the threads build's background start (threadsReady) to
// 42,109 B, and esbuild's --minify-syntax (names kept) back to 41,444 B; the chat template's
// bounded copy of every value it hands the engine (a Proxy claiming 2^32 - 1 tools crashed V8)
// to 41,952 B (2026-12-02); holes refused in batches and masks, the template's text budget, stop
// read once and Hugging Face's topK / topP / any-case task options to 42,230 B (2026-12-03); the
// CrossEncoder's named activation, sentence-transformers' max_seq_length / do_lower_case for embed
// and init's relaxedSimd to 43,071 B (2026-12-04): 43 KB; tokenizer_config.json's normalizer
// options for BERT-family tokenizers as Hugging Face's fast tokenizers apply them
// (config-normalizer.mjs) to 44,054 B (2026-12-05): 43.5 KB; the tokenizer class picked as
// AutoTokenizer v4 picks it when tokenizer_config.json is absent, GPT-2 / RoBERTa add_prefix_space
// and Llama's add_bos / add_eos post-processor to 44,602 B (2026-12-05): 44 KB; the special tokens
// tokenizer.json lacks added as PreTrainedTokenizerFast adds them, special_tokens_map.json,
// byte-level offsets trimmed only when the post-processor says so, ▁ offsets, eos id lists
// (accept17) to 47,199 B (2026-12-05): 46.5 KB. The API review of 2026-12-07 (robust-api.test.mjs:
// typed arrays copied where checked, options read as own keys, bounds on lists and downloads, the
// tokenizer's public methods checked, the browser entry's loadModel(url) through download(),
// zeroShot's hypothesisTemplate as Python's str.format):
// 47,540 -> 48,646 B, the budget raised by those 1,106 B (JS-side checks; the .wasm unchanged);
// a download with an announced length read into one buffer of that length (a model held once, not
// as chunks and their join) to 48,760 B (+114 B).
// Session 19: no row splits in the GEMMs, activate() out of line with one tanh, and the wasm
// epilogue's activation over a whole tile (issue 29): 143,785 / 145,209 / 152,820 B (2026-12-05).
// Room for issue 29's relaxed-SIMD f32 kernels (foot21): the linked functions in the order of their
// names (cmake/sort-wasm-functions.mjs; the same code, related functions side by side in
// deflate's window): 143,785 / 145,209 / 153,428 -> 140,106 / 141,362 / 149,471 B (2026-12-06);
// the weight reader and Buffer at -Oz (loading; no forward-pass function changed): 137,885 /
// 139,239 / 147,227 B (2026-12-06). Then what that room was for: the f32 GEMM's k-loops on relaxed
// SIMD's multiply-add (issue 29: six loops in the relaxed module, their table slots in each
// thread, the init check; SIMD128 builds only) and Q, K and V as one GEMM (the joined loader, every
// build): 140,790 / 140,211 / 150,243 B (2026-12-06), every build still under the goal. Session 23:
// int8 on relaxed SIMD with 8-bit activations where the engine's dot product is exact on them (the
// init check per byte form, the signed-byte quantization and epilogue; SIMD128 builds only):
// 141,186 / 140,211 / 150,768 B (2026-12-06). Session 27: a decoding step's attention reads each
// cached row once for all the heads (kernels/attention_query.cpp: one kernel pair over a span of
// heads instead of one per head): 141,153 / 140,474 / 150,616 -> 140,899 / 140,236 / 150,889 B.
const BUDGET = {  // the .wasm budgets measured on 2026-12-06 (session 27): 140,899 / 140,236 / 150,889 B gzip
  'simdformer.wasm': 137 * KB + 768,
  'simdformer-scalar.wasm': 137 * KB + 128,
  'simdformer-threads.wasm': 147 * KB + 512,  // 2,711 B under the 150 KB goal
  'simdformer.mjs': 10 * KB + 512,  // minified since issue 30's session 19: 13,489 -> 10,263 B
  'simdformer-scalar.mjs': 12 * KB,  // the same: 15,351 -> 11,876 B
  'simdformer-threads.mjs': 22 * KB,
  'browser.bundle.mjs': 46 * KB + 512 + 1106 + 114,
};

for (const [file, budget] of Object.entries(BUDGET)) {
  test(`${file} stays within ${(budget / KB).toFixed(0)} KB gzip`, () => {
    const bytes = readFileSync(join(DIST, file));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    const goal = file.endsWith('.wasm') ? `; goal ${GOAL} B: ${gzip <= GOAL ? 'met' : 'not met'}` : '';
    console.log(`# size: ${file} ${bytes.length} B raw, ${gzip} B gzip (budget ${budget} B${goal})`);
    assert.ok(gzip <= budget, `${file} is ${gzip} B gzip, over its ${budget} B budget`);
  });
}
