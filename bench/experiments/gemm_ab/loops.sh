#!/usr/bin/env bash
# Builds loops.cpp (issue 29: the f32 micro-kernel's k-loop alone) and times it on an idle machine:
#   bash bench/experiments/gemm_ab/loops.sh [kc]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
mkdir -p "$ROOT/build/gemm_ab"
NODE_PATH=/usr/share/nodejs em++ -O3 -msimd128 "$ROOT/bench/experiments/gemm_ab/loops.cpp" -o "$ROOT/build/gemm_ab/loops.cjs" \
  -sMODULARIZE=1 -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -sFILESYSTEM=0 \
  -sEXPORTED_FUNCTIONS=_setup,_tile4x1,_no_a_loads,_a_prebcast,_a_shuffle,_tile2x2
grep -m1 'model name' /proc/cpuinfo || true
uptime
node "$ROOT/bench/experiments/gemm_ab/loops.mjs" "${1:-256}"
uptime
