// The bytes malloc holds for its callers now (counted_malloc.cpp: the one-thread modules).
#pragma once

#include <cstddef>

size_t simdformer_counted_malloc_bytes();
