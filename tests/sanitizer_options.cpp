// Sanitizer defaults compiled into the wasm-asan test and fuzz binaries: Emscripten's sanitizer
// runtimes read their options from the module's own environment, not from node's, so
// ASAN_OPTIONS cannot be passed on the command line.
//  - allocator_may_return_null=1: in the shipped module a request wasm memory cannot satisfy
//    makes malloc return null (and operator new throw), which the library reports as
//    out_of_memory; ASan's default would instead abort on any request over its 3 GiB limit.
//  - halt_on_error / print_stacktrace: a UBSan finding ends the run with a failure and a stack
//    (the build also passes -fno-sanitize-recover=all).
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
