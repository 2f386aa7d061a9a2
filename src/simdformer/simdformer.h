// simdformer: Transformer attention and layers, SIMD-vectorized, for native code and wasm.
#pragma once

#include "simdformer/activation.h"
#include "simdformer/attention.h"
#include "simdformer/buffer.h"
#include "simdformer/build_info.h"
#include "simdformer/config.h"
#include "simdformer/io.h"
#include "simdformer/model.h"
#include "simdformer/ops.h"
#include "simdformer/status.h"
