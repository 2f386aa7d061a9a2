#include "simdformer/detail/validate.h"

#include <cmath>
#include <string>

namespace simdformer {

Status check_finite(const float* x, size_t n, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]))
            return Status::invalid(cat({what, " holds a non-finite value (", std::to_string(x[i]),
                                        ") at element ", i}));
    return Status::ok();
}

Status check_additive_mask(const float* m, size_t n, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (std::isnan(m[i]) || m[i] == INFINITY)
            return Status::invalid(cat({what, " holds ", (std::isnan(m[i]) ? "NaN" : "+Infinity"),
                                        " at element ", i, " (allowed: finite values and -Infinity)"}));
    return Status::ok();
}

}  // namespace simdformer
