// The nonlinearities of feed-forward blocks (and GEMM epilogues), named as PyTorch names them.
#pragma once

namespace simdformer {

enum class Activation {
    kNone,
    kRelu,      // max(x, 0)
    kGeluErf,   // 0.5 x (1 + erf(x / sqrt 2)): nn.GELU(), Hugging Face "gelu"
    kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): GELU(approximate='tanh'), "gelu_new"
    kTanh,      // tanh(x): BERT's pooler
    kSilu,      // x * sigmoid(x): nn.SiLU, Hugging Face "silu" / "swish" (Llama's gate)
    // Rarer Hugging Face activations (ACT2FN names in quotes), computed out of line (vector_math.h):
    kQuickGelu,  // x * sigmoid(1.702 x): "quick_gelu"
    kGeluClip10, // clip(0.5 x (1 + erf(x / sqrt 2)), -10, 10): "gelu_10"
    kSigmoid,    // 1 / (1 + exp(-x)): nn.Sigmoid, "sigmoid"
    kRelu6,      // min(max(x, 0), 6): nn.ReLU6, "relu6"
    kRelu2,      // max(x, 0)^2: "relu2"
    kLeakyRelu,  // x > 0 ? x : 0.01 x: nn.LeakyReLU(), "leaky_relu"
    kMish,       // x tanh(softplus(x)), softplus = x beyond 20: nn.functional.mish, "mish"
    kLaplace,    // 0.5 (1 + erf((x - 0.707107) / (0.282095 sqrt 2))): "laplace"
};

}  // namespace simdformer
