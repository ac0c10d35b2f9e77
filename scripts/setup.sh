#!/usr/bin/env bash
# Installs everything Kiln needs to build and test, from Debian 12's packages, and ONNX
# Runtime for node (the numeric reference of test/models/check-models.py) from npm into
# third_party/ort (git-ignored).
# Idempotent: when everything is present it only checks, in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

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
  # ONNX Runtime for node, the reference the CPU path is checked against (npm: see below)
  nodejs
)

# ONNX Runtime's node package, pinned; installed with npm into a folder of the repository.
ort_version=1.30.0
ort_dir=third_party/ort

install_ort() {
  local installed
  installed=$(node -p "require('./$ort_dir/node_modules/onnxruntime-node/package.json').version" \
    2>/dev/null || true)
  if [ "$installed" = "$ort_version" ]; then
    echo "setup: onnxruntime-node $ort_version present"
    return
  fi
  command -v npm >/dev/null ||
    { echo "setup: error: npm is missing; it is needed to install onnxruntime-node" >&2; exit 1; }
  echo "setup: installing onnxruntime-node@$ort_version into $ort_dir"
  mkdir -p "$ort_dir"
  # --ignore-scripts: the package's install script downloads CUDA libraries (and fails
  # without a GPU); the CPU binaries are inside the package itself.
  npm install --prefix "$ort_dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
    "onnxruntime-node@$ort_version" >/dev/null
  node -e "require('./$ort_dir/node_modules/onnxruntime-node')" ||
    { echo "setup: error: onnxruntime-node was installed but does not load" >&2; exit 1; }
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$package")
  fi
done
# NodeSource's nodejs package carries npm and conflicts with Debian's npm package: ask for
# the latter only when no npm command is there.
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  install_ort
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
install_ort
echo "setup: done"
