# Installs a built simdformer into a fresh prefix, builds tests/consumer against it and runs it.
#   cmake -DBUILD_DIR=<simdformer build dir> -DWORK_DIR=<scratch dir> -P tests/consumer/run.cmake
# (CTest runs it as the test "consumer.install_build_run" of native builds.)
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()
get_filename_component(_source "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(REMOVE_RECURSE "${WORK_DIR}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
# The installed tree holds the public headers only.
file(GLOB_RECURSE _internal "${WORK_DIR}/prefix/include/simdformer/*/*")
if(_internal)
  message(FATAL_ERROR "internal headers were installed: ${_internal}")
endif()
run(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK_DIR}/build" -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer" "${_source}/tests/data/encoder.safetensors" "${_source}/tests/data/encoder.json"
    "${_source}/tests/data/hf/bert")
