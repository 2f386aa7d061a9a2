#!/usr/bin/env bash
# The exact GELU before / after the new erf, same process, natively (g++ -O3: SSE2 baseline and
# x86-64-v3 AVX2 + FMA) and in wasm (em++ -O3 -msimd128, under node):
#   bash bench/experiments/gelu_ab/run.sh [rounds]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/gelu_ab"; mkdir -p "$out"
src="$ROOT/bench/experiments/gelu_ab/gelu_ab.cpp"
inc=(-I "$ROOT/src" -I "$ROOT/.deps/prefix/usr/include")
g++ -O3 -std=c++17 "${inc[@]}" "$src" -o "$out/gelu_ab-sse2"
g++ -O3 -std=c++17 -march=x86-64-v3 "${inc[@]}" "$src" -o "$out/gelu_ab-avx2"
NODE_PATH=/usr/share/nodejs em++ -O3 -msimd128 -std=c++17 "${inc[@]}" "$src" -o "$out/gelu_ab-wasm.cjs" \
  -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
uptime
"$out/gelu_ab-sse2" "${1:-41}"
"$out/gelu_ab-avx2" "${1:-41}"
node "$out/gelu_ab-wasm.cjs" "${1:-41}"
uptime
