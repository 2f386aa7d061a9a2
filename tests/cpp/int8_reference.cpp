#include "int8_reference.h"

#include <algorithm>
#include <cmath>

#include "simdformer/kernels/reference.h"

namespace simdformer::test::int8ref {
namespace {

// The epilogue in double: act(alpha * sum + bias) + residual.
float epilogue(const kernels::Epilogue& ep, size_t i, size_t j, double sum) {
    double x = double(ep.alpha) * sum + (ep.bias ? double(ep.bias[j]) : 0.0);
    x = kernels::ref::activation(ep.activation, x);
    if (ep.residual) x += double(ep.residual[i * ep.ld_residual + j]);
    return float(x);
}

}  // namespace

QuantizedWeight quantize_weight(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride) {
    QuantizedWeight w;
    w.k = k;
    w.n = n;
    w.q.assign(k * n, 0);
    w.scale.assign(n, 0.0f);
    for (size_t j = 0; j < n; ++j) {
        float absmax = 0.0f;
        for (size_t p = 0; p < k; ++p) absmax = std::max(absmax, std::fabs(b[p * row_stride + j * col_stride]));
        const float scale = absmax / 127.0f;
        w.scale[j] = scale;
        if (scale == 0.0f) continue;
        for (size_t p = 0; p < k; ++p) {
            const float q = std::nearbyint(b[p * row_stride + j * col_stride] / scale);  // half to even
            w.q[p * n + j] = int8_t(std::clamp(q, -127.0f, 127.0f));
        }
    }
    return w;
}

QuantizedRow quantize_row(size_t k, const float* x, int levels) {
    QuantizedRow r;
    r.centered.assign(k, 0);
    float lo = 0.0f, hi = 0.0f;
    for (size_t i = 0; i < k; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    if (hi == lo) return r;
    const float top = float(levels);
    const float inv = top / (hi - lo);
    r.scale = (hi - lo) / top;
    r.zero = int32_t(std::clamp(std::nearbyint(-lo * inv), 0.0f, top));
    for (size_t i = 0; i < k; ++i) {
        const float q = std::clamp(std::nearbyint(x[i] * inv) + float(r.zero), 0.0f, top);
        r.centered[i] = int16_t(int32_t(q) - r.zero);
    }
    return r;
}

QuantizedRow quantize_row_symmetric(size_t k, const float* x) {
    QuantizedRow r;
    r.centered.assign(k, 0);
    float absmax = 0.0f;
    for (size_t i = 0; i < k; ++i) absmax = std::max(absmax, std::fabs(x[i]));
    if (absmax == 0.0f) return r;
    r.scale = absmax / 127.0f;
    for (size_t i = 0; i < k; ++i) r.centered[i] = int16_t(std::clamp(std::nearbyint(x[i] / r.scale), -127.0f, 127.0f));
    return r;
}

void gemm_f32_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                   size_t ldc, const kernels::Epilogue& ep) {
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
            double sum = 0;
            for (size_t p = 0; p < k; ++p) sum += double(a[i * lda + p]) * double(w.q[p * n + j]);
            c[i * ldc + j] = epilogue(ep, i, j, sum * double(w.scale[j]));
        }
}

void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                   size_t ldc, const kernels::Epilogue& ep) {
    gemm_qd8_qc8w_levels(m, n, k, a, lda, w, c, ldc, ep, 255);
}

void gemm_q7_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                  size_t ldc, const kernels::Epilogue& ep) {
    gemm_qd8_qc8w_levels(m, n, k, a, lda, w, c, ldc, ep, 127);
}

void gemm_qd8_qc8w_levels(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                          size_t ldc, const kernels::Epilogue& ep, int levels) {
    for (size_t i = 0; i < m; ++i) {
        const QuantizedRow r = quantize_row(k, a + i * lda, levels);
        for (size_t j = 0; j < n; ++j) {
            double sum = 0;
            for (size_t p = 0; p < k; ++p) sum += double(r.centered[p]) * double(w.q[p * n + j]);
            c[i * ldc + j] = epilogue(ep, i, j, sum * double(r.scale) * double(w.scale[j]));
        }
    }
}

}  // namespace simdformer::test::int8ref
