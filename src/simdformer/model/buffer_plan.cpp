#include "simdformer/model/buffer_plan.h"

namespace simdformer::detail {

size_t BufferPlan::product(std::initializer_list<size_t> sizes) {
    size_t p = 1;
    for (size_t s : sizes)
        if (!checked_mul(p, s, &p)) overflow_ = true;
    return overflow_ ? 0 : p;
}

// a + b, or 0 when it does not fit in size_t (wasm32: 2^31 + 2^31 is 0).
size_t BufferPlan::sum(size_t a, size_t b) {
    if (a > SIZE_MAX - b) overflow_ = true;
    return overflow_ ? 0 : a + b;
}

void BufferPlan::add(Buffer* buffer, size_t floats, const char* what) {
    if (floats > kMaxBufferFloats) overflow_ = true;
    total_ = sum(total_, floats);
    if (total_ > kMaxBufferFloats * 2) overflow_ = true;
    entries_.push_back({buffer, floats, what});
}

bool BufferPlan::too_large() const { return overflow_; }

size_t BufferPlan::total_floats() const { return overflow_ ? 0 : total_; }

Status BufferPlan::allocate() const {
    for (const Entry& e : entries_) {
        SF_ASSIGN_OR_RETURN(*e.buffer, Buffer::zeros(e.floats, e.what));
    }
    return Status::ok();
}

}  // namespace simdformer::detail
