// The relaxed-SIMD kernel module beside the engine (issue 29): its bytes, its instantiation in each
// thread, the f32 k-loops' table slots, and the f32 path's switch and init check.
//
// Why table slots: the f32 k-loops run once per GEMM tile (~1 us each), so a call through a
// JavaScript import (~100 ns) would eat much of what FMA gains. Instead each thread puts the
// module's exported loops into its own function table (tables are per instance, so per thread) at
// the slots of placeholders below that have the same signature; gemm.cpp and gemv.cpp then call
// them through function pointers, wasm to wasm. The placeholders' slot numbers are the same in
// every thread; the pointers the kernels call come back from JavaScript, so no optimizer can turn
// them into direct calls to the placeholders.
#include "simdformer/kernels/relaxed_module.h"

#include <atomic>
#include <cstdlib>

#include "simdformer/kernels/kernels.h"

#if SIMDFORMER_RELAXED_MODULE
#include <emscripten.h>

#include "relaxed_module_bytes.h"  // kRelaxedModule: the module's bytes (src/CMakeLists.txt)
#endif

namespace simdformer::kernels {
namespace {
// The f32 switch (set_relaxed_f32) and relaxed_f32_available's probe.
std::atomic<bool> g_f32_on{false};
std::atomic<int> g_f32_probe{0};  // unknown, probing, no, yes
}  // namespace

#if SIMDFORMER_RELAXED_MODULE
namespace {

// clang-format off
// Instantiates the module in this thread (every worker has its own JavaScript realm) on the
// engine's memory, once; 0 when it cannot be instantiated here.
EM_JS(int, sf_relaxed_here, (const void* module, size_t size), {
    if (Module.sfRelaxed === undefined) {
        try {
            var bytes = HEAPU8.slice(module >>> 0, (module >>> 0) + (size >>> 0));
            Module.sfRelaxed = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: wasmMemory } }).exports;
        } catch (e) {
            Module.sfRelaxed = null;
        }
    }
    return Module.sfRelaxed ? 1 : 0;
});
EM_JS(void, sf_relaxed_dot_block, (const void* a, size_t mc, size_t kq, int odd_pair, const void* b, size_t panel_stride,
                                   size_t npanels, void* c, size_t ldc, int first), {
    Module.sfRelaxed.dot_block(a, mc, kq, odd_pair, b, panel_stride, npanels, c, ldc, first);
});
// Puts the module's f32 loop i into this thread's table at slot slots[i], and writes the slot to
// out[i]; 0 if the table refuses.
EM_JS(int, sf_relaxed_install_f32, (const int* slots, int* out, int n), {
    try {
        for (var i = 0; i < n; i++) {
            var slot = HEAP32[(slots >>> 2) + i];
            wasmTable.set(slot, Module.sfRelaxed["f32_kloop_" + i]);
            HEAP32[(out >>> 2) + i] = slot;
        }
        return 1;
    } catch (e) {
        return 0;
    }
});
EM_JS(int, sf_relaxed_validates, (const void* module, size_t size), {
    try {
        return WebAssembly.validate(HEAPU8.slice(module >>> 0, (module >>> 0) + (size >>> 0))) ? 1 : 0;
    } catch (e) {
        return 0;
    }
});
// clang-format on

thread_local int t_here = -1;  // the module in this thread: unknown, no (0), yes (1)
bool here() {
    if (t_here < 0) t_here = sf_relaxed_here(kRelaxedModule, sizeof(kRelaxedModule));
    return t_here == 1;
}

// The placeholders whose slots this thread's table gives to the module's loops. Reached only
// through a slot the table has not replaced, which install_f32() never hands out: a bug, so abort.
[[noreturn, gnu::noinline]] void unset_slot() { std::abort(); }
#define SF_SLOT(i)                                                        \
    void slot_##i(const float*, const float*, size_t, size_t, float* acc, int) { \
        acc[0] = i; /* distinct bodies: never merged into one function */   \
        unset_slot();                                                     \
    }
SF_SLOT(0)
SF_SLOT(1)
SF_SLOT(2)
SF_SLOT(3)
SF_SLOT(4)
SF_SLOT(5)
#undef SF_SLOT
static_assert(relaxed::kF32Tiles == 6, "one placeholder per loop");

thread_local relaxed::F32KLoop t_kloops[relaxed::kF32Tiles];
thread_local int t_installed = -1;  // unknown, no (0), yes (1)

const relaxed::F32KLoop* install_f32() {
    if (t_installed < 0) {
        const relaxed::F32KLoop placeholders[] = {slot_0, slot_1, slot_2, slot_3, slot_4, slot_5};
        int slots[relaxed::kF32Tiles], out[relaxed::kF32Tiles] = {};
        for (int i = 0; i < relaxed::kF32Tiles; ++i) slots[i] = static_cast<int>(reinterpret_cast<uintptr_t>(placeholders[i]));
        t_installed = here() && sf_relaxed_install_f32(slots, out, relaxed::kF32Tiles) ? 1 : 0;
        for (int i = 0; i < relaxed::kF32Tiles; ++i)
            t_kloops[i] = reinterpret_cast<relaxed::F32KLoop>(static_cast<uintptr_t>(out[i]));
    }
    return t_installed == 1 ? t_kloops : nullptr;
}

// The module's f32 loops against multiply-adds computed here, fused and unfused, on every tile
// shape: each must give exactly one of the two for every element, and all the same one, or a
// row's bits would depend on its tile. kc = 37 and random values in [-1, 1] make the two differ in
// most elements. Fused: the product of two floats is exact in double and the sum rounds once
// there, then to float; that double rounding could differ from one fused rounding only on a
// tie, which these values do not produce (the check is deterministic: it passed once, it passes).
bool f32_kloops_work() {
    const relaxed::F32KLoop* loops = install_f32();
    if (!loops) return false;
    constexpr size_t kKc = 37, kStride = kKc * 8 + 8, kMaxR = 2, kMaxG = 4;
    static float a[kKc * kMaxR], b[kStride * kMaxG], acc[kMaxR * kMaxG * 8], init[kMaxR * kMaxG * 8];
    uint32_t x = 2463534242u;
    auto next = [&x] {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        return static_cast<float>(x >> 8) / 8388608.0f - 1.0f;
    };
    for (float& v : a) v = next();
    for (float& v : b) v = next();
    int possible = 3;  // bit 0: unfused, bit 1: fused
    constexpr size_t kShapes[][2] = {{2, 2}, {2, 1}, {1, 4}, {1, 2}, {1, 1}, {2, 3}};
    for (int t = 0; t < relaxed::kF32Tiles; ++t) {
        const size_t R = kShapes[t][0], G = kShapes[t][1];
        if (relaxed::f32_tile(R, G) != t) return false;
        for (size_t i = 0; i < R * G * 8; ++i) acc[i] = init[i] = next();
        loops[t](a, b, kStride, kKc, acc, 0);
        for (size_t r = 0; r < R; ++r)
            for (size_t g = 0; g < G; ++g)
                for (size_t j = 0; j < 8; ++j) {
                    const size_t e = (r * G + g) * 8 + j;
                    float fused = init[e], unfused = init[e];
                    for (size_t p = 0; p < kKc; ++p) {
                        const float av = a[p * R + r], bv = b[g * kStride + p * 8 + j];
                        fused = static_cast<float>(static_cast<double>(av) * bv + fused);
                        const volatile float product = av * bv;  // rounded on its own
                        unfused = product + unfused;
                    }
                    if (acc[e] != unfused) possible &= ~1;
                    if (acc[e] != fused) possible &= ~2;
                }
    }
    return possible != 0;
}

}  // namespace

namespace relaxed {
// Null in a thread whose module could not be instantiated or installed (never seen: the main
// thread's probe succeeded on the same engine): that thread then runs multiply and add, so the
// columns it computes would differ from the others' by rounding -- correct, not bit-identical.
const F32KLoop* f32_kloops() { return g_f32_on.load(std::memory_order_relaxed) ? install_f32() : nullptr; }

bool i8_dot_block(const uint8_t* a, size_t mc, size_t kq, bool odd_pair, const int8_t* b, size_t panel_stride,
                  size_t npanels, int32_t* c, size_t ldc, bool first) {
    if (!here()) return false;
    sf_relaxed_dot_block(a, mc, kq, odd_pair ? 1 : 0, b, panel_stride, npanels, c, ldc, first ? 1 : 0);
    return true;
}

bool module_validates() { return sf_relaxed_validates(kRelaxedModule, sizeof(kRelaxedModule)) != 0; }
}  // namespace relaxed

#else  // no module in this build

namespace {
bool f32_kloops_work() { return false; }
}  // namespace

namespace relaxed {
const F32KLoop* f32_kloops() { return nullptr; }
bool i8_dot_block(const uint8_t*, size_t, size_t, bool, const int8_t*, size_t, size_t, int32_t*, size_t, bool) {
    return false;
}
bool module_validates() { return false; }
}  // namespace relaxed

#endif

bool relaxed_f32_available() {
    // Probed once, by the first caller, as relaxed_i8_support() probes (an atomic, no
    // function-local static: the wasm builds have no thread-safe statics).
    enum : int { kUnknown, kProbing, kNo, kYes };
    int state = g_f32_probe.load(std::memory_order_acquire);
    if (state < kNo) {
        int expected = kUnknown;
        if (g_f32_probe.compare_exchange_strong(expected, kProbing, std::memory_order_acq_rel)) {
            state = relaxed::module_validates() && f32_kloops_work() ? kYes : kNo;
            g_f32_probe.store(state, std::memory_order_release);
        } else {
            while ((state = g_f32_probe.load(std::memory_order_acquire)) < kNo) {
            }
        }
    }
    return state == kYes;
}

bool set_relaxed_f32(bool on) {
    if (on && !relaxed_f32_available()) return false;
    g_f32_on.store(on, std::memory_order_relaxed);
    return true;
}

bool relaxed_f32() { return g_f32_on.load(std::memory_order_relaxed); }

}  // namespace simdformer::kernels
