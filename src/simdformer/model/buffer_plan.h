// A workspace's buffers, planned before any is allocated: each runner lists the buffers one call
// of its family can touch with their sizes in floats; the plan checks every product and the total
// against simdformer's limits (a hostile length is an error, never a wrapped size), then
// allocates them all or none.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "simdformer/buffer.h"

namespace simdformer::detail {

class BufferPlan {
public:
    // Checked arithmetic: an overflow marks the plan as too large (and the result is 0).
    size_t product(std::initializer_list<size_t> sizes);
    size_t sum(size_t a, size_t b);

    void add(Buffer* buffer, size_t floats, const char* what);
    bool too_large() const;
    size_t total_floats() const;  // 0 when too_large()
    // Allocates every planned buffer, zero-filled; a failure is out_of_memory naming the buffer.
    Status allocate() const;

private:
    struct Entry {
        Buffer* buffer;
        size_t floats;
        const char* what;
    };
    std::vector<Entry> entries_;
    size_t total_ = 0;
    bool overflow_ = false;
};

}  // namespace simdformer::detail
