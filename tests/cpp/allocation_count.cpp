// Replaces the global operator new / delete of the test binary that links it, counting the calls
// made by a thread between begin_counting_allocations() and end_counting_allocations().
#include "allocation_count.h"

#include <cstdlib>
#include <new>

namespace {
thread_local bool g_counting = false;
thread_local size_t g_allocations = 0;
}  // namespace

void* operator new(size_t n) {
    if (g_counting) ++g_allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace simdformer::test {

void begin_counting_allocations() {
    g_allocations = 0;
    g_counting = true;
}

size_t end_counting_allocations() {
    g_counting = false;
    return g_allocations;
}

}  // namespace simdformer::test
