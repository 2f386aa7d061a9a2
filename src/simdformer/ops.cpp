// ops.h: the single layers usable on their own, validating every argument: layer_norm() over
// caller arrays (no learned state) and LinearOp, the wrapper of a packed Linear layer.
#include "simdformer/ops.h"

#include <cmath>
#include <string>

#include "simdformer/buffer.h"
#include "simdformer/detail/validate.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

Status layer_norm(size_t rows, size_t d, const float* x, const float* gamma, const float* beta, float eps, float* y) {
    if (!x || !gamma || !beta || !y) return Status::invalid("layer_norm: x, gamma, beta and y are required");
    size_t n;
    if (rows == 0 || d == 0)
        return Status::invalid(cat({"layer_norm: rows=", rows, " and d=", d, " must be positive"}));
    if (!checked_mul(rows, d, &n) || n > kMaxBufferFloats)
        return Status::oom(cat({"layer_norm: rows=", rows, " x d=", d, " is too large"}));
    if (!(eps > 0.0f) || !std::isfinite(eps)) return Status::invalid("layer_norm: eps must be a positive number");
    SF_RETURN_IF_ERROR(check_finite(x, n, "layer_norm: x"));
    SF_RETURN_IF_ERROR(check_finite(gamma, d, "layer_norm: gamma"));
    SF_RETURN_IF_ERROR(check_finite(beta, d, "layer_norm: beta"));
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
        return Status::invalid(cat({"linear: in_features=", in_features, " and out_features=",
                                    out_features, " must be positive"}));
    size_t n;
    if (!checked_mul(in_features, out_features, &n) || n > kMaxBufferFloats) return Status::oom("linear: weight too large");
    SF_RETURN_IF_ERROR(check_finite(weight, n, "linear: weight"));
    if (bias) SF_RETURN_IF_ERROR(check_finite(bias, out_features, "linear: bias"));
    SF_ASSIGN_OR_RETURN(Linear l, Linear::from_data(weight, bias, in_features, out_features));
    LinearOp op;
    op.linear_ = std::make_unique<Linear>(std::move(l));
    return op;
}

Status LinearOp::forward(size_t rows, const float* x, float* y) const {
    if (!linear_) return Status::invalid("linear: not created");
    if (rows == 0 || !x || !y) return Status::invalid("linear: needs at least one input row");
    size_t n_in = 0, n_out = 0;
    if (!checked_mul(rows, linear_->in_features(), &n_in) || !checked_mul(rows, linear_->out_features(), &n_out) ||
        n_in > kMaxBufferFloats || n_out > kMaxBufferFloats)
        return Status::oom(cat({"linear: ", rows, " rows of ", linear_->in_features(),
                                " -> ", linear_->out_features(), " values are too large"}));
    SF_RETURN_IF_ERROR(check_finite(x, n_in, "linear: x"));
    linear_->forward(rows, x, linear_->in_features(), y, linear_->out_features());
    return Status::ok();
}

size_t LinearOp::in_features() const { return linear_ ? linear_->in_features() : 0; }
size_t LinearOp::out_features() const { return linear_ ? linear_->out_features() : 0; }

}  // namespace simdformer
