// Internal. Decimal (and hexadecimal) text to double and float, correctly rounded, with C's
// strtod / strtof rules: leading white space, a sign, "inf" / "infinity" / "nan[(...)]" in any
// case, "0x" hexadecimal floats with a binary exponent; *end after the number (or at the start
// when there is none); ERANGE on overflow and on a result that underflows.
//
// Why not libc's: musl's strtod computes in long double, which wasm32 has only as 128-bit
// software floating point; its scanner and the soft-float routines it pulls in were 11.4 KB of raw
// wasm (5.8 KB gzip) in the threads build (issue 30). io/decimal.cpp defines strtod and strtof for the wasm builds on top of
// these, so nlohmann's number parser and everyone else link them instead. The exact fast path
// (Clinger 1990) takes the numbers configs hold; the rest are rounded from a big-integer
// quotient. tests/cpp/decimal_test.cpp compares both with glibc's strtod / strtof natively.
#pragma once

namespace simdformer {

double parse_double(const char* s, char** end);
float parse_float(const char* s, char** end);

}  // namespace simdformer
