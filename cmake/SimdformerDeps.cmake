# xsimd >= 11 (needed for WebAssembly), nlohmann-json, GoogleTest.
if(EXISTS "${SIMDFORMER_DEPS_PREFIX}/usr/share/cmake/xsimd")
  if(EMSCRIPTEN)
    # Emscripten re-roots package searches; the prefix root is appended to the find roots.
    list(APPEND CMAKE_FIND_ROOT_PATH "${SIMDFORMER_DEPS_PREFIX}")
  else()
    list(PREPEND CMAKE_PREFIX_PATH "${SIMDFORMER_DEPS_PREFIX}/usr")
  endif()
endif()

if(SIMDFORMER_SIMD)
  # xsimd's version file accepts only the same major version, so the minimum is checked here.
  find_package(xsimd CONFIG REQUIRED)
  if(xsimd_VERSION VERSION_LESS 11)
    message(FATAL_ERROR "xsimd ${xsimd_VERSION} found at ${xsimd_DIR}; simdformer needs xsimd >= 11 "
                        "(the first with WebAssembly). Run scripts/setup.sh to unpack one into .deps/.")
  endif()
endif()

# nlohmann-json is header-only; its Debian CMake config lives outside Emscripten's find roots,
# so the include directory is located directly.
find_path(SIMDFORMER_NLOHMANN_INCLUDE nlohmann/json.hpp
          PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
# Only the nlohmann folder is exposed (through a link in the build tree): adding all of
# /usr/include would put the host's libc headers in front of Emscripten's.
set(_sf_json_dir "${CMAKE_BINARY_DIR}/_deps/nlohmann_json/include")
file(MAKE_DIRECTORY "${_sf_json_dir}")
file(CREATE_LINK "${SIMDFORMER_NLOHMANN_INCLUDE}/nlohmann" "${_sf_json_dir}/nlohmann" SYMBOLIC)
add_library(simdformer_json INTERFACE)
target_include_directories(simdformer_json SYSTEM INTERFACE "${_sf_json_dir}")
