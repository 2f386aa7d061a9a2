// The wasm modules' malloc: emmalloc underneath (-sMALLOC=emmalloc, about 3 KB gzip smaller
// than dlmalloc), with an exact count of the bytes the callers asked for and have not freed.
// That count is mallocBytes, what the leak tests compare before and after a call. emmalloc's own
// mallinfo() cannot serve: it counts whole regions, and a block freed and asked for again with
// the same size can come back in a region a few bytes larger (a tail too small to split off stays
// in it), so the same live blocks could read as a different number.
//
// Each block carries a header of `alignment` bytes (16 at least) in front of the caller's
// pointer; its last 8 bytes hold the size asked for and the alignment, so free() finds the
// region's start again. Every entry point of the C allocator that emmalloc defines weakly is
// defined here, so no pointer of one kind reaches the other's free.
//
// Emscripten's runtime also allocates past malloc: its emscripten_builtin_malloc / _memalign /
// _free are strong aliases of emmalloc's own functions, and the threads module uses them across
// kinds (pthread_create mallocs a thread's block, stack and key table with malloc, and the main
// thread frees them with emscripten_builtin_free when the thread has been joined; a thread's TLS
// block comes from emscripten_builtin_memalign). The link wraps those three symbols
// (-Wl,--wrap=..., bindings/CMakeLists.txt) onto the functions at the end of this file, so every
// block the runtime hands out or takes back goes through the same header and the same count:
// a joined pthread leaves mallocBytes where it was before the thread started. (musl's own
// __libc_malloc / __libc_free, used in pairs by atexit and the locale code, stay emmalloc's.)
// The count is atomic: in the threads module workers allocate and free too.
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "counted_malloc.h"

extern "C" {
void* emmalloc_memalign(size_t alignment, size_t size);
void emmalloc_free(void* ptr);
}

namespace {

constexpr size_t kMinAlignment = 16;  // alignof(max_align_t) in wasm32, and room for the header
std::atomic<size_t> g_bytes{0};       // lowered to plain loads and stores without -pthread

struct Header {
    uint32_t size;       // what the caller asked for
    uint32_t alignment;  // the header's length: the region starts this many bytes before
};

Header* header_of(void* user) { return static_cast<Header*>(user) - 1; }

void* allocate(size_t alignment, size_t size) {
    if (alignment < kMinAlignment) alignment = kMinAlignment;
    if ((alignment & (alignment - 1)) != 0 || size > UINT32_MAX - alignment) {
        errno = ENOMEM;
        return nullptr;
    }
    char* base = static_cast<char*>(emmalloc_memalign(alignment, size + alignment));
    if (base == nullptr) {
        errno = ENOMEM;
        return nullptr;
    }
    void* user = base + alignment;
    *header_of(user) = Header{uint32_t(size), uint32_t(alignment)};
    g_bytes.fetch_add(size, std::memory_order_relaxed);
    return user;
}

void release(void* user) {
    if (user == nullptr) return;
    const Header h = *header_of(user);
    g_bytes.fetch_sub(h.size, std::memory_order_relaxed);
    emmalloc_free(static_cast<char*>(user) - h.alignment);
}

}  // namespace

size_t simdformer_counted_malloc_bytes() { return g_bytes.load(std::memory_order_relaxed); }

extern "C" {

void* malloc(size_t size) { return allocate(kMinAlignment, size); }

void free(void* ptr) { release(ptr); }

void* calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return nullptr;
    }
    void* p = allocate(kMinAlignment, count * size);
    if (p != nullptr) std::memset(p, 0, count * size);
    return p;
}

// Always a new block and a copy: nothing here reallocates often enough to need growth in place.
void* realloc(void* ptr, size_t size) {
    if (ptr == nullptr) return allocate(kMinAlignment, size);
    void* p = allocate(kMinAlignment, size);
    if (p == nullptr) return nullptr;  // the old block stays valid, as the C standard says
    const size_t old = header_of(ptr)->size;
    std::memcpy(p, ptr, old < size ? old : size);
    release(ptr);
    return p;
}

void* memalign(size_t alignment, size_t size) { return allocate(alignment, size); }

void* aligned_alloc(size_t alignment, size_t size) { return allocate(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
    if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void* p = allocate(alignment, size);
    if (p == nullptr) return ENOMEM;
    *out = p;
    return 0;
}

size_t malloc_usable_size(void* ptr) { return ptr == nullptr ? 0 : header_of(ptr)->size; }

// The runtime's own entry points, through -Wl,--wrap (above): the same blocks as malloc's.
void* __wrap_emscripten_builtin_malloc(size_t size) { return allocate(kMinAlignment, size); }

void* __wrap_emscripten_builtin_memalign(size_t alignment, size_t size) { return allocate(alignment, size); }

void __wrap_emscripten_builtin_free(void* ptr) { release(ptr); }

}  // extern "C"
