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
// The measured cut-over is kept within [kMinCutOverMacs, kMaxCutOverMacs], since one measurement
// can be far off and it holds for the pool's life. The bounds are kPayback * F * S at the ends of
// what a healthy machine measures:
//  - at most kPayback x the slowest healthy fork-join (~50 us, wasm threads; native ~1 us) x the
//    fastest kernel (~1e11 multiply-adds per second; wasm SIMD128 does ~1e10) = 1.5e7, ~2^24. A
//    larger cut-over means F was measured while other processes had the cores (5 ms is common),
//    and would keep every GEMM of a small model on one thread for the pool's life.
//  - at least kPayback x the fastest fork-join (~0.5 us; BENCHMARKS.md: 0.74 us native) x the
//    slowest kernel (~1e9 per second, scalar) = 1.5e3, ~2^10: no pool splits less work with gain,
//    so a smaller cut-over only means F came out below what a wake-up can cost (timer noise).
constexpr double kMinCutOverMacs = 1 << 10;
constexpr double kMaxCutOverMacs = 1 << 24;
// A fork-join measurement that gives more than kMaxCutOverMacs (or is not a positive number) is
// taken again this many times at most, after a short pause each, keeping the smallest.
constexpr int kForkJoinRetries = 2;

struct CutOver {
    double fork_join_seconds = 0;  // F
    int fork_join_measurements = 0;  // how many times F was measured (1 + retries)
    double f32_macs_per_second = 0;  // S of kernels::gemm_f32_packed
    double i8_macs_per_second = 0;   // S of kernels::gemm_qd8_qc8w
    double f32_min_macs = kParallelMinMacs;  // cut_over_macs(F, S)
    double i8_min_macs = kParallelMinMacs;
};
// kPayback * F * S clamped to [kMinCutOverMacs, kMaxCutOverMacs]; kParallelMinMacs when F is not
// a positive number or the product is not finite (no measurement to go by).
double cut_over_macs(double fork_join_seconds, double macs_per_second);
// A non-owning reference to a callable `double()` or none, as RangeFn is for ranges: what
// std::function cost the threads build (its type-erased copies and its bad_function_call throw,
// issue 30) is not needed for a callable that only lives through one call.
class MeasureFn {
public:
    MeasureFn() = default;
    template <class F>
    MeasureFn(const F& f)  // NOLINT: implicit, so lambdas can be passed directly
        : obj_(&f), call_([](const void* o) { return double((*static_cast<const F*>(o))()); }) {}
    explicit operator bool() const { return call_ != nullptr; }
    double operator()() const { return call_(obj_); }

private:
    const void* obj_ = nullptr;
    double (*call_)(const void*) = nullptr;
};
// Measures S for both kernels (once per process) and sets the cut-overs for fork-join cost F, as
// measured by set_threads for its new pool. If F looks wrong (see kForkJoinRetries) and
// measure_again is given, F is measured again with it.
void calibrate_parallel_cut_over(double fork_join_seconds, MeasureFn measure_again = {});
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

// kernels::gemm_qd8_qc8w split over column panels or over rows when there are fewer panels than
// threads. A column split quantizes A once: the threads quantize its rows together into the
// pool's job scratch, then each computes its panels from that copy (one fork-join per chunk of
// rows the scratch holds). Each row of A is quantized on its own, so a row's result depends
// neither on the split nor on who quantized it.
void gemm_qd8_qc8w(size_t m, size_t n, size_t k,
                   const float* a, size_t lda,  // [m, k]
                   const void* packed_b,        // kernels::pack_i8_quantize / pack_i8_copy panels of [k, n]
                   float* c, size_t ldc,        // [m, n]
                   const kernels::Epilogue& epilogue = {});
// Whether the int8 column split quantizes A once for all threads (true, the default) or each
// thread quantizes all of A for its own columns (the split before): for bench_kernels' same-
// process A/B and tests (both give the same bits). Native builds only: wasm builds always
// quantize once (the code of the other split would count against their size budget). Returns
// the previous setting.
bool set_i8_quantize_once(bool on);

}  // namespace simdformer::runtime
