// How many threads simdformer computes with. The setting is process-wide (one pool serves every
// model) and starts at 1: no worker thread exists until set_threads(n > 1) is called. Results
// are bit-for-bit identical for every thread count.
//
//   simdformer::set_threads(4);   // GEMMs split across 4 threads from now on
//   simdformer::set_threads(1);   // workers stopped and joined
#pragma once

#include <cstddef>

#include "simdformer/status.h"

namespace simdformer {

// False in builds without threads (SIMDFORMER_THREADS=OFF, e.g. the plain wasm builds).
bool threads_supported();
// Fails with `unsupported` in a build without threads, `invalid_argument` for 0 or more than
// 64, `out_of_memory` when a worker cannot be started (the previous setting stays). Not to be
// called while another thread is running a forward pass.
Status set_threads(size_t n_threads);
size_t threads();
// Logical CPUs the system reports (std::thread::hardware_concurrency), at least 1.
size_t hardware_threads();

}  // namespace simdformer
