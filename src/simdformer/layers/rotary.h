// Rotary position embeddings (Su et al., RoFormer), as Hugging Face's LlamaRotaryEmbedding and
// apply_rotary_pos_emb compute them for Llama, Qwen2 and Mistral:
//   inv_freq[j] = 1 / theta^(2j / dim)            (j < dim / 2; changed by rope_scaling)
//   angle = position * inv_freq[j];   cos, sin of it for both halves of a head
//   rotate-half: x'[j] = x[j] cos - x[j + dim/2] sin;  x'[j + dim/2] = x[j + dim/2] cos + x[j] sin
// Queries and keys are rotated after their projections, per head, before they meet; values are
// not. Every step is float32 in HF's order (inv_freq in float32, one product per angle).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simdformer {

// config.json's rope_scaling "rope_type" (or the older "type").
enum class RopeScaling {
    kDefault,  // none
    kLinear,   // positions / factor (inv_freq / factor)
    kDynamic,  // NTK-aware: theta grows with the sequence once it exceeds max_position_embeddings
    kLlama3,   // Llama 3.1: low frequencies / factor, high ones kept, a smooth blend between
};

// The widest head rotated (adapters refuse wider ones).
constexpr size_t kMaxRotaryDim = 1024;

struct RopeConfig {
    size_t dim = 0;  // rotated width of a head (head_dim), even, at most kMaxRotaryDim
    double theta = 10000.0;
    RopeScaling scaling = RopeScaling::kDefault;
    double factor = 1.0;
    double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
    // llama3: original_max_position_embeddings; dynamic: max_position_embeddings.
    size_t original_max_positions = 0;
};

class Rotary {
public:
    Rotary() = default;
    explicit Rotary(const RopeConfig& config);

    const RopeConfig& config() const { return config_; }
    size_t half() const { return config_.dim / 2; }

    // cos and sin [rows, half] of positions [rows]. seq_len is the largest position of the call
    // plus one: dynamic scaling picks its theta by it (HF: torch.max(position_ids) + 1).
    void tables(size_t rows, const int32_t* positions, size_t seq_len, float* cos, float* sin) const;

private:
    void inverse_frequencies(size_t seq_len, float* out) const;

    RopeConfig config_;
    std::vector<float> inv_freq_;  // [half] for sequences within the original length
};

// Rotates `heads` heads of width dim in each of `rows` rows (row r at x + r * ldx) in place, row
// r by the angles of row r of cos and sin [rows, dim / 2]; RotateBy::kMinusAngle turns such a
// rotation back (the same cos, sin negated: what the layer probe shows of q and k as projected).
enum class RotateBy { kAngle, kMinusAngle };
void rotate_half(size_t rows, size_t heads, size_t dim, float* x, size_t ldx, const float* cos, const float* sin,
                 RotateBy direction = RotateBy::kAngle);

}  // namespace simdformer
