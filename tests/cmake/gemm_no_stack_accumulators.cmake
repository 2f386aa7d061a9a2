# Fails when the f32 GEMM's micro-kernels keep an accumulator on the stack: a fused multiply-add
# whose operand is a stack slot ((%rsp) / (%rbp)). Run by ctest on the native FMA levels (AVX2,
# AVX-512) built by g++, whose unrolling limits once left the 10- and 14-row AVX-512 tiles rolled
# and spilled every accumulator (2.3-2.9x slower, found only by timing: BENCHMARKS.md Session 15).
#   cmake -DOBJDUMP=objdump -DOBJECT=<gemm.cpp.o> -P gemm_no_stack_accumulators.cmake
execute_process(COMMAND "${OBJDUMP}" -d --no-show-raw-insn "${OBJECT}"
                OUTPUT_VARIABLE disassembly RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} could not read ${OBJECT}")
endif()
string(REGEX MATCHALL "vfn?m(add|sub)[0-9]+ps[^\n]*" fmas "${disassembly}")
list(LENGTH fmas fma_count)
set(stack_fmas "${fmas}")
list(FILTER stack_fmas INCLUDE REGEX "\\(%r[sb]p\\)")
list(LENGTH stack_fmas stack_count)
if(fma_count EQUAL 0)
  message(FATAL_ERROR "no fused multiply-add in ${OBJECT}: not an FMA build?")
endif()
if(stack_count GREATER 0)
  list(GET stack_fmas 0 first)
  message(FATAL_ERROR "${stack_count} of ${fma_count} multiply-adds read a stack slot (an accumulator spilled), e.g. '${first}'")
endif()
message(STATUS "${fma_count} multiply-adds, none with a stack operand")
