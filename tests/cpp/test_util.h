// Helpers shared by the test suites: seeded data, error measures, golden files.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "simdformer/io.h"
#include "simdformer/io/checkpoint.h"
#include "simdformer/io/weight_reader.h"
#include "simdformer/simdformer.h"

namespace simdformer::test {

// How many random cases a randomized test draws: all of them in the plain builds, a tenth under
// ASan + UBSan, where each case runs 10-50x slower (json_text_test alone took 160 s of wasm-asan's
// stage). The plain builds (SSE2, AVX2, AVX-512, wasm SIMD128 and scalar) still compare every case
// against the reference; under the sanitizers the smaller sample still reaches every kind of case
// (the sanitizers look for memory and undefined-behaviour errors, not for one wrong digit).
#ifdef SIMDFORMER_TEST_UNDER_SANITIZER
inline constexpr int kSanitizerSampleDivisor = 10;
#else
inline constexpr int kSanitizerSampleDivisor = 1;
#endif
constexpr int samples(int full) { return full / kSanitizerSampleDivisor > 0 ? full / kSanitizerSampleDivisor : 1; }

// Uniform values in [lo, hi) from a fixed seed.
std::vector<float> random_vector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

double max_abs_diff(const float* a, const float* b, size_t n);
inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    return max_abs_diff(a.data(), b.data(), std::min(a.size(), b.size()));
}
// max |a - b| / (|b| + 1): relative for large values, absolute near zero.
double max_rel_diff(const float* a, const float* b, size_t n);
// a·b / (|a| |b|) in double; 1 for two zero vectors, 0 when only one is zero, NaN if any value is.
double cosine_similarity(const float* a, const float* b, size_t n);
inline double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    return cosine_similarity(a.data(), b.data(), std::min(a.size(), b.size()));
}

std::string data_path(const std::string& file);  // tests/data/<file>
std::vector<uint8_t> read_file(const std::string& path);
std::string read_text(const std::string& path);

// A checkpoint folder under tests/data opened as shards: each weight file as a FileSource (a
// file that does not open is a test failure) and, when sharded, the index's text.
struct CheckpointFiles {
    std::vector<std::unique_ptr<FileSource>> files;
    std::vector<CheckpointShard> shards;
    std::string index;
};
CheckpointFiles open_checkpoint_files(const std::string& folder, const std::vector<std::string>& names, bool sharded);

// All tensors of a golden safetensors file, as float vectors with shapes (integer tensors, such
// as Hugging Face goldens' I64 input ids, converted to float: they are small).
struct Golden {
    std::map<std::string, std::vector<float>> values;
    std::map<std::string, Shape> shapes;
    const std::vector<float>& at(const std::string& name) const;
    std::vector<uint8_t> mask(const std::string& name) const;   // 0/1 floats -> bytes
    std::vector<int32_t> tokens(const std::string& name) const; // integral floats -> ids
};
Golden load_golden(const std::string& file);

// A model loaded from tests/data/<name>.safetensors + <name>.json (fails the test on error).
Model load_case(const std::string& name);

// A workspace for `batch` items of up to n tokens, a key/value cache of `context` positions and
// logits for up to logits_rows rows (fails the test on error).
Workspace workspace(const Model& m, size_t batch, size_t n, size_t context = 0, size_t logits_rows = 0);
// The rows 0, 1, ..., n - 1 (a TextRequest's logits_rows for every token).
std::vector<int32_t> all_rows(size_t n);

#define SF_ASSERT_OK(expr)                                                              \
    do {                                                                                \
        const ::simdformer::Status sf_st_ = (expr);                                     \
        ASSERT_TRUE(sf_st_.is_ok()) << ::simdformer::status_code_name(sf_st_.code())    \
                                    << ": " << sf_st_.message();                        \
    } while (0)

// The same check without ending the test.
#define SF_EXPECT_OK(expr)                                                              \
    do {                                                                                \
        const ::simdformer::Status sf_st_ = (expr);                                     \
        EXPECT_TRUE(sf_st_.is_ok()) << ::simdformer::status_code_name(sf_st_.code())    \
                                    << ": " << sf_st_.message();                        \
    } while (0)

}  // namespace simdformer::test
