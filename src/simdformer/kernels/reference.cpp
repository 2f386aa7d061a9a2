// Scalar, double-accumulating twins of every kernel: the oracle the tests compare against.
// Written for obviousness, not speed.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "simdformer/kernels/reference.h"

namespace simdformer::kernels::ref {
namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}

double activation(Activation act, double x) {
    switch (act) {
        case Activation::kNone: return x;
        case Activation::kRelu: return x > 0 ? x : 0;
        case Activation::kGeluErf: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        case Activation::kGeluTanh: {
            const double c = std::sqrt(2.0 / M_PI);
            return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
        }
        case Activation::kTanh: return std::tanh(x);
        case Activation::kSilu: return x / (1.0 + std::exp(-x));
        case Activation::kQuickGelu: return x / (1.0 + std::exp(-1.702 * x));
        case Activation::kGeluClip10: return std::min(std::max(activation(Activation::kGeluErf, x), -10.0), 10.0);
        case Activation::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
        case Activation::kRelu6: return std::min(std::max(x, 0.0), 6.0);
        case Activation::kRelu2: return x > 0 ? x * x : 0;
        case Activation::kLeakyRelu: return x > 0 ? x : 0.01 * x;
        case Activation::kMish: return x > 20 ? x : x * std::tanh(std::log1p(std::exp(x)));
        case Activation::kLaplace: return 0.5 * (1.0 + std::erf((x - 0.707107) / (0.282095 * std::sqrt(2.0))));
    }
    return x;
}

void gemm_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t row_stride,
              size_t col_stride, float* c, size_t ldc, const Epilogue& ep) {
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) {
            double acc = 0;
            for (size_t p = 0; p < k; ++p) acc += double(a[i * lda + p]) * double(b[p * row_stride + j * col_stride]);
            double x = double(ep.alpha) * acc + (ep.bias ? double(ep.bias[j]) : 0.0);
            x = activation(ep.activation, x);
            if (ep.residual) x += double(ep.residual[i * ep.ld_residual + j]);
            c[i * ldc + j] = float(x);
        }
    }
}

void dot_rows_f32(size_t n, size_t d, const float* x, const float* rows, size_t ld, float alpha, float* out) {
    for (size_t j = 0; j < n; ++j) {
        double acc = 0;
        for (size_t p = 0; p < d; ++p) acc += double(x[p]) * double(rows[j * ld + p]);
        out[j] = float(double(alpha) * acc);
    }
}

void weighted_sum_rows_f32(size_t n, size_t d, const float* w, const float* rows, size_t ld, float* out) {
    for (size_t p = 0; p < d; ++p) {
        double acc = 0;
        for (size_t j = 0; j < n; ++j) acc += double(w[j]) * double(rows[j * ld + p]);
        out[p] = float(acc);
    }
}

void mask_scores_f32(size_t rows, size_t cols, float* scores, size_t ld, const uint8_t* key_padding,
                     const float* additive, size_t ld_add, bool causal, size_t causal_offset) {
    for (size_t i = 0; i < rows; ++i) {
        for (size_t j = 0; j < cols; ++j) {
            float& s = scores[i * ld + j];
            if (additive) s += additive[i * ld_add + j];
            if ((key_padding && key_padding[j]) || (causal && j > i + causal_offset)) s = kNegInf;
        }
    }
}

void additive_scores_f32(size_t n, size_t m, size_t d_a, const float* pq, size_t ldq, const float* pk,
                         size_t ldk, const float* w, float* scores, size_t lds) {
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < m; ++j) {
            double acc = 0;
            for (size_t a = 0; a < d_a; ++a)
                acc += double(w[a]) * std::tanh(double(pq[i * ldq + a]) + double(pk[j * ldk + a]));
            scores[i * lds + j] = float(acc);
        }
}

void softmax_rows_f32(size_t rows, size_t cols, float* x, size_t ld) {
    for (size_t i = 0; i < rows; ++i) {
        float* r = x + i * ld;
        double max = -INFINITY;
        for (size_t j = 0; j < cols; ++j) max = std::fmax(max, double(r[j]));
        if (max == -INFINITY) {
            for (size_t j = 0; j < cols; ++j) r[j] = 0;
            continue;
        }
        std::vector<double> e(cols);
        double sum = 0;
        for (size_t j = 0; j < cols; ++j) sum += e[j] = std::exp(double(r[j]) - max);
        for (size_t j = 0; j < cols; ++j) r[j] = float(e[j] / sum);
    }
}

void relu_normalize_rows_f32(size_t rows, size_t cols, float* x, size_t ld) {
    for (size_t i = 0; i < rows; ++i) {
        float* r = x + i * ld;
        size_t valid = 0;
        for (size_t j = 0; j < cols; ++j) valid += r[j] != kNegInf;
        for (size_t j = 0; j < cols; ++j) r[j] = valid ? float(std::fmax(double(r[j]), 0.0) / double(valid)) : 0.0f;
    }
}

void layernorm_rows_f32(size_t rows, size_t d, const float* x, size_t ldx, const float* gamma,
                        const float* beta, float eps, float* y, size_t ldy) {
    for (size_t i = 0; i < rows; ++i) {
        double mean = 0, var = 0;
        for (size_t j = 0; j < d; ++j) mean += x[i * ldx + j];
        mean /= double(d);
        for (size_t j = 0; j < d; ++j) var += (x[i * ldx + j] - mean) * (x[i * ldx + j] - mean);
        var /= double(d);
        const double rstd = 1.0 / std::sqrt(var + double(eps));
        for (size_t j = 0; j < d; ++j)
            y[i * ldy + j] = float((x[i * ldx + j] - mean) * rstd * gamma[j] + beta[j]);
    }
}

void activation_f32(Activation act, size_t n, const float* x, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = float(activation(act, x[i]));
}

void add_f32(size_t n, const float* a, const float* b, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = float(double(a[i]) + double(b[i]));
}

void scale_f32(size_t n, float alpha, const float* x, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = float(double(alpha) * double(x[i]));
}

}  // namespace simdformer::kernels::ref
