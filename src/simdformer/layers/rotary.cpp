#include "simdformer/layers/rotary.h"

#include <algorithm>
#include <cmath>

namespace simdformer {
namespace {

// Transcendentals of float arguments through the double-precision libm functions, rounded to
// float: within an ulp of PyTorch's float32 ones, and the wasm build already carries the double
// versions (sinusoidal positions), so no float copies of pow / sin / cos are linked in.
float pow_f(float base, float exponent) { return static_cast<float>(std::pow(double(base), double(exponent))); }
float cos_f(float x) { return static_cast<float>(std::cos(double(x))); }
float sin_f(float x) { return static_cast<float>(std::sin(double(x))); }

// HF's _compute_default_rope_parameters: 1 / base ** (arange(0, dim, 2).float() / dim), float32.
void default_inverse_frequencies(size_t dim, float base, float* out) {
    for (size_t j = 0; j < dim / 2; ++j) {
        const float exponent = static_cast<float>(2 * j) / static_cast<float>(dim);
        out[j] = 1.0f / pow_f(base, exponent);
    }
}

// HF's _compute_llama3_parameters, on the default frequencies, in its float32 order.
void llama3_inverse_frequencies(const RopeConfig& c, float* inv_freq) {
    const float factor = static_cast<float>(c.factor), low = static_cast<float>(c.low_freq_factor),
                high = static_cast<float>(c.high_freq_factor);
    const float old_len = static_cast<float>(c.original_max_positions);
    const float low_freq_wavelen = old_len / low, high_freq_wavelen = old_len / high;
    const float two_pi = static_cast<float>(2.0 * M_PI);
    for (size_t j = 0; j < c.dim / 2; ++j) {
        const float f = inv_freq[j];
        const float wavelen = two_pi / f;
        float scaled = wavelen > low_freq_wavelen ? f / factor : f;
        const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
        if (medium) {
            const float smooth = (old_len / wavelen - low) / (high - low);
            scaled = (1.0f - smooth) * scaled / factor + smooth * scaled;
        }
        inv_freq[j] = scaled;
    }
}

}  // namespace

Rotary::Rotary(const RopeConfig& config) : config_(config), inv_freq_(config.dim / 2) {
    inverse_frequencies(0, inv_freq_.data());
}

void Rotary::inverse_frequencies(size_t seq_len, float* out) const {
    const RopeConfig& c = config_;
    float base = static_cast<float>(c.theta);
    if (c.scaling == RopeScaling::kDynamic && seq_len > c.original_max_positions) {
        // _compute_dynamic_ntk_parameters: base * ((factor * seq_len / max) - (factor - 1)) **
        // (dim / (dim - 2)), the tensor arithmetic of the update path in float32.
        const float factor = static_cast<float>(c.factor);
        const float growth = factor * static_cast<float>(seq_len) / static_cast<float>(c.original_max_positions) -
                             (factor - 1.0f);
        const float power = static_cast<float>(static_cast<double>(c.dim) / static_cast<double>(c.dim - 2));
        base = base * pow_f(growth, power);
    }
    default_inverse_frequencies(c.dim, base, out);
    if (c.scaling == RopeScaling::kLinear)
        for (size_t j = 0; j < c.dim / 2; ++j) out[j] = out[j] / static_cast<float>(c.factor);
    if (c.scaling == RopeScaling::kLlama3) llama3_inverse_frequencies(c, out);
}

void Rotary::tables(size_t rows, const int32_t* positions, size_t seq_len, float* cos, float* sin) const {
    const size_t h = half();
    float dynamic[kMaxRotaryDim / 2];  // decoding steps allocate nothing
    const float* inv_freq = inv_freq_.data();
    if (config_.scaling == RopeScaling::kDynamic && seq_len > config_.original_max_positions) {
        inverse_frequencies(seq_len, dynamic);
        inv_freq = dynamic;
    }
    for (size_t r = 0; r < rows; ++r) {
        const float p = static_cast<float>(positions[r]);
        for (size_t j = 0; j < h; ++j) {
            const float angle = p * inv_freq[j];
            cos[r * h + j] = cos_f(angle);
            sin[r * h + j] = sin_f(angle);
        }
    }
}

namespace {

// (x * cos) + (rotate_half(x) * sin), rotate_half(x) = cat(-x2, x1). kMinus: by minus the angle,
// i.e. sin negated (exactly: the same results as a rotation by a table of -sin).
template <bool kMinus>
void rotate_rows(size_t rows, size_t heads, size_t dim, float* x, size_t ldx, const float* cos, const float* sin) {
    const size_t h = dim / 2;
    for (size_t r = 0; r < rows; ++r) {
        const float* c = cos + r * h;
        const float* s = sin + r * h;
        for (size_t head = 0; head < heads; ++head) {
            float* v = x + r * ldx + head * dim;
            for (size_t j = 0; j < h; ++j) {
                const float a = v[j], b = v[j + h], sj = kMinus ? -s[j] : s[j];
                v[j] = a * c[j] + (-b) * sj;
                v[j + h] = b * c[j] + a * sj;
            }
        }
    }
}

}  // namespace

void rotate_half(size_t rows, size_t heads, size_t dim, float* x, size_t ldx, const float* cos, const float* sin,
                 RotateBy direction) {
    if (direction == RotateBy::kMinusAngle) rotate_rows<true>(rows, heads, dim, x, ldx, cos, sin);
    else rotate_rows<false>(rows, heads, dim, x, ldx, cos, sin);
}

}  // namespace simdformer
