// Numbers as text for messages and reports, without libc's printf: its floating-point formatting
// (musl's fmt_fp, printf_core and their stdio) was ~5.5 KB gzip of every wasm build, for a few
// error messages (issue 30). The digits are json_text's Grisu2 (io/json_text.cpp).
#pragma once

#include <string>

namespace simdformer {

// v as JavaScript's String(v) writes a number: the shortest digits that read back as v ("1.5",
// "0.1", "4294967301", "1e+21", "1.5e-7"), "NaN", "Infinity", "-Infinity", and "0" for -0.
std::string number_text(double v);
// The shortest digits that read back as f in float (strtof), in number_text's notation ("1e-12"
// for 1e-12f, not the double's "9.999999960041972e-13").
std::string float_text(float f);
// A non-finite v as printf's "%f" writes it: "nan", "-nan", "inf", "-inf".
std::string nonfinite_text(double v);

}  // namespace simdformer
