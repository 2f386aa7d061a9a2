#!/usr/bin/env bash
# npm run bench: exports the workloads from PyTorch (once), installs the peers, builds simdformer
# when stale, then runs the wasm side-by-side benchmark, the threads benchmark, text -> embedding
# and short texts against transformers.js (headless Chromium and Node), the native addon against
# transformers.js on onnxruntime-node (bench/native.mjs), GPT-2 decoding on the addon against
# onnxruntime-node (bench/decode.mjs --backend native), the decoders in Chromium (bench/decode-page.mjs),
# the int8 BERT layer, and the native kernel benchmark.
#   bench/run.sh [--quick]      (BENCH_BUDGET_MS sets the timing budget per engine and workload)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh bench
quick="${1:-}"
want_quick=false; [ "$quick" = "--quick" ] && want_quick=true
if [ ! -f bench/.cache/manifest.json ] || ! grep -q "\"quick\": $want_quick" bench/.cache/manifest.json; then
  echo "exporting the workloads from PyTorch…"
  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/export_models.py $quick 2>&1 | grep -v -i warning
fi
if [ ! -f bench/models/manifest.json ] || ! grep -q "\"quick\": $want_quick" bench/models/manifest.json; then
  echo "exporting the Hugging Face-shaped models (bench/export_hf.py)…"
  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/export_hf.py $quick 2>&1 | grep -v -i warning
fi
# transformers.js pulls onnxruntime-node, whose CPU binaries are in its npm package; its install
# script would fetch optional GPU binaries from another host, which this machine cannot reach.
(cd bench && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error)
if [ ! -f dist/simdformer.wasm ] || [ -n "$(find src bindings -newer dist/simdformer.wasm -type f -print -quit)" ]; then
  bash scripts/build-package.sh
fi
node bench/bench.mjs
node bench/threads.mjs --threads 2          # 1 vs 2 threads, and against onnxruntime-web on 2 threads
node bench/under-load.mjs --models minilm-l6 || [ $? -eq 2 ]  # issue 29: 1 vs 2 threads with one core kept busy (skipped when the machine is loaded)
node bench/verify-hf-transformersjs.mjs      # the transformers.js folders load and match PyTorch
node bench/embed.mjs                         # text -> embedding, simdformer vs transformers.js (Chromium + Node)
node bench/tasks.mjs                         # classify and rerank, simdformer vs transformers.js (Chromium, 1 and 2 threads)
node bench/native.mjs || [ $? -eq 2 ]        # Node: the native addon vs transformers.js on onnxruntime-node (issue 31; skipped when the machine is loaded)
node bench/short-texts.mjs                   # short texts (5/23/46/128 tokens, batch of 3): 1 thread interleaved, 2 threads alone; int8 vs q8
node bench/int8-layer.mjs                    # int8 BERT-base layer vs f32 and onnxruntime-web int8
node bench/load-memory.mjs                   # issue 32: heap growth while loading a 135M decoder (f32) and a 0.5B one (int8)
# token-by-token decoding: GPT-2-small vs onnxruntime-web, encoder-decoder generate (BENCH_BEFORE=<old dist>: before/after)
node bench/decode.mjs $quick ${BENCH_BEFORE:+--before "$BENCH_BEFORE"}
# The decoders in Chromium (where simdformer's int8 runs relaxed SIMD; Node 20 has none): int8 against
# onnxruntime-web's q8 (issue 32's prefill goal), then the same with the 8-bit k-loop, then f32
node bench/decode-page.mjs $quick --weights int8
node bench/decode-page.mjs $quick --weights int8 --relaxed off
node bench/decode-page.mjs $quick --weights f32
# Issue 31: GPT-2-small decoding on the native addon vs onnxruntime-node (with past), same loop
node bench/decode.mjs $quick --backend native --gpt2-only --decoder gpt2-small
echo "ceiling loop as assembled (wasm-objdump):"
wasm-objdump -d bench/.cache/ceiling.wasm | sed -n '/loop/,/br_if/p' | cut -c40- | awk '{print $1}' | sort | uniq -c | sort -rn
cmake --preset native-release -DSIMDFORMER_BUILD_BENCH=ON >/dev/null
cmake --build --preset native-release --target bench_kernels >/dev/null
build/native-release/bench/bench_kernels --benchmark_min_time=0.2
# Issue 31: the native GEMM as a fraction of this machine's FMA peak (one thread), at the AVX2 + FMA
# level of the addon's simdformer-avx2.node (BM_FmaPeak: the register-only ceiling).
cmake --preset native-addon-avx2 -DSIMDFORMER_BUILD_BENCH=ON >/dev/null
cmake --build --preset native-addon-avx2 --target bench_kernels >/dev/null
build/native-addon-avx2/bench/bench_kernels --benchmark_filter='FmaPeak|GemmPacked' --benchmark_min_time=0.2 \
  --benchmark_format=json > bench/.cache/native-gemm.json
node -e '
  const r = JSON.parse(require("fs").readFileSync("bench/.cache/native-gemm.json", "utf8")).benchmarks;
  const peak = r.find((b) => b.name.startsWith("BM_FmaPeak"))["GFLOP/s"] / 1e9;
  console.log(`AVX2 + FMA peak (one thread): ${peak.toFixed(1)} GFLOP/s`);
  for (const b of r.filter((x) => x.name.startsWith("BM_GemmPacked"))) {
    const g = b["GFLOP/s"] / 1e9;
    console.log(`  ${b.name.padEnd(30)} ${g.toFixed(1)} GFLOP/s = ${(100 * g / peak).toFixed(0)} % of peak (goal >= 75 %)`);
  }'
