#!/usr/bin/env bash
# Builds one GEMM variant for bench/experiments/gemm-ab.mjs:  bash bench/experiments/gemm_ab/build.sh NAME [gemm.cpp]
# (default source: src/simdformer/kernels/gemm.cpp). Output: build/gemm_ab/NAME.cjs (single file).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# AB_SRC_ROOT: another checkout's src/ (headers, elementwise.cpp and the default gemm.cpp), say a
# `git archive` of the base branch, for a baseline built with this driver. AB_ENV=web,node: a build
# that gemm-ab.mjs --browser can also run in a Chromium page (where relaxed SIMD is on).
SRC_ROOT="${AB_SRC_ROOT:-$ROOT}"
name="$1"; src="${2:-$SRC_ROOT/src/simdformer/kernels/gemm.cpp}"
mkdir -p "$ROOT/build/gemm_ab"
# The relaxed-SIMD module's bytes from a wasm-release build (its f32 k-loops, as the package has
# them): ab_relaxed(1) then runs the GEMM on them where the engine has relaxed SIMD (Chromium).
RELAXED_DIR="${AB_RELAXED_DIR:-$ROOT/build/wasm-release/src/relaxed}"
RELAXED_FLAGS=()
[ -f "$RELAXED_DIR/relaxed_module_bytes.h" ] && RELAXED_FLAGS=(-DSIMDFORMER_RELAXED_MODULE=1 -I "$RELAXED_DIR")
NODE_PATH=/usr/share/nodejs nice -n 10 em++ -O3 -msimd128 -std=c++17 -DSIMDFORMER_SIMD=1 ${AB_FLAGS:-} "${RELAXED_FLAGS[@]}" \
  -I "$SRC_ROOT/src" -I "$ROOT/.deps/prefix/usr/include" \
  "$ROOT/bench/experiments/gemm_ab/driver.cpp" "$src" "$SRC_ROOT/src/simdformer/kernels/elementwise.cpp" \
  "$SRC_ROOT/src/simdformer/kernels/relaxed_module.cpp" -o "$ROOT/build/gemm_ab/$name.cjs" \
  -sMODULARIZE=1 -sENVIRONMENT=${AB_ENV:-node} -sWASM_ASYNC_COMPILATION=0 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 \
  -sALLOW_TABLE_GROWTH=1 -sEXPORTED_FUNCTIONS=_ab_setup,_ab_run,_ab_bits,_ab_relaxed,_ab_gelu -sFILESYSTEM=0
echo "build/gemm_ab/$name.cjs"
