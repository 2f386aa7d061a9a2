#include "memory.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <new>

#include "simdformer/buffer.h"

// The addon is linked with --wrap=aligned_alloc (bindings/CMakeLists.txt): every aligned_alloc
// of the core (Buffer::allocate, the only caller) comes here first, so the test limit also makes
// tensor buffers fail as a full wasm heap would.
extern "C" void* __real_aligned_alloc(size_t alignment, size_t size);
extern "C" void* __wrap_aligned_alloc(size_t alignment, size_t size) {
    if (!simdformer::node_addon::allocation_allowed(size)) return nullptr;
    return __real_aligned_alloc(alignment, size);
}

namespace simdformer::node_addon {
namespace {

// The largest block JavaScript may ask for: wasm32's malloc limit, so both backends refuse the
// same sizes (heap.mjs checks it first).
constexpr uint64_t kMaxBlock = (uint64_t{1} << 32) - 1;

// Guarded by the addon's call lock (addon.cpp): every entry into this file holds it.
std::map<uint64_t, size_t>& blocks() {
    static std::map<uint64_t, size_t> b;
    return b;
}
size_t g_js_bytes = 0;
size_t g_high_water = 0;
uint64_t g_limit = 0;
struct Window {
    uint64_t begin, bytes;
};
// Nested loads (a read callback that loads another model) push one window each; beyond
// kMaxWindows deep the window is not recorded and writes into it are refused (the read fails).
constexpr size_t kMaxWindows = 16;
Window g_windows[kMaxWindows];
size_t g_depth = 0;

// The live block containing address, or blocks().end().
std::map<uint64_t, size_t>::const_iterator block_of(uint64_t address) {
    auto& b = blocks();
    auto it = b.upper_bound(address);
    if (it == b.begin()) return b.end();
    --it;
    return address < it->first + it->second ? it : b.end();
}

bool inside(uint64_t address, uint64_t bytes, uint64_t begin, uint64_t size) {
    return address >= begin && address - begin <= size && bytes <= size - (address - begin);
}

}  // namespace

bool allocation_allowed(size_t more) noexcept {
    return g_limit == 0 || (more <= g_limit && tracked_bytes() <= g_limit - more);
}

void set_allocation_limit(uint64_t bytes) noexcept { g_limit = bytes; }

uint64_t js_malloc(double bytes) noexcept {
    if (!(bytes >= 0 && bytes <= double(kMaxBlock)) || bytes != std::floor(bytes)) return 0;
    const size_t n = size_t(bytes) < 8 ? 8 : size_t(bytes);
    if (!allocation_allowed(n)) return 0;
    void* p = std::malloc(n);
    if (!p) return 0;
    try {
        blocks().emplace(uint64_t(uintptr_t(p)), n);
    } catch (...) {  // the map's node could not be allocated
        std::free(p);
        return 0;
    }
    g_js_bytes += n;
    note_high_water();
    return uint64_t(uintptr_t(p));
}

bool js_free(uint64_t address) noexcept {
    if (address == 0) return true;
    auto& b = blocks();
    auto it = b.find(address);
    if (it == b.end()) return false;
    g_js_bytes -= it->second;
    std::free(reinterpret_cast<void*>(uintptr_t(address)));
    b.erase(it);
    return true;
}

void push_write_window(uint64_t begin, uint64_t bytes) noexcept {
    if (g_depth < kMaxWindows) g_windows[g_depth] = Window{begin, bytes};
    ++g_depth;
}

void pop_write_window() noexcept {
    if (g_depth > 0) --g_depth;
}

const char* check_write(uint64_t address, uint64_t bytes) noexcept {
    if (bytes == 0) return "";
    const auto it = block_of(address);
    if (it != blocks().end()) {
        return inside(address, bytes, it->first, it->second) ? "" : "the write runs past the end of its block";
    }
    for (size_t i = 0; i < g_depth && i < kMaxWindows; ++i) {
        if (inside(address, bytes, g_windows[i].begin, g_windows[i].bytes)) return "";
    }
    return "the address is not in a block JavaScript allocated nor in the buffer being filled";
}

const char* check_read(uint64_t address, uint64_t bytes) noexcept {
    if (bytes == 0) return "";
    if (address == 0) return "the address is 0";
    if (bytes > kMaxBlock) return "more than 4 GiB";
    const auto it = block_of(address);
    if (it != blocks().end() && !inside(address, bytes, it->first, it->second)) return "the read runs past the end of its block";
    return "";
}

size_t js_bytes() noexcept { return g_js_bytes; }
size_t tracked_bytes() noexcept { return g_js_bytes + Buffer::live_bytes(); }
size_t tracked_high_water() noexcept {
    note_high_water();
    return g_high_water;
}
void note_high_water() noexcept {
    const size_t now = tracked_bytes();
    if (now > g_high_water) g_high_water = now;
}

}  // namespace simdformer::node_addon
