#include "simdformer/io/json_text.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "simdformer/io/decimal.h"
#include "simdformer/io/number_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

// ---- Integers

void append_decimal(std::string& out, uint64_t magnitude, bool negative) {
    char text[21];  // 20 digits of 2^64 - 1 and a sign
    char* first = text + sizeof text;
    do {
        *--first = char('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (negative) *--first = '-';
    out.append(first, text + sizeof text);
}

// ---- Doubles: Grisu2 (Florian Loitsch, "Printing Floating-Point Numbers Quickly and
// Accurately with Integers", PLDI 2010), with the boundaries and cached powers dump() uses, so
// that the digits come out the same, and its rounding step towards the exact value.

// f * 2^e: a 64-bit significand and a binary exponent (the paper's "diy_fp").
struct Fp {
    uint64_t f;
    int e;
};

// x * y with the 128-bit product's upper half rounded half up; in 32-bit halves, as wasm32 and
// the i386 build have no 128-bit integers. The exponent is exact, the significand within 1/2 unit.
Fp multiply(Fp x, Fp y) {
    const uint64_t x_lo = x.f & 0xFFFFFFFFu, x_hi = x.f >> 32;
    const uint64_t y_lo = y.f & 0xFFFFFFFFu, y_hi = y.f >> 32;
    const uint64_t lo_lo = x_lo * y_lo, lo_hi = x_lo * y_hi, hi_lo = x_hi * y_lo, hi_hi = x_hi * y_hi;
    // Bits 32..95 of the product, plus 2^31: the carry into bit 64 rounds (three 32-bit terms
    // and 2^31 cannot overflow 64 bits).
    const uint64_t middle = (lo_lo >> 32) + (lo_hi & 0xFFFFFFFFu) + (hi_lo & 0xFFFFFFFFu) + (uint64_t{1} << 31);
    return {hi_hi + (lo_hi >> 32) + (hi_lo >> 32) + (middle >> 32), x.e + y.e + 64};
}

Fp normalized(Fp x) {  // x.f != 0: shifted until its top bit is set
    const int shift = __builtin_clzll(x.f);
    return {x.f << shift, x.e - shift};
}

// The products' exponent range the digit generation needs: with e in [-60, -32] the integral
// part of a significand fits 32 bits and ten times its fraction does not overflow.
constexpr int kAlpha = -60;

// 10^k ~ kPow10Significand[i] * 2^e for k = kPow10MinK + kPow10StepK * i, each significand the
// 64-bit one nearest to the exact power (normalized: top bit set), and e = floor(k log2 10) - 63
// (pow10_binary_exponent). Generated with Python's exact fractions: for k in range(-300, 325, 8):
// v = Fraction(10)**k, e with 2^63 <= v / 2^e < 2^64, f = v / 2^e rounded to nearest.
constexpr int kPow10MinK = -300;
constexpr int kPow10StepK = 8;
constexpr uint64_t kPow10Significand[] = {
    0xAB70FE17C79AC6CA, 0xFF77B1FCBEBCDC4F, 0xBE5691EF416BD60C, 0x8DD01FAD907FFC3C, 0xD3515C2831559A83,
    0x9D71AC8FADA6C9B5, 0xEA9C227723EE8BCB, 0xAECC49914078536D, 0x823C12795DB6CE57, 0xC21094364DFB5637,
    0x9096EA6F3848984F, 0xD77485CB25823AC7, 0xA086CFCD97BF97F4, 0xEF340A98172AACE5, 0xB23867FB2A35B28E,
    0x84C8D4DFD2C63F3B, 0xC5DD44271AD3CDBA, 0x936B9FCEBB25C996, 0xDBAC6C247D62A584, 0xA3AB66580D5FDAF6,
    0xF3E2F893DEC3F126, 0xB5B5ADA8AAFF80B8, 0x87625F056C7C4A8B, 0xC9BCFF6034C13053, 0x964E858C91BA2655,
    0xDFF9772470297EBD, 0xA6DFBD9FB8E5B88F, 0xF8A95FCF88747D94, 0xB94470938FA89BCF, 0x8A08F0F8BF0F156B,
    0xCDB02555653131B6, 0x993FE2C6D07B7FAC, 0xE45C10C42A2B3B06, 0xAA242499697392D3, 0xFD87B5F28300CA0E,
    0xBCE5086492111AEB, 0x8CBCCC096F5088CC, 0xD1B71758E219652C, 0x9C40000000000000, 0xE8D4A51000000000,
    0xAD78EBC5AC620000, 0x813F3978F8940984, 0xC097CE7BC90715B3, 0x8F7E32CE7BEA5C70, 0xD5D238A4ABE98068,
    0x9F4F2726179A2245, 0xED63A231D4C4FB27, 0xB0DE65388CC8ADA8, 0x83C7088E1AAB65DB, 0xC45D1DF942711D9A,
    0x924D692CA61BE758, 0xDA01EE641A708DEA, 0xA26DA3999AEF774A, 0xF209787BB47D6B85, 0xB454E4A179DD1877,
    0x865B86925B9BC5C2, 0xC83553C5C8965D3D, 0x952AB45CFA97A0B3, 0xDE469FBD99A05FE3, 0xA59BC234DB398C25,
    0xF6C69A72A3989F5C, 0xB7DCBF5354E9BECE, 0x88FCF317F22241E2, 0xCC20CE9BD35C78A5, 0x98165AF37B2153DF,
    0xE2A0B5DC971F303A, 0xA8D9D1535CE3B396, 0xFB9B7CD9A4A7443C, 0xBB764C4CA7A44410, 0x8BAB8EEFB6409C1A,
    0xD01FEF10A657842C, 0x9B10A4E5E9913129, 0xE7109BFBA19C0C9D, 0xAC2820D9623BF429, 0x80444B5E7AA7CF85,
    0xBF21E44003ACDD2D, 0x8E679C2F5E44FF8F, 0xD433179D9C8CB841, 0x9E19DB92B4E31BA9,
};
static_assert(sizeof kPow10Significand / sizeof kPow10Significand[0] == 79, "k = -300 ... 324");

// floor(k log2 10) - 63 with 1741647 / 2^19 for log2 10: exact for every cached k (checked against
// the exact powers when the table was generated; the shift of a negative product is arithmetic,
// i.e. the floor, in every compiler this builds with).
int pow10_binary_exponent(int k) { return ((k * 1741647) >> 19) - 63; }

// The table entry whose product with a significand of binary exponent e has an exponent in
// [kAlpha, kAlpha + 28]: k = ceil((kAlpha - e - 1) * log10 2) with 78913 / 2^18 for log10 2 (the
// division truncates towards zero: for f <= 0 that is the ceiling, for f > 0 the floor, plus 1),
// then the first cached k at or above it.
int cached_power_index(int e) {
    const int f = kAlpha - e - 1;
    const int k = (f * 78913) / (1 << 18) + (f > 0 ? 1 : 0);
    return (-kPow10MinK + k + (kPow10StepK - 1)) / kPow10StepK;
}

// digits[0, length) * 10^exponent.
struct Decimal {
    char digits[32];  // Grisu2 writes at most 17
    int length = 0;
    int exponent = 0;
};

// Grisu2's last step: while the digits' value v stays inside [low, high] and moves closer to w,
// lower the last digit. dist = high - w, delta = high - low, rest = high - v, unit = one unit of
// the last digit, all scaled alike.
void round_towards_w(Decimal& d, uint64_t dist, uint64_t delta, uint64_t rest, uint64_t unit) {
    while (rest < dist && delta - rest >= unit && (rest + unit < dist || dist - rest > rest + unit - dist)) {
        --d.digits[d.length - 1];
        rest += unit;
    }
}

// The fewest leading digits of high that leave a value inside [low, high] (the digits of high
// cut there), then rounded towards w. low, w and high share one exponent in [kAlpha, -32].
void generate_digits(Fp low, Fp w, Fp high, Decimal& d) {
    const int shift = -high.e;
    const uint64_t one = uint64_t{1} << shift;  // 1 at this exponent
    uint64_t delta = high.f - low.f;
    uint64_t dist = high.f - w.f;
    uint32_t integral = uint32_t(high.f >> shift);  // >= 2^(63 - 60) > 0
    uint64_t fraction = high.f & (one - 1);

    uint32_t pow10 = 1;  // the largest power of ten <= integral, with n its number of digits
    int n = 1;
    for (; n < 10 && integral >= pow10 * 10; ++n) pow10 *= 10;
    while (n > 0) {
        d.digits[d.length++] = char('0' + integral / pow10);
        integral %= pow10;
        --n;
        const uint64_t rest = (uint64_t{integral} << shift) + fraction;  // high - digits * 10^n
        if (rest <= delta) {
            d.exponent += n;
            round_towards_w(d, dist, delta, rest, uint64_t{pow10} << shift);
            return;
        }
        pow10 /= 10;
    }
    for (;;) {  // the integral digits were not enough: the fraction's, one by one
        fraction *= 10;
        d.digits[d.length++] = char('0' + (fraction >> shift));
        fraction &= one - 1;
        --d.exponent;
        delta *= 10;
        dist *= 10;
        if (fraction <= delta) break;
    }
    round_towards_w(d, dist, delta, fraction, one);
}

// x > 0, a value of a binary floating-point format: a short decimal that reads back as x in that
// format. lower_is_closer: x is a power of two whose lower neighbour is in the binade below (half
// as far), i.e. not at the format's smallest normal exponent (the subnormals below are spaced alike).
Decimal shortest_decimal(Fp x, bool lower_is_closer) {
    // The halfway points to the neighbouring values.
    const Fp high = normalized({2 * x.f + 1, x.e - 1});
    const Fp low_raw = lower_is_closer ? Fp{4 * x.f - 1, x.e - 2} : Fp{2 * x.f - 1, x.e - 1};
    const Fp low = {low_raw.f << (low_raw.e - high.e), high.e};
    const Fp w = normalized(x);  // same exponent as high: 2 x.f + 1 has one bit more than x.f

    const int i = cached_power_index(high.e);
    const int k = kPow10MinK + kPow10StepK * i;
    const Fp c = {kPow10Significand[i], pow10_binary_exponent(k)};
    const Fp w_c = multiply(w, c), low_c = multiply(low, c), high_c = multiply(high, c);
    Decimal d;
    d.exponent = -k;
    // The products are within one unit of the exact ones: keep one unit inside the boundaries.
    generate_digits({low_c.f + 1, low_c.e}, w_c, {high_c.f - 1, high_c.e}, d);
    return d;
}

// v finite and > 0: a short decimal that reads back as v.
Decimal shortest_decimal(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
    const int biased = int(bits >> 52);  // the sign bit is clear
    const Fp x = biased == 0 ? Fp{fraction, 1 - 1075} : Fp{fraction | (uint64_t{1} << 52), biased - 1075};
    return shortest_decimal(x, fraction == 0 && biased > 1);
}

// f finite and > 0: a short decimal that reads back as f in float (strtof). The same steps over
// float's neighbours: its interval is 2^29 times wider than the 64-bit products' error, so the
// shrinking by one unit above costs nothing in practice.
Decimal shortest_float_decimal(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint32_t fraction = bits & ((uint32_t{1} << 23) - 1);
    const int biased = int(bits >> 23);  // the sign bit is clear
    const Fp x = biased == 0 ? Fp{fraction, 1 - 150} : Fp{fraction | (uint64_t{1} << 23), biased - 150};
    return shortest_decimal(x, fraction == 0 && biased > 1);
}

// d as JavaScript's Number::toString writes it (ECMA-262, 6.1.6.1.20): plain for decimal points
// from 10^-6 to 10^21, otherwise d.ddde+X / d.ddde-X.
void append_js_decimal(std::string& out, const Decimal& d) {
    const int k = d.length;
    const int n = d.length + d.exponent;  // where the decimal point falls in the digits
    if (k <= n && n <= 21) {
        out.append(d.digits, size_t(k)).append(size_t(n - k), '0');
    } else if (0 < n && n <= 21) {
        out.append(d.digits, size_t(n)).append(1, '.').append(d.digits + n, size_t(k - n));
    } else if (-6 < n && n <= 0) {
        out.append("0.").append(size_t(-n), '0').append(d.digits, size_t(k));
    } else {
        out += d.digits[0];
        if (k > 1) out.append(1, '.').append(d.digits + 1, size_t(k - 1));
        out.append(n - 1 < 0 ? "e-" : "e+");
        append_decimal(out, uint64_t(std::abs(n - 1)), false);
    }
}

// Plain notation for decimal points from 10^-4 to 10^15 ("1.0" for integral values: a
// double reads back as a double), otherwise d.ddde+XX with at least two exponent digits.
void append_double(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    if (std::signbit(v)) {
        out += '-';
        v = -v;
    }
    if (v == 0) {
        out += "0.0";
        return;
    }
    const Decimal d = shortest_decimal(v);
    const int k = d.length;
    const int n = d.length + d.exponent;  // where the decimal point falls in the digits
    if (k <= n && n <= 15) {
        out.append(d.digits, size_t(k)).append(size_t(n - k), '0').append(".0");
    } else if (0 < n && n <= 15) {
        out.append(d.digits, size_t(n)).append(1, '.').append(d.digits + n, size_t(k - n));
    } else if (-4 < n && n <= 0) {
        out.append("0.").append(size_t(-n), '0').append(d.digits, size_t(k));
    } else {
        out += d.digits[0];
        if (k > 1) out.append(1, '.').append(d.digits + 1, size_t(k - 1));
        const int exponent = n - 1;
        out.append(exponent < 0 ? "e-" : "e+");
        if (std::abs(exponent) < 10) out += '0';
        append_decimal(out, uint64_t(std::abs(exponent)), false);
    }
}

// ---- Strings

char hex_digit(unsigned value, const char* digits) { return digits[value & 15]; }

[[noreturn]] void throw_utf8_error(const char* what, const std::string* index, unsigned char byte) {
    std::string message = what;
    if (index) message.append(*index).append(": ");
    message.append("0x").append(1, hex_digit(byte >> 4, "0123456789ABCDEF")).append(1, hex_digit(byte, "0123456789ABCDEF"));
    throw std::invalid_argument(message);
}

[[noreturn]] void throw_invalid_byte(const std::string& s, size_t i) {
    std::string index;
    append_decimal(index, i, false);
    throw_utf8_error("invalid UTF-8 byte at index ", &index, static_cast<unsigned char>(s[i]));
}

// The length of the UTF-8 sequence starting with s[i] >= 0x80. Well-formed sequences as Unicode
// defines them (Table 3-7): a lead byte C2..F4, then continuation bytes 80..BF, the first of them
// narrowed after E0 (A0..), ED (..9F), F0 (90..) and F4 (..8F), so no overlong form, surrogate or
// code point past U+10FFFF passes. Throws at the first byte no sequence can hold, as dump() does.
size_t utf8_sequence_length(const std::string& s, size_t i) {
    const auto lead = static_cast<unsigned char>(s[i]);
    size_t length = 2;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else if (lead < 0xC2 || lead > 0xDF) {
        throw_invalid_byte(s, i);
    }
    for (size_t j = 1; j < length; ++j) {
        if (i + j == s.size())
            throw_utf8_error("incomplete UTF-8 string; last byte: ", nullptr, static_cast<unsigned char>(s.back()));
        const auto c = static_cast<unsigned char>(s[i + j]);
        if (c < low || c > high) throw_invalid_byte(s, i + j);
        low = 0x80;
        high = 0xBF;
    }
    return length;
}

void append_string(std::string& out, const std::string& s) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const size_t length = utf8_sequence_length(s, i);
            out.append(s, i, length);
            i += length;
            continue;
        }
        ++i;
        switch (c) {
            case '"': out.append("\\\""); break;
            case '\\': out.append("\\\\"); break;
            case '\b': out.append("\\b"); break;
            case '\f': out.append("\\f"); break;
            case '\n': out.append("\\n"); break;
            case '\r': out.append("\\r"); break;
            case '\t': out.append("\\t"); break;
            default:
                if (c < 0x20) {
                    out.append("\\u00").append(1, hex_digit(c >> 4, "0123456789abcdef")).append(1, hex_digit(c, "0123456789abcdef"));
                } else {
                    out += char(c);
                }
        }
    }
    out += '"';
}

// ---- Values. Recursion depth = nesting depth (<= kMaxJsonDepth for parsed texts).

void append_value(std::string& out, const json& v) {
    switch (v.type()) {
        case json::value_t::null: out.append("null"); return;
        case json::value_t::discarded: out.append("<discarded>"); return;
        case json::value_t::boolean: out.append(*v.get_ptr<const json::boolean_t*>() ? "true" : "false"); return;
        case json::value_t::number_integer: {
            const int64_t i = *v.get_ptr<const json::number_integer_t*>();
            append_decimal(out, i < 0 ? 0 - uint64_t(i) : uint64_t(i), i < 0);
            return;
        }
        case json::value_t::number_unsigned: append_decimal(out, *v.get_ptr<const json::number_unsigned_t*>(), false); return;
        case json::value_t::number_float: append_double(out, *v.get_ptr<const json::number_float_t*>()); return;
        case json::value_t::string: append_string(out, *v.get_ptr<const json::string_t*>()); return;
        case json::value_t::array: {
            out += '[';
            bool first = true;
            for (const json& item : *v.get_ptr<const json::array_t*>()) {
                if (!first) out += ',';
                first = false;
                append_value(out, item);
            }
            out += ']';
            return;
        }
        case json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, member] : *v.get_ptr<const json::object_t*>()) {
                if (!first) out += ',';
                first = false;
                append_string(out, key);
                out += ':';
                append_value(out, member);
            }
            out += '}';
            return;
        }
        case json::value_t::binary: {
            const json::binary_t& bytes = *v.get_ptr<const json::binary_t*>();
            out.append("{\"bytes\":[");
            for (size_t i = 0; i < bytes.size(); ++i) {
                if (i) out += ',';
                append_decimal(out, bytes[i], false);
            }
            out.append("],\"subtype\":");
            if (bytes.has_subtype()) append_decimal(out, bytes.subtype(), false);
            else out.append("null");
            out += '}';
            return;
        }
    }
}

}  // namespace

std::string json_text(const nlohmann::json& value) {
    std::string out;
    append_value(out, value);
    return out;
}

std::string number_text(double v) {
    if (std::isnan(v)) return "NaN";
    std::string out;
    if (v < 0) {
        out += '-';
        v = -v;
    }
    if (std::isinf(v)) return out + "Infinity";
    if (v == 0) return "0";  // -0 too, as JavaScript prints it
    append_js_decimal(out, shortest_decimal(v));
    return out;
}

std::string float_text(float f) {
    if (!std::isfinite(f) || f == 0) return number_text(f);
    std::string out;
    if (f < 0) {
        out += '-';
        f = -f;
    }
    const Decimal d = shortest_float_decimal(f);
    // Grisu2 keeps strictly inside the halfway points to the neighbouring floats, but a decimal
    // exactly on one reads back as f when f's significand is even (strtof rounds the tie to it):
    // 67115500 for 67115504.0f. Such a shorter decimal is d rounded to fewer digits: the first
    // that reads back as f, if any.
    for (int k = 1; k < d.length; ++k) {
        Decimal r;
        r.length = k;
        r.exponent = d.exponent + (d.length - k);
        std::memcpy(r.digits, d.digits, size_t(k));
        if (d.digits[k] >= '5') {  // half up, carrying
            int i = k - 1;
            while (i >= 0 && r.digits[i] == '9') r.digits[i--] = '0';
            if (i >= 0) {
                ++r.digits[i];
            } else {  // 99.. -> 100..: one digit, one decade up
                r.digits[0] = '1';
                r.length = 1;
                r.exponent += k;
            }
        }
        std::string text(r.digits, size_t(r.length));
        text.append(1, 'e');
        append_decimal(text, uint64_t(std::abs(r.exponent)), r.exponent < 0);
        // Read as a double, then rounded to float: a decimal exactly on a halfway point is a
        // double (25 significant bits), so the float's tie to even is strtof's; parse_float would
        // keep a second instantiation of the decimal parser in every wasm build (+331 B gzip).
        if (static_cast<float>(parse_double(text.c_str(), nullptr)) == f) {
            append_js_decimal(out, r);
            return out;
        }
    }
    append_js_decimal(out, d);
    return out;
}

std::string nonfinite_text(double v) {
    const char* name = std::isnan(v) ? "nan" : "inf";
    return std::signbit(v) ? std::string("-") + name : std::string(name);
}

}  // namespace simdformer
