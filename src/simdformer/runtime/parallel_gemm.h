// Multi-threaded entry points over the kernels: the same contracts as kernels.h, split across
// runtime::threads() by the static partition of thread_pool.h, so every result is bit-identical
// to the one-thread call (each element of C is computed by one task with the same arithmetic).
#pragma once

#include <cstddef>

#include "simdformer/kernels/kernels.h"

namespace simdformer::runtime {

// ---- the cut-over ----------------------------------------------------------------------------------
// A GEMM (or attention) of fewer multiply-adds than the cut-over stays on one thread. The cut-over
// is measured when a pool starts (set_threads): the pool's fork-join cost F (empty jobs back to
// back) and the one-thread speed S of each GEMM kernel on a small L1-resident shape. Splitting in
// two saves about t/2 - F of a one-thread time t, so work is split when t = macs / S > kPayback * F:
// two threads are then faster by at least F/2 (t/2 + F <= t - F/2), and S from L1 overstates
// the speed of a GEMM that streams its weights, which only errs towards one thread.
constexpr double kPayback = 3.0;
// The cut-over before any pool was measured (and in builds without threads).
constexpr double kParallelMinMacs = 1 << 17;

struct CutOver {
    double fork_join_seconds = 0;  // F
    double f32_macs_per_second = 0;  // S of kernels::gemm_f32_packed
    double i8_macs_per_second = 0;   // S of kernels::gemm_qd8_qc8w
    double f32_min_macs = kParallelMinMacs;  // kPayback * F * S
    double i8_min_macs = kParallelMinMacs;
};
// Measures S for both kernels and sets the cut-overs for fork-join cost F (called by set_threads
// with its new pool; S is measured once per process).
void calibrate_parallel_cut_over(double fork_join_seconds);
CutOver measured_cut_over();
// The f32 cut-over in use (also used by attention): the override if one is set, else measured.
double parallel_min_macs();
// Overrides both cut-overs (benchmarks measure splits with 0, tests force splitting tiny models);
// a negative value returns to the measured ones. Returns the previous override (negative: none).
double set_parallel_min_macs(double macs);

// ---- GEMMs ----------------------------------------------------------------------------------------
// kernels::gemm_f32_packed split over column panels, so each thread streams its own share of the
// weights whatever the number of rows (or over rows when there are fewer panels than threads). One
// row runs kernels::gemv_f32_packed on each share (same results).
void gemm_f32_packed(size_t m, size_t n, size_t k,
                     const float* a, size_t lda,  // [m, k]
                     const float* packed_b,       // kernels::pack_b of [k, n]
                     float* c, size_t ldc,        // [m, n]
                     const kernels::Epilogue& epilogue = {});

// kernels::gemm_qd8_qc8w split over column panels (each thread quantizes all rows of A, the small
// operand, for itself) or over rows when there are fewer panels than threads: each row of A is
// quantized on its own, so a row's result does not depend on the split.
void gemm_qd8_qc8w(size_t m, size_t n, size_t k,
                   const float* a, size_t lda,  // [m, k]
                   const void* packed_b,        // kernels::pack_i8_quantize / pack_i8_copy panels of [k, n]
                   float* c, size_t ldc,        // [m, n]
                   const kernels::Epilogue& epilogue = {});

}  // namespace simdformer::runtime
