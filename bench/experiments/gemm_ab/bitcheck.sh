#!/usr/bin/env bash
# Proves the small_m.sh variants bit-identical to today's gemm.cpp natively (SSE2, AVX2 + FMA,
# AVX-512 when the CPU has it, scalar), on edge cases the A/B shapes do not reach:
#   bash bench/experiments/gemm_ab/small_m.sh 1 && bash bench/experiments/gemm_ab/bitcheck.sh
# (small_m.sh generates the variant sources in build/gemm_ab/.)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/gemm_ab"; src="$out/gemm_today.cpp"  # written by small_m.sh
archs=("sse2:" "avx2:-mavx2 -mfma" "scalar:-DSIMDFORMER_SIMD=0")
grep -qw avx512f /proc/cpuinfo && archs+=("avx512:-march=x86-64-v4")
variants=("order:$out/gemm_small_m.cpp:-DSMALL_M_VARIANT=1" "chunk128:$out/gemm_small_m.cpp:-DSMALL_M_VARIANT=2 -DSMALL_M_CHUNK=128"
          "chunk256:$out/gemm_small_m.cpp:-DSMALL_M_VARIANT=2 -DSMALL_M_CHUNK=256" "merged128:$out/gemm_small_m.cpp:-DSMALL_M_VARIANT=3 -DSMALL_M_CHUNK=128"
          "merged5x2:$out/gemm_small_m.cpp:-DSMALL_M_VARIANT=4 -DSMALL_M_CHUNK=128"
          "pad:$out/gemm_pad.cpp:" "mc64:$out/gemm_mc64.cpp:" "nounroll:$out/gemm_nounroll.cpp:" "cunroll2:$out/gemm_cunroll2.cpp:" "cunroll4:$out/gemm_cunroll4.cpp:"
          "branch:$ROOT/src/simdformer/kernels/gemm.cpp:")
build() {  # name source flags
  nice -n 10 g++ -O2 -std=c++17 $3 -I "$ROOT/src" -I "$ROOT/.deps/prefix/usr/include" \
    "$ROOT/bench/experiments/gemm_ab/bitcheck.cpp" "$2" -o "$out/bitcheck_$1"
  "$out/bitcheck_$1" > "$out/bitcheck_$1.txt"
}
bad=0
for a in "${archs[@]}"; do
  an="${a%%:*}"; af="${a#*:}"
  build "today_$an" "$src" "$af"
  for v in "${variants[@]}"; do
    vn="${v%%:*}"; rest="${v#*:}"; vs="${rest%%:*}"; vf="${rest#*:}"
    build "${vn}_$an" "$vs" "$af $vf"
    if cmp -s "$out/bitcheck_today_$an.txt" "$out/bitcheck_${vn}_$an.txt"; then
      echo "$an $vn: $(wc -l < "$out/bitcheck_today_$an.txt") cases bit-identical"
    else
      echo "$an $vn: DIFFERS"; diff "$out/bitcheck_today_$an.txt" "$out/bitcheck_${vn}_$an.txt" | head -5; bad=1
    fi
  done
done
exit $bad
