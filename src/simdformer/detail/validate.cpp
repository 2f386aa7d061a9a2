#include "simdformer/detail/validate.h"

#include <cmath>
#include <string>

#include "simdformer/io/number_text.h"

namespace simdformer {

Status check_finite(const float* x, size_t n, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]))
            return Status::invalid(cat({what, " holds a non-finite value (", nonfinite_text(x[i]),
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

Status check_ids(const int32_t* ids, size_t n, size_t limit, const char* what, const char* kind, const char* range) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || size_t(ids[i]) >= limit)
            return Status::invalid(cat({what, kind, " ", ids[i], " at index ", i, " is outside ", range, "[0, ", limit, ")"}));
    return Status::ok();
}

Status check_workspace_limit(size_t n, size_t limit, const char* what, const char* sep) {
    if (n > limit) return Status::invalid(cat({what, sep, n, " exceeds the workspace's limit of ", limit}));
    return Status::ok();
}

}  // namespace simdformer
