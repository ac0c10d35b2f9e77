# Compiler, linker and warning settings shared by every Kiln target.

find_program(KILN_CCACHE ccache)
if(KILN_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${KILN_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${KILN_CCACHE})
endif()

# lld links the MLIR archives in seconds where GNU ld takes minutes.
find_program(KILN_LLD NAMES ld.lld ld.lld-22)
if(KILN_LLD)
  add_link_options(-fuse-ld=lld)
  message(STATUS "Kiln: linking with ${KILN_LLD}")
endif()

# Warnings apply to our code only: LLVM/MLIR headers are included as system headers.
set(KILN_WARNING_FLAGS -Wall -Wextra -Wno-unused-parameter)
if(KILN_WERROR)
  list(APPEND KILN_WARNING_FLAGS -Werror)
endif()

# Adds Kiln's warning flags to a target.
function(kiln_target_warnings target)
  target_compile_options(${target} PRIVATE ${KILN_WARNING_FLAGS})
endfunction()

# Fuzzing builds instrument all of Kiln's code for coverage and with AddressSanitizer;
# the LLVM/MLIR archives stay uninstrumented.
if(KILN_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_BUILD_FUZZERS needs clang (CXX=clang++-22)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
endif()
