#include "simdformer/build_info.h"

#include <string_view>

#include "simdformer/kernels/kernels.h"

namespace simdformer {

const char* version() { return SIMDFORMER_VERSION_STRING; }
const char* simd_arch() { return kernels::simd_arch(); }
size_t simd_lanes() { return kernels::simd_lanes(); }

const char* use_int8_kernel(const char* mode) {
    using kernels::I8Kernel;
    struct Choice {
        const char* name;
        I8Kernel kernel;
    };
    static constexpr Choice kChoices[] = {{"off", I8Kernel::kPairs16},
                                          {"relaxed", I8Kernel::kQuads7Relaxed},
                                          {"portable", I8Kernel::kQuads7Portable},
                                          {"relaxed-u8", I8Kernel::kQuadsU8Relaxed},
                                          {"portable-u8", I8Kernel::kQuadsU8Portable},
                                          {"relaxed-s8", I8Kernel::kQuadsS8Relaxed},
                                          {"portable-s8", I8Kernel::kQuadsS8Portable}};
    const std::string_view m = mode ? mode : "";
    bool ok = false;
    if (m == "auto") {
        ok = kernels::set_i8_kernel(kernels::auto_i8_kernel());
    } else if (m == "relaxed" || m == "portable") {  // "portable": what "relaxed" computes, portably
        ok = kernels::set_i8_kernel(kernels::best_quad_kernel(m == "relaxed"));
    } else if (m == "off") {
        ok = kernels::set_i8_kernel(I8Kernel::kPairs16);
    }
    if (!ok) return nullptr;
    for (const Choice& c : kChoices)
        if (c.kernel == kernels::i8_kernel()) return c.name;
    return nullptr;
}

int use_f32_kernel(F32Kernel mode) {
    const bool on = mode == F32Kernel::kAuto ? kernels::relaxed_f32_available() : mode == F32Kernel::kRelaxed;
    if (!kernels::set_relaxed_f32(on)) return -1;
    return kernels::relaxed_f32() ? 1 : 0;
}

}  // namespace simdformer
