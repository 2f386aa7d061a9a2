// Single layers usable on their own (also bound to JavaScript): a Linear layer with PyTorch's
// weight layout, packed once for the GEMM micro-kernel.
#pragma once

#include <cstddef>
#include <memory>

#include "simdformer/status.h"

namespace simdformer {

class Linear;

// y = (x - mean) / sqrt(var + eps) * gamma + beta over the last dimension (nn.LayerNorm).
// x, y [rows, d] (y may equal x); gamma, beta [d]. Validates sizes and finiteness.
Status layer_norm(size_t rows, size_t d, const float* x, const float* gamma, const float* beta, float eps, float* y);

// y = x Wᵀ + b with W [out_features, in_features] (nn.Linear).
class LinearOp {
public:
    LinearOp();
    ~LinearOp();
    LinearOp(LinearOp&&) noexcept;
    LinearOp& operator=(LinearOp&&) noexcept;

    static Result<LinearOp> create(const float* weight, const float* bias /* or null */, size_t in_features,
                                   size_t out_features);
    // x [rows, in_features] -> y [rows, out_features]; y must not alias x.
    Status forward(size_t rows, const float* x, float* y) const;
    size_t in_features() const;
    size_t out_features() const;

private:
    std::unique_ptr<Linear> linear_;
};

}  // namespace simdformer
