#include "simdformer/buffer.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace simdformer {
namespace {
std::atomic<size_t> g_live_bytes{0};
std::atomic<size_t> g_peak_bytes{0};

void add_live(size_t bytes) {
    const size_t now = g_live_bytes += bytes;
    size_t peak = g_peak_bytes.load();
    while (now > peak && !g_peak_bytes.compare_exchange_weak(peak, now)) {
    }
}
}  // namespace

Buffer::~Buffer() {
    if (data_) {
        g_live_bytes -= size_ * sizeof(float);
        std::free(data_);
    }
}

Buffer::Buffer(Buffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        Buffer old(std::move(*this));
        data_ = other.data_;
        size_ = other.size_;
        other.data_ = nullptr;
        other.size_ = 0;
    }
    return *this;
}

Result<Buffer> Buffer::zeros(size_t size, const char* what) { return allocate(size, what, true); }

Result<Buffer> Buffer::uninitialized(size_t size, const char* what) { return allocate(size, what, false); }

Result<Buffer> Buffer::allocate(size_t size, const char* what, bool zero) {
    Buffer b;
    if (size == 0) return b;
    if (size > kMaxBufferFloats) {
        return Status::oom(cat({what, ": ", size,
                                " floats exceed the per-buffer limit of ", kMaxBufferFloats}));
    }
    const size_t bytes = round_up(size * sizeof(float), kAlignBytes);
    void* p = std::aligned_alloc(kAlignBytes, bytes);
    if (!p) {
        return Status::oom(cat({what, ": cannot allocate ", bytes, " bytes"}));
    }
    if (zero) std::memset(p, 0, bytes);
    b.data_ = static_cast<float*>(p);
    b.size_ = size;
    add_live(size * sizeof(float));
    return b;
}

size_t Buffer::live_bytes() { return g_live_bytes.load(); }
size_t Buffer::peak_live_bytes() { return g_peak_bytes.load(); }
void Buffer::reset_peak_live_bytes() { g_peak_bytes = g_live_bytes.load(); }

}  // namespace simdformer
