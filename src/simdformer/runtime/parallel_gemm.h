// Multi-threaded entry points over the kernels: the same contracts as kernels.h, split across
// runtime::threads() by the static partition of thread_pool.h, so every result is bit-identical
// to the one-thread call (each element of C is computed by one task with the same arithmetic).
#pragma once

#include <cstddef>

#include "simdformer/kernels/kernels.h"

namespace simdformer::runtime {

// Below this many multiply-adds (m*n*k for a GEMM, all heads for an attention) work stays on one
// thread: waking the pool costs more than it saves. The value is a choice, not yet measured on an
// idle machine (BENCHMARKS.md, "Threads").
constexpr double kParallelMinMacs = 1 << 17;
// The cut-over in use (kParallelMinMacs unless overridden).
double parallel_min_macs();
// Overrides the cut-over (benchmarks measure it with 0, tests force splitting tiny models);
// returns the previous value.
double set_parallel_min_macs(double macs);

// kernels::gemm_f32_packed split over column panels (or over rows when there are fewer panels
// than threads).
void gemm_f32_packed(size_t m, size_t n, size_t k,
                     const float* a, size_t lda,  // [m, k]
                     const float* packed_b,       // kernels::pack_b of [k, n]
                     float* c, size_t ldc,        // [m, n]
                     const kernels::Epilogue& epilogue = {});

// kernels::gemm_qd8_qc8w split over rows: each row of A is quantized on its own, so a row's
// result does not depend on which rows share its task.
void gemm_qd8_qc8w(size_t m, size_t n, size_t k,
                   const float* a, size_t lda,  // [m, k]
                   const void* packed_b,        // kernels::pack_i8_quantize / pack_i8_copy panels of [k, n]
                   float* c, size_t ldc,        // [m, n]
                   const kernels::Epilogue& epilogue = {});

}  // namespace simdformer::runtime
