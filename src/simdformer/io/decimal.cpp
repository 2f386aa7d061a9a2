#include "simdformer/io/decimal.h"

#include <cerrno>
#include <cfloat>
#include <cstdint>
#include <cstring>

namespace simdformer {
namespace {

// The formats: significand bits (with the hidden one), the exponent of the smallest subnormal's
// bit and the largest unbiased exponent.
struct Format {
    int bits;
    int min_lsb;
    int max_exp;
};
constexpr Format kDouble{53, -1074, 1023};
constexpr Format kFloat{24, -149, 127};

// An unsigned integer of up to 4096 bits, little-endian 32-bit limbs. The largest one needed:
// 10^1105 (781 digits of a number of magnitude 1e-324) shifted left by 64 bits, about 3740 bits.
struct Big {
    static constexpr int kLimbs = 128;
    uint32_t w[kLimbs];
    int n = 0;  // limbs in use (no leading zero limb)

    void set(uint32_t v) {
        n = v ? 1 : 0;
        w[0] = v;
    }
    void trim() {
        while (n > 0 && w[n - 1] == 0) --n;
    }
    // this = this * m + a
    void mul_add(uint32_t m, uint32_t a) {
        uint64_t carry = a;
        for (int i = 0; i < n; ++i) {
            const uint64_t t = uint64_t(w[i]) * m + carry;
            w[i] = uint32_t(t);
            carry = t >> 32;
        }
        if (carry) w[n++] = uint32_t(carry);
    }
    void mul_pow10(int k) {
        for (; k >= 9; k -= 9) mul_add(1000000000u, 0);
        static constexpr uint32_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        if (k > 0) mul_add(kPow10[k], 0);
    }
    int bit_length() const {
        if (n == 0) return 0;
        int b = 32;
        while (!(w[n - 1] >> (b - 1))) --b;
        return (n - 1) * 32 + b;
    }
    void shift_left(int bits) {
        if (n == 0 || bits == 0) return;
        const int limbs = bits / 32, r = bits % 32;
        w[n] = 0;
        for (int i = n; i >= 0; --i) {
            const uint32_t hi = w[i] << r | (r && i > 0 ? w[i - 1] >> (32 - r) : 0);
            w[i + limbs] = hi;
        }
        for (int i = 0; i < limbs; ++i) w[i] = 0;
        n += limbs + 1;
        trim();
    }
    void shift_right1() {
        for (int i = 0; i < n; ++i) w[i] = w[i] >> 1 | (i + 1 < n ? w[i + 1] << 31 : 0);
        trim();
    }
    int compare(const Big& o) const {
        if (n != o.n) return n < o.n ? -1 : 1;
        for (int i = n - 1; i >= 0; --i)
            if (w[i] != o.w[i]) return w[i] < o.w[i] ? -1 : 1;
        return 0;
    }
    void subtract(const Big& o) {  // this >= o
        int64_t borrow = 0;
        for (int i = 0; i < n; ++i) {
            const int64_t t = int64_t(w[i]) - (i < o.n ? o.w[i] : 0) - borrow;
            w[i] = uint32_t(t);
            borrow = t < 0;
        }
        trim();
    }
};

// The format's bit pattern of q * 2^exp2 (q != 0), rounded to nearest, ties to even; `sticky`
// says that the exact value is a little above that (nonzero bits below q).
uint64_t round_to_format(uint64_t q, int exp2, bool sticky, const Format& f, bool* range_error) {
    int top = 63;  // q's highest set bit
    while (!(q >> top)) --top;
    const int e = top + exp2;  // unbiased exponent of the leading bit
    const int lsb = e - (f.bits - 1) > f.min_lsb ? e - (f.bits - 1) : f.min_lsb;
    const int drop = lsb - exp2;  // bits of q below the result's last bit
    uint64_t m;
    if (drop <= 0) {
        m = q << -drop;  // exact (drop >= -(f.bits - 1 - top), so nothing leaves the top)
    } else if (drop > 64) {
        m = 0;  // below half of the smallest subnormal: zero, and an underflow
        *range_error = true;
    } else {
        const uint64_t below = drop == 64 ? q : q & ((uint64_t(1) << drop) - 1);
        const uint64_t half = uint64_t(1) << (drop - 1);
        m = drop == 64 ? 0 : q >> drop;
        const bool up = below > half || (below == half && (sticky || (m & 1)));
        if (up) ++m;
        // Inexact and tiny is an underflow. Tiny as IEEE 754 (and glibc) say: below the smallest
        // normal even when rounded with an unbounded exponent, so a value that rounds up to the
        // smallest normal from under 3/4 of the last subnormal step is tiny too.
        const uint64_t min_normal = uint64_t(1) << (f.bits - 1);
        if ((below || sticky) &&
            (m < min_normal || (up && m == min_normal && (drop < 2 || below < uint64_t(3) << (drop - 2)))))
            *range_error = true;
    }
    if (m == 0) return 0;
    int biased = lsb + (f.bits - 1) + f.max_exp;  // exponent field if m has its full width
    if (m >> f.bits) {  // rounding carried into a new bit
        m >>= 1;
        ++biased;
    }
    if (m < (uint64_t(1) << (f.bits - 1))) return m;  // subnormal (lsb == min_lsb)
    if (biased >= 2 * f.max_exp + 1) {
        *range_error = true;
        return uint64_t(2 * f.max_exp + 1) << (f.bits - 1);  // infinity
    }
    return uint64_t(biased) << (f.bits - 1) | (m & ((uint64_t(1) << (f.bits - 1)) - 1));
}

// 781 significant digits decide the rounding of every double (the exact halfway points between
// doubles have at most 767); more are folded into one nonzero digit after them.
constexpr int kMaxDigits = 781;

// digits[0..n) (no leading zero, n >= 1) times 10^wide_e10, rounded to the format.
uint64_t decimal_bits(const char* digits, int n, int64_t wide_e10, const Format& f, bool* range_error) {
    const uint64_t inf = uint64_t(2 * f.max_exp + 1) << (f.bits - 1);
    // The value lies in [10^(n-1+e10), 10^(n+e10)).
    const int max10 = f.bits == 53 ? 310 : 40, min10 = f.bits == 53 ? -324 : -46;
    if (n + wide_e10 > max10) {
        *range_error = true;
        return inf;
    }
    if (n + wide_e10 < min10) {
        *range_error = true;
        return 0;
    }
    const int e10 = int(wide_e10);  // now within [min10 - kMaxDigits - 1, max10)
    // Clinger's fast path: an exact integer and an exact power of ten, one rounding (where float
    // and double arithmetic round to their own precision: not x87).
    if (FLT_EVAL_METHOD == 0 && n <= 19) {
        uint64_t d = 0;
        for (int i = 0; i < n; ++i) d = d * 10 + uint64_t(digits[i] - '0');
        if (f.bits == 53 && d <= (uint64_t(1) << 53) && e10 >= -22 && e10 <= 22) {
            static constexpr double kP[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                              1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
            const double v = e10 >= 0 ? double(d) * kP[e10] : double(d) / kP[-e10];
            uint64_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            return bits;
        }
        if (f.bits == 24 && d <= (uint64_t(1) << 24) && e10 >= -10 && e10 <= 10) {
            static constexpr float kP[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
            const float v = e10 >= 0 ? float(d) * kP[e10] : float(d) / kP[-e10];
            uint32_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            return bits;
        }
    }
    // value = num / den; q = floor(num * 2^s / den) has 63 or 64 bits.
    Big num, den;
    num.set(0);
    for (int i = 0; i < n;) {
        uint32_t chunk = 0, scale = 1;
        for (int j = 0; j < 9 && i < n; ++j, ++i) {
            chunk = chunk * 10 + uint32_t(digits[i] - '0');
            scale *= 10;
        }
        if (num.n == 0) num.set(chunk);
        else num.mul_add(scale, chunk);
    }
    den.set(1);
    if (e10 >= 0) num.mul_pow10(e10);
    else den.mul_pow10(-e10);
    const int s = 63 - (num.bit_length() - den.bit_length());
    if (s >= 0) num.shift_left(s);
    else den.shift_left(-s);
    den.shift_left(63);
    uint64_t q = 0;
    for (int bit = 63; bit >= 0; --bit) {
        if (num.compare(den) >= 0) {
            num.subtract(den);
            q |= uint64_t(1) << bit;
        }
        den.shift_right1();
    }
    return round_to_format(q, -s, num.n != 0, f, range_error);
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// s starts with `word` in any case (word in lower case).
bool starts_with_word(const char* s, const char* word) {
    for (; *word; ++s, ++word)
        if ((*s | 0x20) != *word) return false;
    return true;
}

// Exponents are held in 64 bits and saturate here: past any count of digits a text can hold, so
// that "1" + a million zeros + "e-1000000" still cancels to 1, and far from overflowing.
constexpr int64_t kExponentCap = int64_t{1} << 50;

// Reads an exponent "[+-]digits" at p (after the 'e' or 'p'); false (p unchanged) if there is
// none. Saturates at kExponentCap.
bool read_exponent(const char*& p, int64_t* exp) {
    const char* q = p;
    bool neg = false;
    if (*q == '+' || *q == '-') neg = *q++ == '-';
    if (*q < '0' || *q > '9') return false;
    int64_t e = 0;
    for (; *q >= '0' && *q <= '9'; ++q)
        if (e < kExponentCap) e = e * 10 + (*q - '0');
    *exp = neg ? -e : e;
    p = q;
    return true;
}

// The format's bits of the number at s (after white space and the sign), or false and `p` at s
// when there is none.
uint64_t scan(const char* s, const char** p_end, const Format& f, bool* ok, bool* range_error) {
    const uint64_t inf = uint64_t(2 * f.max_exp + 1) << (f.bits - 1);
    const char* p = s;
    *ok = true;
    if (starts_with_word(p, "inf")) {
        *p_end = p + (starts_with_word(p, "infinity") ? 8 : 3);
        return inf;
    }
    if (starts_with_word(p, "nan")) {
        p += 3;
        if (*p == '(') {  // nan(n-char-sequence): letters, digits and '_'
            const char* q = p + 1;
            while (((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z') || (*q >= '0' && *q <= '9') || *q == '_') ++q;
            if (*q == ')') p = q + 1;
        }
        *p_end = p;
        return inf | uint64_t(1) << (f.bits - 2);  // a quiet NaN
    }
    if (p[0] == '0' && (p[1] | 0x20) == 'x' && (hex_value(p[2]) >= 0 || (p[2] == '.' && hex_value(p[3]) >= 0))) {
        p += 2;
        uint64_t q = 0;
        int64_t exp2 = 0;
        bool sticky = false, any = false;
        for (bool frac = false;; ++p) {
            if (*p == '.' && !frac) {
                frac = true;
                continue;
            }
            const int v = hex_value(*p);
            if (v < 0) break;
            if (q >> 60) {  // 64 bits held: the rest only counts (and shifts) from here
                sticky |= v != 0;
                if (!frac) exp2 += 4;
            } else {
                q = q << 4 | uint64_t(v);
                any |= v != 0;
                if (frac) exp2 -= 4;
            }
        }
        int64_t e = 0;
        if ((*p | 0x20) == 'p') {
            const char* after = p + 1;
            if (read_exponent(after, &e)) p = after;
        }
        *p_end = p;
        if (!any) return 0;
        // q < 2^64, so past 2^20 either way the value is far beyond the format's range: clamped,
        // it rounds to the same infinity or zero, in int arithmetic that cannot overflow.
        const int64_t limit = int64_t{1} << 20, total = exp2 + e;
        return round_to_format(q, int(total > limit ? limit : total < -limit ? -limit : total), sticky, f, range_error);
    }
    char digits[kMaxDigits + 1];
    int n = 0;
    int64_t e10 = 0;  // one step per digit: bounded by the text's length
    bool any_digit = false, more = false;
    for (bool frac = false;; ++p) {
        if (*p == '.' && !frac) {
            frac = true;
            continue;
        }
        if (*p < '0' || *p > '9') break;
        any_digit = true;
        if (n == 0 && *p == '0') {  // a leading zero
            if (frac) --e10;
            continue;
        }
        if (n < kMaxDigits) {
            digits[n++] = *p;
            if (frac) --e10;
        } else {
            more |= *p != '0';
            if (!frac) ++e10;
        }
    }
    if (!any_digit) {
        *ok = false;
        *p_end = s;
        return 0;
    }
    if ((*p | 0x20) == 'e') {
        const char* after = p + 1;
        int64_t e = 0;
        if (read_exponent(after, &e)) {
            p = after;
            e10 += e;
        }
    }
    *p_end = p;
    if (n == 0) return 0;
    if (more) {  // a nonzero digit past the ones kept: one more nonzero digit stands for them
        digits[n++] = '1';
        --e10;
    }
    return decimal_bits(digits, n, e10, f, range_error);
}

uint64_t parse(const char* s, char** end, const Format& f) {
    const char* p = s;
    while (is_space(*p)) ++p;
    bool neg = false;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    bool ok = false, range_error = false;
    const char* after = p;
    uint64_t bits = scan(p, &after, f, &ok, &range_error);
    if (!ok) {  // no number: nothing is consumed, not even the white space or sign
        if (end) *end = const_cast<char*>(s);
        return 0;
    }
    if (end) *end = const_cast<char*>(after);
    if (range_error) errno = ERANGE;
    if (neg) bits |= uint64_t(1) << (f.bits == 53 ? 63 : 31);
    return bits;
}

}  // namespace

double parse_double(const char* s, char** end) {
    const uint64_t bits = parse(s, end, kDouble);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

float parse_float(const char* s, char** end) {
    const uint32_t bits = uint32_t(parse(s, end, kFloat));
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

}  // namespace simdformer

#if defined(__EMSCRIPTEN__)
#include <locale.h>

// The wasm builds' strtod and strtof (musl's are left unlinked; see decimal.h). Every caller in
// the module gets these: nlohmann's lexer (strtod) and info's shortest_float (strtof, strtod).
extern "C" double strtod(const char* s, char** end) { return simdformer::parse_double(s, end); }
extern "C" float strtof(const char* s, char** end) { return simdformer::parse_float(s, end); }
// libc's strtod.o also holds strtold and the *_l forms, which libc++ names (string.o for
// std::stold, locale.o's num_get in the test binaries); defined here the linker never takes that
// object. Nothing in the module calls them (the optimizer drops them): should anything ever,
// strtold gets a double's precision in wasm32's 128-bit long double, not strtold's. The locale
// is ignored, as musl's own *_l do.
extern "C" long double strtold(const char* s, char** end) { return simdformer::parse_double(s, end); }
extern "C" float strtof_l(const char* s, char** end, locale_t) { return simdformer::parse_float(s, end); }
extern "C" double strtod_l(const char* s, char** end, locale_t) { return simdformer::parse_double(s, end); }
extern "C" long double strtold_l(const char* s, char** end, locale_t) { return simdformer::parse_double(s, end); }
#endif
