#!/usr/bin/env bash
# Builds small_m.c (clang-19: relaxed SIMD) into build/relaxed_f32/small_m.wasm for small_m.mjs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/relaxed_f32"; mkdir -p "$out"
clang-19 --target=wasm32 -O2 -msimd128 -mrelaxed-simd -nostdlib -c "$ROOT/bench/experiments/relaxed_f32/small_m.c" -o "$out/small_m.o"
wasm-ld-19 --no-entry --import-memory --max-memory=2147483648 -z stack-size=0 --strip-all "$out/small_m.o" -o "$out/small_m.wasm"
