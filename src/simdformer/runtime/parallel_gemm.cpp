#include "simdformer/runtime/parallel_gemm.h"

#include <algorithm>
#include <atomic>

#include "simdformer/runtime/thread_pool.h"

namespace simdformer::runtime {
namespace {
constexpr size_t kRowGrain = 4;  // rows per task in a row split: the micro-kernel's tile height
std::atomic<double> g_min_macs{kParallelMinMacs};

// Row split, shared by both weight formats: gemm(rows, a, c, epilogue) runs on tasks of kRowGrain
// rows of A and C, with the epilogue's residual moved to the task's first row.
template <class Gemm>
void split_rows(size_t m, const float* a, size_t lda, float* c, size_t ldc, const kernels::Epilogue& ep, Gemm gemm) {
    parallel_for((m + kRowGrain - 1) / kRowGrain, [&](size_t t0, size_t t1) {
        const size_t row0 = t0 * kRowGrain, row1 = std::min(m, t1 * kRowGrain);
        kernels::Epilogue e = ep;
        if (e.residual) e.residual += row0 * e.ld_residual;
        gemm(row1 - row0, a + row0 * lda, c + row0 * ldc, e);
    });
}
}  // namespace

double parallel_min_macs() { return g_min_macs.load(std::memory_order_relaxed); }
double set_parallel_min_macs(double macs) { return g_min_macs.exchange(macs); }

void gemm_f32_packed(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* packed_b, float* c,
                     size_t ldc, const kernels::Epilogue& ep) {
    const size_t n_threads = threads();
    const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    if (n_threads == 1 || in_parallel_task() || macs < parallel_min_macs()) {
        kernels::gemm_f32_packed(m, n, k, a, lda, packed_b, c, ldc, ep);
        return;
    }
    const size_t nr = kernels::gemm_panel_width();
    const size_t panels = (n + nr - 1) / nr;
    if (panels >= n_threads) {
        // Column split: each thread streams its own share of the packed weights (the large
        // operand) and packs all of A (the small one) for itself.
        parallel_for(panels, [&](size_t p0, size_t p1) {
            const size_t col0 = p0 * nr, col1 = std::min(n, p1 * nr);
            kernels::Epilogue e = ep;
            if (e.bias) e.bias += col0;
            if (e.residual) e.residual += col0;
            kernels::gemm_f32_packed(m, col1 - col0, k, a, lda, packed_b + kernels::packed_b_offset(k, col0),
                                     c + col0, ldc, e);
        });
        return;
    }
    // Row split (narrow C): tasks of kRowGrain rows.
    split_rows(m, a, lda, c, ldc, ep, [&](size_t rows, const float* a_rows, float* c_rows, const kernels::Epilogue& e) {
        kernels::gemm_f32_packed(rows, n, k, a_rows, lda, packed_b, c_rows, ldc, e);
    });
}

void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b, float* c,
                   size_t ldc, const kernels::Epilogue& ep) {
    const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    if (threads() == 1 || in_parallel_task() || m < 2 * kRowGrain || macs < parallel_min_macs()) {
        kernels::gemm_qd8_qc8w(m, n, k, a, lda, packed_b, c, ldc, ep);
        return;
    }
    // Row split only: every thread streams all the (4x smaller) int8 weights, and a column split
    // would need the int8 panel layout here.
    split_rows(m, a, lda, c, ldc, ep, [&](size_t rows, const float* a_rows, float* c_rows, const kernels::Epilogue& e) {
        kernels::gemm_qd8_qc8w(rows, n, k, a_rows, lda, packed_b, c_rows, ldc, e);
    });
}

}  // namespace simdformer::runtime
