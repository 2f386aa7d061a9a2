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
};

}  // namespace simdformer
