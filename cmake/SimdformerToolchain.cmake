# Included before project(): with SIMDFORMER_WASM=ON and no toolchain given, use Emscripten's
# CMake toolchain from the emcc found on PATH (Debian's package and emsdk both keep it at
# <emscripten root>/cmake/Modules/Platform/Emscripten.cmake), so presets name no install path.
option(SIMDFORMER_WASM "Build for WebAssembly with the emcc on PATH (sets the Emscripten toolchain)" OFF)
if(SIMDFORMER_WASM AND NOT CMAKE_TOOLCHAIN_FILE)
  find_program(SIMDFORMER_EMCC emcc)
  if(NOT SIMDFORMER_EMCC)
    message(FATAL_ERROR "SIMDFORMER_WASM=ON but emcc is not on PATH; install emscripten (scripts/setup.sh) "
                        "or pass -DCMAKE_TOOLCHAIN_FILE=<emscripten>/cmake/Modules/Platform/Emscripten.cmake")
  endif()
  file(REAL_PATH "${SIMDFORMER_EMCC}" _sf_emcc)
  get_filename_component(_sf_em_root "${_sf_emcc}" DIRECTORY)
  set(_sf_toolchain "${_sf_em_root}/cmake/Modules/Platform/Emscripten.cmake")
  if(NOT EXISTS "${_sf_toolchain}")
    message(FATAL_ERROR "no Emscripten.cmake next to ${_sf_emcc} (looked for ${_sf_toolchain}); "
                        "pass -DCMAKE_TOOLCHAIN_FILE=...")
  endif()
  set(CMAKE_TOOLCHAIN_FILE "${_sf_toolchain}" CACHE FILEPATH "Emscripten toolchain (found from emcc)")
endif()
