// Buffer: an owning, 64-byte aligned float array. Allocation is checked and reported as a
// Status instead of aborting, so a model too large for wasm memory becomes a clear error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/status.h"

namespace simdformer {

constexpr size_t kAlignBytes = 64;

// Hard limit on one allocation (in floats). wasm32 cannot address more than 4 GiB anyway;
// the limit turns absurd sizes from a hostile file into an error before malloc sees them.
constexpr size_t kMaxBufferFloats = size_t{1} << 29;  // 2 GiB of float32

inline size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

// a * b, or false when it overflows size_t.
inline bool checked_mul(size_t a, size_t b, size_t* out) {
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}

class Buffer {
public:
    Buffer() = default;
    ~Buffer();
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    // A zero-filled buffer of `size` floats; `what` names it in the error message.
    static Result<Buffer> zeros(size_t size, const char* what);
    // The same without the fill, for buffers the caller overwrites completely (weights being
    // converted or packed at load), so loading does not write every weight twice.
    static Result<Buffer> uninitialized(size_t size, const char* what);

    float* data() { return data_; }
    const float* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    // Total bytes held by all live Buffers in this process (for leak and memory tests).
    static size_t live_bytes();
    // The most live_bytes() has been since the last reset (a load's peak: weights + staging).
    static size_t peak_live_bytes();
    static void reset_peak_live_bytes();

private:
    static Result<Buffer> allocate(size_t size, const char* what, bool zero);

    float* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace simdformer
