// parse_double / parse_float (io/decimal.h, the wasm builds' strtod and strtof) against glibc's
// strtod / strtof, which round correctly: the same bits and the same end for every text. Natively
// this compares the two; in the wasm builds strtod and strtof are ours, so there the test only
// checks the values against the exact ones written here.
#include "simdformer/io/decimal.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace simdformer {
namespace {

using test::kSanitizerSampleDivisor;
using test::samples;

uint64_t bits_of(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
uint32_t bits_of(float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

#if !defined(__EMSCRIPTEN__)
// errno after f(): ERANGE or 0.
template <typename F>
int errno_of(F f) {
    errno = 0;
    f();
    return errno;
}

// Ours against glibc's on one text: the same bits (any NaN for a NaN), the same end and the same
// ERANGE (overflow, and underflow: a nonzero value that rounds to a subnormal or to zero).
::testing::AssertionResult same_as_libc(const std::string& text) {
    char* end_ours = nullptr;
    char* end_libc = nullptr;
    double d_ours = 0, d_libc = 0;
    const int range_ours = errno_of([&] { d_ours = parse_double(text.c_str(), &end_ours); });
    const int range_libc = errno_of([&] { d_libc = std::strtod(text.c_str(), &end_libc); });
    const bool d_same = (std::isnan(d_ours) && std::isnan(d_libc)) || bits_of(d_ours) == bits_of(d_libc);
    if (!d_same || end_ours != end_libc || range_ours != range_libc)
        return ::testing::AssertionFailure() << "strtod(\"" << text << "\"): ours " << d_ours << " (0x" << std::hex
                                             << bits_of(d_ours) << ") end " << std::dec << (end_ours - text.c_str())
                                             << ", glibc " << d_libc << " (0x" << std::hex << bits_of(d_libc)
                                             << ") end " << std::dec << (end_libc - text.c_str()) << ", errno "
                                             << range_ours << " vs " << range_libc;
    float f_ours = 0, f_libc = 0;
    const int f_range_ours = errno_of([&] { f_ours = parse_float(text.c_str(), &end_ours); });
    const int f_range_libc = errno_of([&] { f_libc = std::strtof(text.c_str(), &end_libc); });
    const bool f_same = (std::isnan(f_ours) && std::isnan(f_libc)) || bits_of(f_ours) == bits_of(f_libc);
    if (!f_same || end_ours != end_libc || f_range_ours != f_range_libc)
        return ::testing::AssertionFailure() << "strtof(\"" << text << "\"): ours " << f_ours << " (0x" << std::hex
                                             << bits_of(f_ours) << ") end " << std::dec << (end_ours - text.c_str())
                                             << ", glibc " << f_libc << " (0x" << std::hex << bits_of(f_libc)
                                             << ") end " << std::dec << (end_libc - text.c_str()) << ", errno "
                                             << f_range_ours << " vs " << f_range_libc;
    return ::testing::AssertionSuccess();
}

TEST(Decimal, SyntaxLikeStrtod) {
    for (const char* t :
         {"", " ", "+", "-", ".", "e5", "x", "1", "-1", "+1", "  \t\n42abc", "1.", ".5", "-.5", "1.e3", "1e", "1e+",
          "1e-", "1ex", "1e+5x", "1.5E-3", "00000.000001", "0", "-0", "-0.0e10", "0e999999999", "1e999999999",
          "1e-999999999", "inf", "-INF", "Infinity", "infinit", "infx", "nan", "-NaN", "nan(123abc_)", "nan(", "nan()",
          "nan(1", "0x", "0x.", "0x1", "0X1P-2", "0x1.8p3", "0x.8", "0x1p", "0x1p+", "0x1pz", "0x1.fffffffffffff8p0",
          "0x1.fffffffffffff7ffffp0", "0x1.000000000000080000001p0", "0xffffffffffffffffffffp0", "0x1p-1074",
          "0x1p-1075", "0x1.8p-1075", "0x1p1024", "0x0p5", "0x0.0000001p0", "1e308", "1.8e308", "1.7976931348623157e308",
          "1.7976931348623158e308", "1.7976931348623159e308", "4.9e-324", "2.4703282292062327e-324",
          "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072012e-308", "3.4028235e38",
          "3.4028236e38", "1.4e-45", "7.006e-46", "7.0064923216240854e-46", "7.0064923216240862e-46",
          "1.1754942e-38", "9007199254740993", "9007199254740992.5", "9007199254740993.0000000001",
          "123456789012345678901234567890", "0.1", "0.2", "0.3", "1e-12", "1e-5", "1e-06", "0.02", "10000.0",
          "500000.0", "1000000.0", "1e23", "8.5e-7", "16777217", "16777217.000001", "33554435"})
        EXPECT_TRUE(same_as_libc(t));
}

// Exponents written with more digits than an int holds, and runs of a million digits that an
// exponent cancels: the digit count and the exponent add up exactly (neither saturates first).
TEST(Decimal, LongRunsAndHugeExponentsLikeLibc) {
    const std::string zeros(1000000, '0');
    for (const std::string& t :
         {"1" + zeros + "e-1000000", "0." + zeros + "1e1000001", "0." + zeros + "1e1000000", "1" + zeros,
          "0." + zeros + "1", "1e-" + zeros + "1", "1e" + zeros + "300", "0x1" + zeros + "p-4000000",
          "0x0." + zeros + "1p4000000", std::string("0x1p-99999999999999999999"),
          std::string("0x1p99999999999999999999"), std::string("1e-99999999999999999999"),
          std::string("1e99999999999999999999")})
        EXPECT_TRUE(same_as_libc(t)) << t.size() << " characters";
}

TEST(Decimal, HalfwayCasesAndLongDigitStrings) {
    // The halfway point between two doubles, written out exactly (up to 767 digits), and the same
    // a hair above and below it, including after 800 digits.
    std::mt19937_64 rng(7);
    for (int i = 0; i < samples(3000); ++i) {
        const double d = std::ldexp(double(rng() >> 11), int(rng() % 2100) - 1100 - 53);
        char text[1200];
        // d + half an ulp, exact with %.1100g (the binary fraction has a finite decimal form)
        const double next = std::nextafter(d, INFINITY);
        if (!std::isfinite(next)) continue;
        const long double mid = (static_cast<long double>(d) + static_cast<long double>(next)) / 2;
        std::snprintf(text, sizeof text, "%.1100Lg", mid);
        ASSERT_TRUE(same_as_libc(text));
        std::string above = std::string(text);
        if (above.find('e') == std::string::npos) {
            if (above.find('.') == std::string::npos) above += ".";
            ASSERT_TRUE(same_as_libc(above + std::string(900, '0') + "1"));
            ASSERT_TRUE(same_as_libc(above + std::string(900, '0')));
        }
    }
}

TEST(Decimal, RandomTexts) {
    std::mt19937_64 rng(11);
    char text[128];
    for (int i = 0; i < samples(300000); ++i) {
        uint64_t b = rng();
        double d;
        std::memcpy(&d, &b, sizeof d);
        if (!std::isfinite(d)) continue;
        const int digits = 1 + int(rng() % 19);
        std::snprintf(text, sizeof text, "%.*g", digits, d);
        ASSERT_TRUE(same_as_libc(text));
        float f;
        uint32_t fb = uint32_t(rng());
        std::memcpy(&f, &fb, sizeof f);
        if (!std::isfinite(f)) continue;
        std::snprintf(text, sizeof text, "%.*g", 1 + int(rng() % 10), double(f));
        ASSERT_TRUE(same_as_libc(text));
        std::snprintf(text, sizeof text, "%a", d);
        ASSERT_TRUE(same_as_libc(text));
    }
    // Random digit strings with random exponents.
    for (int i = 0; i < samples(200000); ++i) {
        std::string t;
        const int n = 1 + int(rng() % 40);
        for (int j = 0; j < n; ++j) t += char('0' + rng() % 10);
        if (rng() % 2) t.insert(rng() % (t.size() + 1), ".");
        t += "e" + std::to_string(int(rng() % 700) - 350);
        ASSERT_TRUE(same_as_libc(t));
    }
}
#endif

// Every build (wasm included, where strtod is ours): the shortest round-trip texts printf writes
// (%.17g of a double, %.9g of a float) and %a read back to the same bits.
TEST(Decimal, RoundTrips) {
    std::mt19937_64 rng(5);
    char text[64];
    for (int i = 0; i < samples(100000); ++i) {
        const uint64_t b = rng();
        double d;
        std::memcpy(&d, &b, sizeof d);
        if (!std::isfinite(d)) continue;
        std::snprintf(text, sizeof text, "%.17g", d);
        ASSERT_EQ(bits_of(parse_double(text, nullptr)), b) << text;
        std::snprintf(text, sizeof text, "%a", d);
        ASSERT_EQ(bits_of(parse_double(text, nullptr)), b) << text;
        const uint32_t fb = uint32_t(b >> 32);
        float f;
        std::memcpy(&f, &fb, sizeof f);
        if (!std::isfinite(f)) continue;
        std::snprintf(text, sizeof text, "%.9g", double(f));
        ASSERT_EQ(bits_of(parse_float(text, nullptr)), fb) << text;
    }
}

TEST(Decimal, KnownValues) {
    char* end = nullptr;
    EXPECT_EQ(bits_of(parse_double("0.1", &end)), 0x3FB999999999999Aull);
    EXPECT_EQ(bits_of(parse_double("1e-12", &end)), 0x3D719799812DEA11ull);
    EXPECT_EQ(bits_of(parse_double("2.2250738585072011e-308", &end)), 0x000FFFFFFFFFFFFFull);
    EXPECT_EQ(bits_of(parse_double("4.9e-324", &end)), 0x0000000000000001ull);
    EXPECT_EQ(bits_of(parse_double("2.4703282292062327e-324", &end)), 0x0000000000000000ull);
    EXPECT_EQ(bits_of(parse_double("2.4703282292062328e-324", &end)), 0x0000000000000001ull);
    EXPECT_EQ(bits_of(parse_double("9007199254740993", &end)), 0x4340000000000000ull);  // a tie, to even
    EXPECT_EQ(bits_of(parse_double("9007199254740993.0000000001", &end)), 0x4340000000000001ull);
    EXPECT_EQ(bits_of(parse_double("1.7976931348623158e308", &end)), 0x7FEFFFFFFFFFFFFFull);
    errno = 0;
    EXPECT_EQ(bits_of(parse_double("1.7976931348623159e308", &end)), 0x7FF0000000000000ull);
    EXPECT_EQ(errno, ERANGE);
    EXPECT_EQ(bits_of(parse_double("-0", &end)), 0x8000000000000000ull);
    EXPECT_EQ(bits_of(parse_double("0x1.8p3", &end)), bits_of(12.0));
    EXPECT_EQ(bits_of(parse_float("1e-5", &end)), 0x3727C5ACu);
    EXPECT_EQ(bits_of(parse_float("16777217", &end)), 0x4B800000u);  // a tie, to even
    EXPECT_EQ(bits_of(parse_float("3.4028235e38", &end)), 0x7F7FFFFFu);
    EXPECT_EQ(bits_of(parse_float("1.4e-45", &end)), 0x00000001u);
    const char* t = "  -12.5e1x";
    EXPECT_EQ(parse_double(t, &end), -125.0);
    EXPECT_EQ(end, t + 9);
    const char* none = "  -x";
    EXPECT_EQ(parse_double(none, &end), 0.0);
    EXPECT_EQ(end, none);
    // A million digits and an exponent that cancels them: exactly 1, in linear time.
    const std::string zeros(1000000, '0');
    EXPECT_EQ(parse_double(("1" + zeros + "e-1000000").c_str(), nullptr), 1.0);
    EXPECT_EQ(parse_double(("0." + zeros + "1e1000001").c_str(), nullptr), 1.0);
    EXPECT_EQ(parse_float(("0." + zeros + "25e1000000").c_str(), nullptr), 0.25f);
    // Too small for the format, written in range of the digits' count: zero and ERANGE.
    errno = 0;
    EXPECT_EQ(bits_of(parse_float("7e-46", &end)), 0u);
    EXPECT_EQ(errno, ERANGE);
    errno = 0;
    EXPECT_EQ(bits_of(parse_double("0x1p-99999999", &end)), 0u);
    EXPECT_EQ(errno, ERANGE);
#if defined(__EMSCRIPTEN__)
    // The module's strtod and strtof are these.
    EXPECT_EQ(bits_of(std::strtod("1e-12", nullptr)), 0x3D719799812DEA11ull);
    EXPECT_EQ(bits_of(std::strtof("16777217", nullptr)), 0x4B800000u);
#endif
}

}  // namespace
}  // namespace simdformer
