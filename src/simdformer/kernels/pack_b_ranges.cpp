// Packing a GEMM B operand piece by piece, so a weight can stream from a file straight into its
// packed panels (no full-size unpacked copy), and reading one column back out of the panels
// (an embedding table stored only in packed form serves both as lookup table and as the tied
// output projection). The layout is pack_b's: panel p holds columns [p*w, p*w + w) (w =
// gemm_panel_width()), k-major, at packed + p * k * w.
#include <algorithm>

#include "simdformer/kernels/kernels.h"

namespace simdformer::kernels {

void pack_b_columns(size_t k, size_t j0, size_t n_cols, const float* b, size_t row_stride, size_t col_stride,
                    float* packed) {
    const size_t w = gemm_panel_width();
    // Whole panels starting at panel j0 / w: pack_b of the sub-operand writes exactly them.
    pack_b(k, n_cols, b, row_stride, col_stride, packed + (j0 / w) * k * w);
}

void pack_b_rows(size_t k, size_t n, size_t p0, size_t n_rows, const float* b, size_t row_stride, size_t col_stride,
                 float* packed) {
    const size_t w = gemm_panel_width();
    for (size_t j0 = 0; j0 < n; j0 += w) {
        // Rows [p0, p0 + n_rows) of one panel are contiguous: one narrow pack_b per panel.
        const size_t width = std::min(w, n - j0);
        pack_b(n_rows, width, b + j0 * col_stride, row_stride, col_stride, packed + (j0 / w) * k * w + p0 * w);
    }
}

void packed_b_column(size_t k, const float* packed, size_t j, float* out) {
    const size_t w = gemm_panel_width();
    const float* panel = packed + (j / w) * k * w + j % w;
    for (size_t p = 0; p < k; ++p) out[p] = panel[p * w];
}

}  // namespace simdformer::kernels
