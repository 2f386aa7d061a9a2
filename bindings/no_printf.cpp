// No libc printf in the wasm modules (issue 30): musl's printf_core, its floating-point formatting
// (fmt_fp) and the stdio they write through were ~5.5 KB gzip of every build, for a few messages.
// The library and the entry layer format numbers themselves (io/number_text.h) and nlohmann's one
// snprintf is replaced (io/json_limits.cpp). What is left names printf from the runtime's own
// libraries; the definitions here are found before libc's, so its printf objects are never linked
// (-Wl,--wrap cannot do this under LTO, where the archive's bitcode still names libc's). Found with
// -Wl,--trace-symbol=snprintf,--trace-symbol=siprintf,--trace-symbol=printf: add a name there if
// a new caller ever links printf_core again (the size budget test notices).
#include <cstdarg>
#include <cstdint>

extern "C" {

// Embind's __getTypeName (libembind's bind.cpp) writes a type's address with sprintf(s, "%p", ti),
// compiled to siprintf, the integer-only form: the name of a type nothing bound, for a binding
// error that the module's own bindings never raise. "%p" as musl writes it: 0x and eight hex
// digits ("00000000" for null). Any other format is copied as it stands (no caller has one).
int siprintf(char* out, const char* format, ...) {
    char* o = out;
    if (format[0] == '%' && format[1] == 'p' && format[2] == '\0') {
        va_list args;
        va_start(args, format);
        const auto p = reinterpret_cast<uintptr_t>(va_arg(args, void*));
        va_end(args);
        if (p != 0) {
            *o++ = '0';
            *o++ = 'x';
        }
        for (int shift = 28; shift >= 0; shift -= 4) *o++ = "0123456789abcdef"[(p >> shift) & 15];
    } else {
        for (const char* f = format; *f != '\0'; ++f) *o++ = *f;
    }
    *o = '\0';
    return int(o - out);
}

#if defined(__EMSCRIPTEN_PTHREADS__)
// The pthreads libc's sbrk.c, which emmalloc grows the heap with, also defines brk(), which
// prints "brk() is not theadsafe yet" with printf and aborts. Nothing calls brk, yet that one
// reference linked libc's printf and with it stdout's FILE, which pthread_create's set-up of the
// stdio locks keeps alive (__stdio_write, the fd_write import and its proxying to the main
// thread). Nothing in the threads module prints.
int printf(const char*, ...) { return -1; }
#endif

}  // extern "C"
