#!/usr/bin/env bash
# Installs everything Kiln needs to build and test, from Debian 12's packages.
# Idempotent: when every package is present it only checks, in well under a second.
set -euo pipefail

packages=(
  # Build
  cmake ninja-build g++ lld ccache pkg-config
  # LLVM/MLIR 22: libraries, tablegen, and FileCheck/not/lit for the tests
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # Static archives the self-contained (static-LLVM) tools link
  zlib1g-dev libzstd-dev
  # ONNX models: protobuf and Debian's ONNX library, the backend test data, and python3-onnx
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata python3-onnx
  # Unit tests; clang and its runtimes for the fuzzer (scripts/fuzz-importer.sh)
  libgtest-dev clang-22 libclang-rt-22-dev
  # Bundling tools for the GPU machine
  xz-utils binutils
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: error: not root and no sudo to install packages" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q "${missing[@]}"
echo "setup: done"
