// json_text() against nlohmann::json::dump() (the serializer it replaces, issue 30): the same
// bytes for every kind of value, and an error for the same invalid UTF-8. This is the one binary
// that links dump(); the library and the bindings call json_text().
#include "simdformer/io/json_text.h"
#include "simdformer/io/number_text.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace simdformer {
namespace {

using test::kSanitizerSampleDivisor;
using test::samples;

using nlohmann::json;
using Bytes = std::vector<uint8_t>;

// Both serializers on one value: the same text, or both refusing it (nlohmann's type_error 316
// and our std::invalid_argument, with the same message after nlohmann's prefix).
::testing::AssertionResult same_text(const json& value) {
    std::string theirs, theirs_error, ours, ours_error;
    try {
        theirs = value.dump();
    } catch (const json::type_error& e) {
        theirs_error = e.what();
    }
    try {
        ours = json_text(value);
    } catch (const std::invalid_argument& e) {
        ours_error = e.what();
    }
    if (!theirs_error.empty() || !ours_error.empty()) {
        const std::string expected = theirs_error.empty() ? "" : "[json.exception.type_error.316] " + ours_error;
        if (!ours_error.empty() && theirs_error == expected) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "dump() error \"" << theirs_error << "\", json_text error \""
                                             << ours_error << "\"";
    }
    if (ours == theirs) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "dump() " << theirs << ", json_text " << ours;
}

double from_bits(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

TEST(JsonText, Scalars) {
    EXPECT_EQ(json_text(json(nullptr)), "null");
    EXPECT_EQ(json_text(json(true)), "true");
    EXPECT_EQ(json_text(json(false)), "false");
    EXPECT_EQ(json_text(json(1.0)), "1.0");
    EXPECT_EQ(json_text(json(-0.0)), "-0.0");
    EXPECT_EQ(json_text(json(1e100)), "1e+100");
    EXPECT_EQ(json_text(json(0.1)), "0.1");
    EXPECT_EQ(json_text(json(1e-5)), "1e-05");
    EXPECT_EQ(json_text(json(std::nan(""))), "null");
    EXPECT_EQ(json_text(json(-INFINITY)), "null");
    for (const json& v : {json(nullptr), json(true), json(false), json(json::value_t::discarded), json::array(),
                          json::object(), json(""), json::binary(Bytes{}), json::binary(Bytes{0, 1, 255}),
                          json::binary(Bytes{7}, 42), json::binary(Bytes{}, 0)})
        EXPECT_TRUE(same_text(v)) << v.type_name();
}

TEST(JsonText, Integers) {
    std::vector<int64_t> signed_values = {0, 1, -1, 9, 10, -10, 99, 100, 1000000, INT32_MAX, INT32_MIN,
                                          int64_t{1} << 53, (int64_t{1} << 53) + 1, INT64_MAX, INT64_MIN,
                                          INT64_MAX - 1, INT64_MIN + 1};
    std::vector<uint64_t> unsigned_values = {0, 1, 9, 10, uint64_t{1} << 63, (uint64_t{1} << 63) - 1,
                                             (uint64_t{1} << 63) + 1, UINT64_MAX, UINT64_MAX - 1};
    for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {  // each power of ten and its neighbours
        for (const uint64_t u : {p - 1, p, p + 1}) {
            unsigned_values.push_back(u);
            signed_values.push_back(int64_t(u));
            signed_values.push_back(-int64_t(u));
        }
    }
    std::mt19937_64 rng(30);
    for (int i = 0; i < samples(20000); ++i) {
        const uint64_t bits = rng() >> (rng() % 64);  // every magnitude
        unsigned_values.push_back(bits);
        signed_values.push_back(int64_t(bits));
    }
    for (const int64_t v : signed_values) ASSERT_TRUE(same_text(json(v))) << v;
    for (const uint64_t v : unsigned_values) ASSERT_TRUE(same_text(json(v))) << v;
}

TEST(JsonText, DoublesAtTheEdges) {
    const double edges[] = {DBL_MIN, DBL_MAX, -DBL_MAX, DBL_EPSILON, DBL_TRUE_MIN, from_bits(0x000FFFFFFFFFFFFF),
                            from_bits(0x0010000000000001), from_bits(0x0020000000000000), 0.1, 0.2, 0.3, 1.0 / 3,
                            2.0 / 3, 5e-324, 1e-323, 1.7976931348623157e308, 9007199254740992.0,
                            9007199254740993.0, 1e15, 1e16, 1e17, 123456789012345.0, 1234567890123456.0,
                            0.0001, 0.00012345, 0.00001, 0.000012345, 1e21, 1e22, 1e23, 2.5, 1.5e-300,
                            4.35, 0.6931471805599453, 3.141592653589793, 1e-12, 1e-6, 10000.0, 1e5, 65504.0,
                            3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45};
    for (const double d : edges) {
        EXPECT_TRUE(same_text(json(d))) << d;
        EXPECT_TRUE(same_text(json(-d))) << -d;
    }
    // Every power of two and of ten a double holds, and their neighbours.
    for (int e = -1074; e <= 1023; ++e) {
        const double p = std::ldexp(1.0, e);
        for (const double d : {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY)})
            ASSERT_TRUE(same_text(json(d))) << d;
    }
    for (int e = -323; e <= 308; ++e) {
        const double p = std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
        for (const double d : {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY)})
            ASSERT_TRUE(same_text(json(d))) << d;
    }
    // Every float, as configs hold them after info_json's shortest_float: a sample of each binade.
    for (uint32_t bits = 1; bits < 0x7F800000u; bits += 0x3FFFu * kSanitizerSampleDivisor) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        ASSERT_TRUE(same_text(json(double(f)))) << f;
    }
}

TEST(JsonText, RandomDoubles) {
    std::mt19937_64 rng(3030);
    for (int i = 0; i < samples(300000); ++i) {  // random bits: every exponent, subnormals, NaNs and infinities
        const double d = from_bits(rng());
        ASSERT_TRUE(same_text(json(d))) << std::hexfloat << d;
    }
    std::uniform_int_distribution<int> scale(-20, 20);
    for (int i = 0; i < samples(100000); ++i) {  // short decimals, as people write them, and a neighbour
        const double d = double(int64_t(rng() % 2000001) - 1000000) * std::pow(10.0, scale(rng));
        ASSERT_TRUE(same_text(json(d))) << d;
        ASSERT_TRUE(same_text(json(std::nextafter(d, INFINITY)))) << d;
    }
}

TEST(JsonText, Strings) {
    std::string every_ascii;
    for (int c = 0; c < 0x80; ++c) {
        const std::string one(1, char(c));
        ASSERT_TRUE(same_text(json(one))) << c;
        ASSERT_TRUE(same_text(json("a" + one + "b"))) << c;
        every_ascii += char(c);
    }
    EXPECT_TRUE(same_text(json(every_ascii)));
    EXPECT_EQ(json_text(json(std::string("\"\\\b\f\n\r\t\x01\x1f\x7f/", 11))), "\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f/\"");
    EXPECT_EQ(json_text(json("é ✓ 😀")), "\"é ✓ 😀\"");
    // Code points of every UTF-8 length, at the edges of each length and of the surrogates.
    auto utf8 = [](uint32_t cp) {
        std::string s;
        if (cp < 0x80) {
            s += char(cp);
        } else if (cp < 0x800) {
            s += char(0xC0 | (cp >> 6));
            s += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s += char(0xE0 | (cp >> 12));
            s += char(0x80 | ((cp >> 6) & 0x3F));
            s += char(0x80 | (cp & 0x3F));
        } else {
            s += char(0xF0 | (cp >> 18));
            s += char(0x80 | ((cp >> 12) & 0x3F));
            s += char(0x80 | ((cp >> 6) & 0x3F));
            s += char(0x80 | (cp & 0x3F));
        }
        return s;
    };
    for (const uint32_t cp : {0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFDu, 0xFFFFu, 0x10000u, 0x10FFFFu})
        ASSERT_TRUE(same_text(json(utf8(cp) + "x" + utf8(cp)))) << cp;
    std::mt19937_64 rng(33);
    for (int i = 0; i < samples(5000); ++i) {  // random text of valid code points
        std::string s;
        for (int n = int(rng() % 12); n > 0; --n) {
            uint32_t cp = uint32_t(rng() % 0x110000);
            if (cp >= 0xD800 && cp < 0xE000) cp = uint32_t(rng() % 0x20);  // no surrogates: a control char
            s += utf8(cp);
        }
        ASSERT_TRUE(same_text(json(s)));
    }
}

TEST(JsonText, InvalidUtf8IsRefusedAtTheSameByte) {
    for (const char* bad : {"\x80", "a\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "x\xc2", "\xc3\x28", "\xe0\x80\x80",
                            "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xef\xbf", "\xf0\x80\x80\x80",
                            "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe", "ok\xe2\x82"}) {
        EXPECT_THROW(json_text(json(bad)), std::invalid_argument) << bad;
        EXPECT_TRUE(same_text(json(bad)));
        EXPECT_TRUE(same_text(json::object({{bad, 1}})));  // keys are checked as values are
        EXPECT_TRUE(same_text(json::array({"fine", bad})));
    }
    std::mt19937_64 rng(316);
    for (int i = 0; i < samples(50000); ++i) {  // random bytes, mostly high ones: valid and invalid sequences
        std::string s;
        for (int n = int(rng() % 8); n > 0; --n) s += char(rng() % 3 ? 0x80 + rng() % 0x80 : rng() % 0x80);
        ASSERT_TRUE(same_text(json(s)));
    }
}

// A random value: every type, nested up to `depth` levels, keys of any text (sorted by the map).
json random_value(std::mt19937_64& rng, int depth) {
    switch (rng() % (depth > 0 ? 9 : 7)) {
        case 0: return nullptr;
        case 1: return rng() % 2 == 0;
        case 2: return int64_t(rng()) >> (rng() % 64);
        case 3: return uint64_t(rng());
        case 4: return from_bits(rng());
        case 5: return double(int64_t(rng() % 1000)) / 8;
        case 6: {
            static const char* const pieces[] = {"a", "\"", "\\", "\n", "\x01", "\x7f", "\xc3\xa9", "\xe2\x9c\x93",
                                                 "\xf0\x9f\x98\x80"};
            std::string s;
            for (int n = int(rng() % 6); n > 0; --n) s += pieces[rng() % 9];
            return s;
        }
        case 7: {
            json a = json::array();
            for (int n = int(rng() % 5); n > 0; --n) a.push_back(random_value(rng, depth - 1));
            return a;
        }
        default: {
            json o = json::object();
            for (int n = int(rng() % 5); n > 0; --n) o[std::to_string(rng() % 100) + "\x7f\t"] = random_value(rng, depth - 1);
            return o;
        }
    }
}

TEST(JsonText, NestedValues) {
    std::mt19937_64 rng(2026);
    for (int i = 0; i < samples(3000); ++i) {
        const json v = random_value(rng, 6);
        ASSERT_TRUE(same_text(v));
    }
    const json config = json::parse(R"({"architectures": ["BertModel"], "hidden_size": 384, "layer_norm_eps": 1e-12,
        "id2label": {"0": "NEGATIVE", "1": "POSITIVE"}, "rope_scaling": null, "initializer_range": 0.02,
        "torch_dtype": "float32", "tie_word_embeddings": true, "eos_token_id": [1, 2], "big": 18446744073709551615,
        "neg": -9223372036854775808, "zh": "\u4e2d\u6587", "esc": "\u0000\u001f\"\\/"})");
    EXPECT_TRUE(same_text(config));
}

// number_text: JavaScript's String(number) (ECMA-262 Number::toString), as node prints these.
TEST(NumberText, AsJavaScriptWritesNumbers) {
    const std::pair<double, const char*> cases[] = {
        {0.0, "0"}, {-0.0, "0"}, {1.0, "1"}, {-1.0, "-1"}, {1.5, "1.5"}, {0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"},
        {4294967301.0, "4294967301"}, {9007199254740993.0, "9007199254740992"}, {1e20, "100000000000000000000"},
        {123456789012345680000.0, "123456789012345680000"}, {1e21, "1e+21"}, {1.5e300, "1.5e+300"},
        {0.000001, "0.000001"}, {0.0000015, "0.0000015"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"}, {1e12, "1000000000000"}, {65504.0, "65504"},
        {std::numeric_limits<double>::quiet_NaN(), "NaN"}, {INFINITY, "Infinity"}, {-INFINITY, "-Infinity"}};
    for (const auto& [v, text] : cases) EXPECT_EQ(number_text(v), text) << v;
    std::mt19937_64 rng(30);
    for (int i = 0; i < samples(100000); ++i) {  // every text reads back as the same double
        uint64_t bits = rng();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) continue;
        ASSERT_EQ(std::strtod(number_text(v).c_str(), nullptr), v) << number_text(v);
    }
}

// float_text: the fewest digits that read back as the float, as many as info_json reported when
// it printed "%.6g" ... "%.9g" until strtof gave the float back (its digits before issue 30), for
// every normal float (a decimal exactly on the boundary to the next float included: "67115500"
// for 67115504.0f). Two differences, both reading back as the same float: about 0.2% of floats
// get the other of two shortest decimals in the last digit (printf takes the nearer, or the even
// one in a tie: "23.945313" for 23.9453125f, printf "23.945312"), and subnormals can have fewer
// than six digits ("1e-45", printf "1.4013e-45").
TEST(NumberText, FloatTextIsTheShortestThatReadsBack) {
    const std::pair<float, const char*> cases[] = {{1e-12f, "1e-12"}, {1e-5f, "0.00001"}, {1e-6f, "0.000001"},
                                                   {0.7f, "0.7"},     {10000.0f, "10000"}, {-1.0f, "-1"},
                                                   {0.0f, "0"},       {3.4028235e38f, "3.4028235e+38"},
                                                   {1e-45f, "1e-45"}, {16777216.0f, "16777216"},
                                                   {67115504.0f, "67115500"}};
    for (const auto& [f, text] : cases) EXPECT_EQ(float_text(f), text) << f;
    const auto printf_shortest = [](float f) {
        char text[32];
        for (int digits = 6; digits <= 9; ++digits) {
            std::snprintf(text, sizeof text, "%.*g", digits, double(f));
            if (std::strtof(text, nullptr) == f) break;
        }
        return std::string(text);
    };
    const auto significant_digits = [](const std::string& text) {  // of the mantissa, without leading or trailing zeros
        std::string digits;
        for (const char c : text.substr(0, text.find('e')))
            if (c >= '0' && c <= '9' && !(c == '0' && digits.empty())) digits += c;
        while (!digits.empty() && digits.back() == '0') digits.pop_back();
        return digits.size();
    };
    size_t ties = 0;
    for (uint32_t bits = 0x00800000u; bits < 0x7F800000u; bits += 0x3FFFu * kSanitizerSampleDivisor) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        const std::string ours = float_text(f), theirs = printf_shortest(f);
        ASSERT_EQ(std::strtof(ours.c_str(), nullptr), f) << ours;
        ASSERT_EQ(significant_digits(ours), significant_digits(theirs)) << ours << " " << theirs;
        if (std::strtod(ours.c_str(), nullptr) != std::strtod(theirs.c_str(), nullptr)) ++ties;
    }
    const size_t sampled = (0x7F800000u - 0x00800000u) / (0x3FFFu * kSanitizerSampleDivisor);
    EXPECT_LT(ties, sampled / 100) << ties << " of " << sampled;  // 0.2% measured
    for (uint32_t bits = 1; bits < 0x00800000u; bits += 0x3FFFu * kSanitizerSampleDivisor) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        ASSERT_EQ(std::strtof(float_text(f).c_str(), nullptr), f) << float_text(f);
    }
}

TEST(NumberText, NonFiniteAsPrintfWritesThem) {
    EXPECT_EQ(nonfinite_text(std::numeric_limits<double>::quiet_NaN()), "nan");
    EXPECT_EQ(nonfinite_text(-std::numeric_limits<double>::quiet_NaN()), "-nan");
    EXPECT_EQ(nonfinite_text(INFINITY), "inf");
    EXPECT_EQ(nonfinite_text(-INFINITY), "-inf");
}

}  // namespace
}  // namespace simdformer
