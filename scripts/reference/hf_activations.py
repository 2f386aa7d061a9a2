"""PyTorch values of Hugging Face's ACT2FN activations, for tests/cpp/hf_test.cpp.

Each formula is written as transformers' activations.py computes it (read there, not copied),
in float32 with torch 1.13's own functions where activations.py calls them (nn.functional.gelu,
mish, relu6, leaky_relu, sigmoid, silu). Writes tests/data/hf/activations.safetensors: "x" [n]
and one tensor per activation name [n]. Deterministic: run with /usr/bin/python3 from the
repository root.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import hf_format  # noqa: E402


def laplace(x, mu=0.707107, sigma=0.282095):
    z = (x - mu).div(sigma * math.sqrt(2.0))
    return 0.5 * (1.0 + torch.erf(z))


ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu_python": lambda x: x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0))),
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0)))),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_fast": lambda x: 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x))),
    "gelu_accurate": lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * torch.pow(x, 3)))),
    "gelu_10": lambda x: torch.clip(F.gelu(x), -10, 10),
    "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x),
    "relu": F.relu,
    "relu2": lambda x: torch.square(F.relu(x)),
    "relu6": F.relu6,
    "leaky_relu": F.leaky_relu,  # nn.LeakyReLU(): negative_slope 0.01
    "sigmoid": torch.sigmoid,
    "silu": F.silu,
    "swish": F.silu,
    "mish": F.mish,
    "laplace": laplace,
    "tanh": torch.tanh,
    "linear": lambda x: x,
}


def main():
    grid = torch.linspace(-30.0, 30.0, 1201, dtype=torch.float64).float()
    extra = torch.tensor([-100.0, -88.5, -50.0, -20.5, -1e-3, 0.0, 1e-3, 0.707107, 19.99, 20.0, 20.01, 44.5, 50.0, 100.0])
    x = torch.cat([grid, extra]).contiguous()
    tensors = {"x": x}
    for name, fn in ACTIVATIONS.items():
        y = fn(x)
        assert y.dtype == torch.float32 and torch.isfinite(y).all(), name
        tensors[name] = y.contiguous()
    out = os.path.join("tests", "data", "hf", "activations.safetensors")
    hf_format.write_safetensors(out, tensors)
    print(out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
