// layer_norm(): the public, validating LayerNorm over caller arrays (no learned state).
#include <cmath>
#include <string>

#include "simdformer/buffer.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/ops.h"
#include "simdformer/detail/validate.h"

namespace simdformer {

Status layer_norm(size_t rows, size_t d, const float* x, const float* gamma, const float* beta, float eps, float* y) {
    if (!x || !gamma || !beta || !y) return Status::invalid("layer_norm: x, gamma, beta and y are required");
    size_t n;
    if (rows == 0 || d == 0 || !checked_mul(rows, d, &n) || n > kMaxBufferFloats)
        return Status::invalid("layer_norm: rows=" + std::to_string(rows) + " and d=" + std::to_string(d) + " must be positive");
    if (!(eps > 0.0f) || !std::isfinite(eps)) return Status::invalid("layer_norm: eps must be a positive number");
    SF_RETURN_IF_ERROR(check_finite(x, n, "layer_norm: x"));
    SF_RETURN_IF_ERROR(check_finite(gamma, d, "layer_norm: gamma"));
    SF_RETURN_IF_ERROR(check_finite(beta, d, "layer_norm: beta"));
    kernels::layernorm_rows_f32(rows, d, x, d, gamma, beta, eps, y, d);
    return Status::ok();
}

}  // namespace simdformer
