// The native addon's stand-in for wasm memory: the blocks JavaScript allocates for a call
// (CallHeap in bindings/js/lib/heap.mjs), and the checked copies in and out of native memory.
//
// In wasm every address JavaScript holds is an offset into one ArrayBuffer, and a wrong one reads
// or writes inside the module at worst. Natively an address is a real pointer into the user's
// process, so every copy is checked here before memcpy runs:
//  - a write must lie inside one live block JavaScript allocated, or inside the destination the
//    loader is filling right now (a shard read, pushed while the read callback runs);
//  - a read must lie inside a live block when it starts inside one; elsewhere it reads a result
//    the core owns (a workspace's output, logits, ...), whose address the core just returned.
// Copies never hand JavaScript a view of native memory (an external ArrayBuffer over memory that
// can be freed under it would be a use-after-free waiting to happen).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simdformer::node_addon {

// A block of `bytes` (at least 8) for JavaScript, or 0 when it cannot be had: above the
// allocation limit (set_allocation_limit) or malloc failed.
uint64_t js_malloc(double bytes) noexcept;
// Frees a block js_malloc returned; 0 and unknown addresses are ignored (returns false for an
// unknown one).
bool js_free(uint64_t address) noexcept;

// Where a write may go besides JavaScript's blocks: [begin, begin + bytes) while the reader that
// filled it runs (nested loads push more than one).
void push_write_window(uint64_t begin, uint64_t bytes) noexcept;
void pop_write_window() noexcept;

// "" when [address, address + bytes) may be written (read), else why not.
const char* check_write(uint64_t address, uint64_t bytes) noexcept;
const char* check_read(uint64_t address, uint64_t bytes) noexcept;

// Bytes held in JavaScript's blocks now.
size_t js_bytes() noexcept;
// What mallocBytes reports natively: JavaScript's blocks + the core's tensor buffers
// (Buffer::live_bytes: weights, workspaces). std containers are not counted (glibc's own count is
// the whole process's, V8 included); LeakSanitizer checks those in the native-asan suites.
size_t tracked_bytes() noexcept;
// The highest tracked_bytes() seen (it only grows, as wasm memory does): heapBytes natively.
size_t tracked_high_water() noexcept;
void note_high_water() noexcept;

// Tests only: allocations of JavaScript blocks and of the core's tensor buffers fail once
// tracked_bytes() would exceed `bytes` (0: no limit), so out-of-memory paths can be driven
// natively where no heap limit exists.
void set_allocation_limit(uint64_t bytes) noexcept;
bool allocation_allowed(size_t more) noexcept;

}  // namespace simdformer::node_addon
