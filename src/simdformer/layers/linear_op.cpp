#include <cmath>
#include <string>

#include "simdformer/kernels/kernels.h"
#include "simdformer/layers/linear.h"
#include "simdformer/ops.h"

namespace simdformer {

Status layer_norm(size_t rows, size_t d, const float* x, const float* gamma, const float* beta, float eps, float* y) {
    if (!x || !gamma || !beta || !y) return Status::invalid("layer_norm: x, gamma, beta and y are required");
    size_t n;
    if (rows == 0 || d == 0 || !checked_mul(rows, d, &n) || n > kMaxBufferFloats)
        return Status::invalid("layer_norm: rows=" + std::to_string(rows) + " and d=" + std::to_string(d) + " must be positive");
    if (!(eps > 0.0f) || !std::isfinite(eps)) return Status::invalid("layer_norm: eps must be a positive number");
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) return Status::invalid("layer_norm: x holds a non-finite value at element " + std::to_string(i));
    for (size_t i = 0; i < d; ++i)
        if (!std::isfinite(gamma[i]) || !std::isfinite(beta[i]))
            return Status::invalid("layer_norm: gamma/beta hold a non-finite value at element " + std::to_string(i));
    kernels::layernorm_rows_f32(rows, d, x, d, gamma, beta, eps, y, d);
    return Status::ok();
}

LinearOp::LinearOp() = default;
LinearOp::~LinearOp() = default;
LinearOp::LinearOp(LinearOp&&) noexcept = default;
LinearOp& LinearOp::operator=(LinearOp&&) noexcept = default;

Result<LinearOp> LinearOp::create(const float* weight, const float* bias, size_t in_features, size_t out_features) {
    if (!weight) return Status::invalid("linear: weight is missing");
    if (in_features == 0 || out_features == 0)
        return Status::invalid("linear: in_features=" + std::to_string(in_features) + " and out_features=" +
                               std::to_string(out_features) + " must be positive");
    size_t n;
    if (!checked_mul(in_features, out_features, &n) || n > kMaxBufferFloats) return Status::oom("linear: weight too large");
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(weight[i])) return Status::invalid("linear: weight holds a non-finite value at element " + std::to_string(i));
    for (size_t i = 0; bias && i < out_features; ++i)
        if (!std::isfinite(bias[i])) return Status::invalid("linear: bias holds a non-finite value at element " + std::to_string(i));
    SF_ASSIGN_OR_RETURN(Linear l, Linear::from_data(weight, bias, in_features, out_features));
    LinearOp op;
    op.linear_ = std::make_unique<Linear>(std::move(l));
    return op;
}

Status LinearOp::forward(size_t rows, const float* x, float* y) const {
    if (!linear_) return Status::invalid("linear: not created");
    if (rows == 0 || !x || !y) return Status::invalid("linear: needs at least one input row");
    linear_->forward(rows, x, linear_->in_features(), y, linear_->out_features());
    return Status::ok();
}

size_t LinearOp::in_features() const { return linear_ ? linear_->in_features() : 0; }
size_t LinearOp::out_features() const { return linear_ ? linear_->out_features() : 0; }

}  // namespace simdformer
