// simdformer: Transformer attention and layers, SIMD-vectorized, for native code and wasm.
#pragma once

#include "simdformer/attention.h"
#include "simdformer/config.h"
#include "simdformer/io/safetensors.h"
#include "simdformer/model.h"
#include "simdformer/ops.h"
#include "simdformer/status.h"
