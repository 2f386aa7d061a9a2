#!/usr/bin/env bash
# Static check of V8's code for the small_m.sh variants (independent of machine load): prints every
# TurboFan loop with SIMD multiplies and its SIMD stack accesses (spills), with V8's own wasm loop
# unrolling on (the default) and off. Run after small_m.sh has built the variants:
#   bash bench/experiments/gemm_ab/spills.sh [variant ...]     (default: every build/gemm_ab/*.cjs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/gemm_ab"
vs=("$@"); [ ${#vs[@]} -gt 0 ] || vs=($(cd "$out" && ls *.cjs | sed 's/\.cjs$//'))
for v in "${vs[@]}"; do
  for flag in "" --no-wasm-loop-unrolling; do
    echo "== $v ${flag:-(V8 defaults)}"
    node $flag --print-wasm-code -e "
      const m = require('$out/$v.cjs')();
      for (const [mm, k, n] of [[5, 768, 768], [23, 768, 768]]) {
        m._ab_setup(mm, k, n, 1);
        for (let i = 0; i < 300; i++) m._ab_run(1, 1);
      }" > "$out/code_$v${flag:+_nolu}.txt" 2>&1
    python3 "$ROOT/bench/experiments/gemm_ab/spill_loops.py" "$out/code_$v${flag:+_nolu}.txt"
  done
done
