// How many heap allocations a piece of code makes: the proof that forward passes and decoding
// steps on a warm workspace allocate nothing. A test binary gets this by linking
// allocation_count.cpp, which replaces the global operator new / delete.
#pragma once

#include <cstddef>

namespace simdformer::test {

void begin_counting_allocations();  // this thread only; resets the count
size_t end_counting_allocations();  // the operator-new calls since begin

// Runs body() and returns how many allocations this thread made while it ran.
template <class Body>
size_t allocations_during(Body&& body) {
    begin_counting_allocations();
    body();
    return end_counting_allocations();
}

}  // namespace simdformer::test
