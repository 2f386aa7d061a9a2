#!/usr/bin/env bash
# bitcheck.cpp (GEMM and GEMV, edges, alpha + bias + exact GELU + residual) in wasm under Node,
# SIMD128 and scalar, this tree's kernels against another checkout's (say a `git archive` of the
# base branch):  bash bench/experiments/gemm_ab/bitcheck_wasm.sh /path/to/base/root
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
base="$1"; out="$ROOT/build/bitcheck"; mkdir -p "$out"
bad=0
for simd in 1 0; do
  for v in "base:$base" "this:$ROOT"; do
    n="${v%%:*}"; r="${v#*:}"; k="$r/src/simdformer/kernels"
    NODE_PATH=/usr/share/nodejs nice -n 10 em++ -O3 $([[ $simd == 1 ]] && echo -msimd128) -std=c++17 -DSIMDFORMER_SIMD=$simd \
      -I "$r/src" -I "$ROOT/.deps/prefix/usr/include" "$ROOT/bench/experiments/gemm_ab/bitcheck.cpp" \
      "$k/gemm.cpp" "$k/gemv.cpp" "$k/elementwise.cpp" -o "$out/$n$simd.cjs" \
      -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
    node "$out/$n$simd.cjs" > "$out/$n$simd.txt"
  done
  if cmp -s "$out/base$simd.txt" "$out/this$simd.txt"; then
    echo "simd=$simd: $(wc -l < "$out/this$simd.txt") cases bit-identical"
  else
    echo "simd=$simd: DIFFERS"; diff "$out/base$simd.txt" "$out/this$simd.txt" | head -5; bad=1
  fi
done
exit $bad
