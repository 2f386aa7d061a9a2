// Bit-identity check for GEMM variants (natively: bitcheck.sh; in wasm: bitcheck_wasm.sh): prints one FNV-1a hash of C per case
// (rows around every tile cut, right edges, depths of 0, one, one k-block and several, every
// epilogue part). bitcheck.sh builds it with today's gemm.cpp and with each variant and diffs.
#include <cmath>
#include <cstdio>
#include <vector>

#include "simdformer/kernels/kernels.h"

namespace k = simdformer::kernels;

namespace {
// FNV-1a over the bytes of v: one hash per case, so two builds diff as text.
unsigned hash_floats(const std::vector<float>& v) {
    unsigned h = 2166136261u;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
    for (size_t i = 0; i < sizeof(float) * v.size(); ++i) h = (h ^ p[i]) * 16777619u;
    return h;
}

// The operands every case uses: A (or x) as cosines, B as small sines, a repeating bias, a
// residual as sines.
void fill_case(std::vector<float>& a, std::vector<float>& b, std::vector<float>& bias, std::vector<float>& res) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::cos(0.37f * static_cast<float>(i));
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.01f * std::sin(static_cast<float>(i));
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * static_cast<float>(i % 7);
    for (size_t i = 0; i < res.size(); ++i) res[i] = 0.5f * std::sin(0.11f * static_cast<float>(i));
}
}  // namespace

int main() {
    const size_t w = k::gemm_panel_width();
    const size_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 23, 31, 33, 130};
    const size_t ks[] = {0, 1, 7, 130, 1030, 2100};
    const size_t ns[] = {3, w, 4 * w + 3, 9 * w + 5};
    for (size_t m : ms)
        for (size_t kk : ks)
            for (size_t n : ns)
                for (int e = 0; e < 2; ++e) {
                    std::vector<float> a(m * kk), b(kk * n), packed(k::packed_b_size(kk, n) + 1);
                    std::vector<float> bias(n), res(m * (n + 2)), c(m * (n + 1), -1.0f);
                    fill_case(a, b, bias, res);
                    k::pack_b(kk, n, b.data(), n, 1, packed.data());
                    k::Epilogue ep;
                    if (e) {
                        ep.alpha = 0.75f;
                        ep.bias = bias.data();
                        ep.activation = simdformer::Activation::kGeluErf;
                        ep.residual = res.data();
                        ep.ld_residual = n + 2;
                    }
                    k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), c.data(), n + 1, ep);
                    std::printf("%zux%zux%zu ep%d %08x\n", m, kk, n, e, hash_floats(c));
                }
    // gemv_f32_packed (its own epilogue, gemv.cpp's finish_panel) on the same cases with m = 1.
    for (size_t kk : ks)
        for (size_t n : ns)
            for (int e = 0; e < 2; ++e) {
                std::vector<float> x(kk), b(kk * n), packed(k::packed_b_size(kk, n) + 1), bias(n), res(n), y(n + 1, -1.0f);
                fill_case(x, b, bias, res);
                k::pack_b(kk, n, b.data(), n, 1, packed.data());
                k::Epilogue ep;
                if (e) {
                    ep.alpha = 0.75f;
                    ep.bias = bias.data();
                    ep.activation = simdformer::Activation::kGeluErf;
                    ep.residual = res.data();
                }
                k::gemv_f32_packed(n, kk, x.data(), packed.data(), y.data(), ep);
                std::printf("gemv %zux%zu ep%d %08x\n", kk, n, e, hash_floats(y));
            }
    return 0;
}
