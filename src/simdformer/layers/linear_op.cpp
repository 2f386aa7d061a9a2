// LinearOp: the public, validating wrapper of a Linear layer.
#include <string>

#include "simdformer/layers/linear.h"
#include "simdformer/ops.h"
#include "simdformer/detail/validate.h"

namespace simdformer {

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
    linear_->forward(rows, x, linear_->in_features(), y, linear_->out_features());
    return Status::ok();
}

size_t LinearOp::in_features() const { return linear_ ? linear_->in_features() : 0; }
size_t LinearOp::out_features() const { return linear_ ? linear_->out_features() : 0; }

}  // namespace simdformer
