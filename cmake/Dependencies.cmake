# Finds LLVM/MLIR 22, protobuf and ONNX. scripts/setup.sh installs all of them from
# Debian's packages; the hints below make a plain `cmake -S . -B build` find them.

find_package(MLIR REQUIRED CONFIG
  HINTS ${MLIR_DIR} /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Kiln needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION} in ${MLIR_DIR}")
endif()
message(STATUS "Kiln: MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH ${MLIR_CMAKE_DIR} ${LLVM_CMAKE_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(KILN_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${KILN_LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  add_compile_options(-fno-rtti)
endif()

if(KILN_STATIC_LLVM)
  include(${PROJECT_SOURCE_DIR}/cmake/StaticLLVM.cmake)
endif()

# Debian's export of MLIRExecutionEngine links the whole libMLIR.so besides the static
# archives, which loads a second copy of LLVM's command-line registry (the tools then
# lose every pass option). Link it like any other MLIR library instead.
set_target_properties(MLIRExecutionEngine PROPERTIES INTERFACE_LINK_LIBRARIES
  "MLIRExecutionEngineUtils;MLIRTargetLLVMIRExport;MLIRLLVMToLLVMIRTranslation;MLIRBuiltinToLLVMIRTranslation;LLVM")

# ONNX's CMake package needs protobuf's targets to exist first.
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED)
add_compile_definitions(ONNX_ML=1 ONNX_NAMESPACE=onnx)

set(KILN_LIT ${LLVM_TOOLS_BINARY_DIR}/lit CACHE FILEPATH "lit used to run the regression tests")
find_package(GTest)
