#include "simdformer/runtime/parallel_gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "simdformer/runtime/sync.h"
#include "simdformer/runtime/thread_pool.h"

namespace simdformer::runtime {
namespace {
std::atomic<double> g_override{-1.0};
Mutex g_cut_mutex;  // guards g_cut (written by set_threads, read by measured_cut_over)
CutOver g_cut;
std::atomic<double> g_f32_min{kParallelMinMacs}, g_i8_min{kParallelMinMacs};  // read by every GEMM
std::atomic<bool> g_i8_quantize_once{true};  // set_i8_quantize_once

double f32_min_macs() {
    const double o = g_override.load(std::memory_order_relaxed);
    return o >= 0 ? o : g_f32_min.load(std::memory_order_relaxed);
}
double i8_min_macs() {
    const double o = g_override.load(std::memory_order_relaxed);
    return o >= 0 ? o : g_i8_min.load(std::memory_order_relaxed);
}

// ---- measuring the kernels' speed -------------------------------------------------------------
// A 4 x 256 x 64 GEMM (the smallest shape worth a split is of this order): static buffers, since
// the measurement runs inside set_threads and must not fail.
constexpr size_t kCalM = 4, kCalK = 256, kCalN = 64;
alignas(64) float g_cal_a[kCalM * kCalK];
alignas(64) float g_cal_b[kCalK * kCalN];
alignas(64) float g_cal_packed[kCalK * kCalN];  // kCalN is a whole number of panels of every width
alignas(64) float g_cal_c[kCalM * kCalN];
alignas(64) uint8_t g_cal_i8[kCalK / 2 * kCalN * 2 + kCalN * 8];  // packed_i8_size(kCalK, kCalN)

// Multiply-adds per second of `gemm` on the calibration shape: the best of a few calls.
template <class Gemm>
SF_COLD_CODE double macs_per_second(Gemm gemm) {
    double best = 1e30;
    for (int i = 0; i < 12; ++i) {
        const int64_t t0 = monotonic_ns();
        gemm();
        best = std::min(best, double(monotonic_ns() - t0) * 1e-9);
    }
    return double(kCalM * kCalK * kCalN) / std::max(best, 1e-9);
}

// The kernels are called through this file's entry points (below): set_threads measures before
// its pool exists, so they run on one thread, and they hold the kernels' dispatch already.
SF_COLD_CODE void measure_kernels(CutOver& cut) {
    for (size_t i = 0; i < kCalM * kCalK; ++i) g_cal_a[i] = float(int(i * 7 % 13) - 6) * 0.1f;
    for (size_t i = 0; i < kCalK * kCalN; ++i) g_cal_b[i] = float(int(i * 5 % 11) - 5) * 0.1f;
    kernels::pack_b(kCalK, kCalN, g_cal_b, kCalN, 1, g_cal_packed);
    cut.f32_macs_per_second = macs_per_second([] {
        gemm_f32_packed(kCalM, kCalN, kCalK, g_cal_a, kCalK, g_cal_packed, g_cal_c, kCalN);
    });
    if (kernels::packed_i8_size(kCalK, kCalN) > sizeof(g_cal_i8)) return;  // not reached: sized above
    kernels::pack_i8(kCalK, kCalN, g_cal_b, kCalN, 1, g_cal_i8);
    cut.i8_macs_per_second = macs_per_second([] {
        gemm_qd8_qc8w(kCalM, kCalN, kCalK, g_cal_a, kCalK, g_cal_i8, g_cal_c, kCalN);
    });
}

double macs_of(size_t m, size_t n, size_t k) {
    return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

// Column split over panels of width `nr`: gemm(col0, col1) computes columns [col0, col1) of a
// product of `macs` multiply-adds.
template <class Gemm>
void split_columns(size_t n, size_t nr, double macs, Gemm gemm) {
    parallel_for((n + nr - 1) / nr, [&](size_t p0, size_t p1) { gemm(p0 * nr, std::min(n, p1 * nr)); }, macs);
}

bool stays_on_one_thread(size_t m, size_t n, size_t k, double min_macs) {
    return threads() == 1 || in_parallel_task() || macs_of(m, n, k) < min_macs;
}

// The one-thread f32 product of columns [col0, col1): the GEMV for one row, else the GEMM.
void f32_columns(size_t m, size_t k, const float* a, size_t lda, const float* packed_b, float* c,
                 size_t ldc, const kernels::Epilogue& ep, size_t col0, size_t col1) {
    kernels::Epilogue e = ep;
    if (e.bias) e.bias += col0;
    if (e.residual) e.residual += col0;
    const float* b = packed_b + kernels::packed_b_offset(k, col0);
    if (m == 1) kernels::gemv_f32_packed(col1 - col0, k, a, b, c + col0, e);
    else kernels::gemm_f32_packed(m, col1 - col0, k, a, lda, b, c + col0, ldc, e);
}
}  // namespace

double cut_over_macs(double fork_join_seconds, double macs_per_second) {
    const double macs = kPayback * fork_join_seconds * macs_per_second;
    if (!(fork_join_seconds > 0) || !std::isfinite(macs)) return kParallelMinMacs;
    return std::clamp(macs, kMinCutOverMacs, kMaxCutOverMacs);
}

namespace {
// A fork-join cost that gives a cut-over no healthy pool has: measured while the machine was
// busy (too large), or no measurement at all.
bool looks_wrong(double fork_join_seconds, double macs_per_second) {
    const double macs = kPayback * fork_join_seconds * macs_per_second;
    return !(fork_join_seconds > 0) || !std::isfinite(macs) || macs > kMaxCutOverMacs;
}
}  // namespace

SF_COLD_CODE void calibrate_parallel_cut_over(double fork_join_seconds, MeasureFn measure_again) {
    LockGuard lock(g_cut_mutex);
    if (g_cut.f32_macs_per_second == 0) measure_kernels(g_cut);
    double f = fork_join_seconds;
    int measurements = 1;
    while (measure_again && measurements <= kForkJoinRetries && looks_wrong(f, g_cut.f32_macs_per_second)) {
        // A pause lets whatever had the cores (another process, the page's own start-up) go by.
        sleep_us(2000);
        const double again = measure_again();
        ++measurements;
        if (again > 0 && (!(f > 0) || again < f)) f = again;  // the smallest real measurement
    }
    g_cut.fork_join_seconds = f;
    g_cut.fork_join_measurements = measurements;
    g_cut.f32_min_macs = cut_over_macs(f, g_cut.f32_macs_per_second);
    g_cut.i8_min_macs = cut_over_macs(f, g_cut.i8_macs_per_second);
    g_f32_min = g_cut.f32_min_macs;
    g_i8_min = g_cut.i8_min_macs;
}

CutOver measured_cut_over() {
    LockGuard lock(g_cut_mutex);
    return g_cut;
}

double parallel_min_macs() { return f32_min_macs(); }
double set_parallel_min_macs(double macs) { return g_override.exchange(macs < 0 ? -1.0 : macs); }

void gemm_f32_packed(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* packed_b, float* c,
                     size_t ldc, const kernels::Epilogue& ep) {
    const size_t nr = kernels::gemm_panel_width();
    if (stays_on_one_thread(m, n, k, f32_min_macs())) return f32_columns(m, k, a, lda, packed_b, c, ldc, ep, 0, n);
    // A C narrower than one panel per thread (a classifier's few labels) is microseconds of
    // work: one thread (no row split: the threads build's size budget).
    if ((n + nr - 1) / nr < threads()) return f32_columns(m, k, a, lda, packed_b, c, ldc, ep, 0, n);
    // Column split: each thread streams its own share of the packed weights (the large operand)
    // and packs all of A (the small one) for itself.
    split_columns(n, nr, macs_of(m, n, k), [&](size_t col0, size_t col1) {
        f32_columns(m, k, a, lda, packed_b, c, ldc, ep, col0, col1);
    });
}

bool set_i8_quantize_once(bool on) { return g_i8_quantize_once.exchange(on); }

namespace {
// Rows of A one claim of the shared quantization phase takes: one tile of the int8 k-loops.
constexpr size_t kQuantizeRows = 4;

// The int8 column split with A quantized once: in chunks of rows whose quantized copy fits the
// pool's job scratch (all of A up to 128 tokens x 3072), each chunk one fork-join whose tasks
// first quantize the chunk's rows together (runtime::SharedPhase), then compute their panels from
// that copy. Each row is quantized as gemm_qd8_qc8w_cols would quantize it and every element
// sums exactly the same products, so C is bit-identical to the one-thread call. False, with
// nothing done, when the pool is not this call's to hold (see PoolLease).
bool split_columns_quantizing_once(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b,
                                   float* c, size_t ldc, const kernels::Epilogue& ep) {
    PoolLease pool;
    if (!pool) return false;
    const kernels::I8Kernel kernel = kernels::i8_kernel();  // read once: quantization and k-loop agree
    // k <= kQd8MaxK keeps a row under 128 KiB, so a chunk holds at least 4 rows.
    const size_t row_bytes = kernels::quantized_a_row_bytes(kernel, k);
    const size_t chunk = (kJobScratchBytes - 64) / row_bytes / kQuantizeRows * kQuantizeRows;
    if (chunk == 0) return false;
    const size_t nr = kernels::kI8PanelWidth;
    for (size_t row0 = 0; row0 < m; row0 += chunk) {
        const size_t rows = std::min(chunk, m - row0);
        const kernels::QuantizedA qa{kernel, rows, k, pool.scratch()};
        const float* a_rows = a + row0 * lda;
        kernels::Epilogue e = ep;
        if (e.residual) e.residual += row0 * e.ld_residual;
        SharedPhase quantize((rows + kQuantizeRows - 1) / kQuantizeRows);
        pool.run((n + nr - 1) / nr, [&](size_t p0, size_t p1) {
            quantize.run([&](size_t u) {
                kernels::quantize_a_rows(qa, a_rows, lda, u * kQuantizeRows, std::min(rows, (u + 1) * kQuantizeRows));
            });
            kernels::gemm_qd8_qc8w_quantized_cols(qa, n, packed_b, p0 * nr, std::min(n, p1 * nr), c + row0 * ldc, ldc, e);
        }, macs_of(rows, n, k));
    }
    return true;
}
}  // namespace

void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b, float* c,
                   size_t ldc, const kernels::Epilogue& ep) {
    if (stays_on_one_thread(m, n, k, i8_min_macs())) return kernels::gemm_qd8_qc8w(m, n, k, a, lda, packed_b, c, ldc, ep);
    // A C narrower than one panel per thread (a token classifier's few labels) is tens of
    // microseconds of work: one thread, as for f32 (the threads build's size budget).
    if ((n + kernels::kI8PanelWidth - 1) / kernels::kI8PanelWidth >= threads()) {
#if !defined(__EMSCRIPTEN__)  // the A/B of bench_kernels; wasm builds stay small (size budget)
        if (!g_i8_quantize_once.load(std::memory_order_relaxed)) {
            return split_columns(n, kernels::kI8PanelWidth, macs_of(m, n, k), [&](size_t col0, size_t col1) {
                kernels::gemm_qd8_qc8w_cols(m, n, k, a, lda, packed_b, col0, col1, c, ldc, ep);
            });
        }
#endif
        if (split_columns_quantizing_once(m, n, k, a, lda, packed_b, c, ldc, ep)) return;
    }
    // The pool is another caller's (parallel_for would run inline), or C is narrow.
    kernels::gemm_qd8_qc8w(m, n, k, a, lda, packed_b, c, ldc, ep);
}

}  // namespace simdformer::runtime
