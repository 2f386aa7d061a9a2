#!/usr/bin/env bash
# Issue 29, the GEMM on every machine class: is the f32 kernel's blocking (kKc = 1024 k-steps per
# block, kMc = 128 rows of A packed at a time) sized for one machine's caches? Today's
# src/simdformer/kernels/gemm.cpp against copies with other kKc / kMc, all wasm SIMD128 builds
# timed interleaved in one Node process by bench/experiments/gemm-ab.mjs beside the SIMD128
# mul+add ceiling loop. Blocking changes only where partial sums wait between k-blocks (C, exact
# f32 stores and loads), never the order of any element's operations, so every variant must be
# bit-identical to today (checked below, as small_m.sh does). Run on an idle machine:
#   bash bench/experiments/gemm_ab/blocking.sh [rounds] [--stream MB]
# Variants (build/gemm_ab/blk_*.cjs; BLOCKING_ONLY="today kc384" builds a subset):
#   today, today2  the working tree's gemm.cpp, twice (the control: copies of one build differ)
#   kcN            kKc = N (a B panel of kc x 8 floats: 32 KiB at 1024, 12 KiB at 384)
#   mcN            kMc = N (the packed A block: kMc x kc floats, 384 KiB at 128 x 768)
#   kcN_mcM        both
#   main4x1        today's blocking with wasm's main tile of before 2026-12-03 (4 rows x 1 panel,
#                  -DSIMDFORMER_GEMM_MAIN_4X1): the A/B of BENCHMARKS.md "Issue 29: the main tile"
# BLOCKING_NOBUILD=1 times the builds already in build/gemm_ab without regenerating them.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
HERE="$ROOT/bench/experiments/gemm_ab"
out="$ROOT/build/gemm_ab"; mkdir -p "$out"
rounds="${1:-41}"; shift || true
names=(${BLOCKING_ONLY:-today kc512 kc384 kc256 mc64 kc384_mc64})
files=()
for v in "${names[@]}"; do
  src="$out/gemm_blk_$v.cpp"
  kc=$(sed -n 's/.*kc\([0-9]\+\).*/\1/p' <<<"$v"); mc=$(sed -n 's/.*mc\([0-9]\+\).*/\1/p' <<<"$v")
  flags=""; [ "$v" = main4x1 ] && flags="-DSIMDFORMER_GEMM_MAIN_4X1"
  if [ -z "${BLOCKING_NOBUILD:-}" ]; then
    # kKc / kMc edited in a copy of gemm.cpp; the sed must hit exactly one line of each it edits.
    cp "$ROOT/src/simdformer/kernels/gemm.cpp" "$src"
    for edit in "kKc:$kc" "kMc:$mc"; do
      name=${edit%%:*} val=${edit#*:}
      [ -n "$val" ] || continue
      [ "$(grep -c "constexpr size_t $name = [0-9]*;" "$src")" = 1 ] || { echo "gemm.cpp changed, update blocking.sh: $name" >&2; exit 1; }
      sed -i "s/constexpr size_t $name = [0-9]*;/constexpr size_t $name = $val;/" "$src"
    done
    AB_FLAGS="$flags" bash "$HERE/build.sh" "blk_$v" "$src" >/dev/null
  fi
  files+=("$out/blk_$v.cjs")
  if [ "$v" = today ]; then cp "$out/blk_today.cjs" "$out/blk_today2.cjs"; files+=("$out/blk_today2.cjs"); fi
done

grep -m1 'model name' /proc/cpuinfo || true
lscpu | grep -E 'L1d|L2|L3' || true
uptime
log="$out/blocking.log"
node "$ROOT/bench/experiments/gemm-ab.mjs" "${files[@]}" --bias --rounds "$rounds" "$@" \
  --shape 128x768x768,128x768x3072,128x3072x768,128x384x1536,46x768x768,23x768x3072 | tee "$log"
uptime
awk -f "$HERE/same_bits.awk" "$log"
