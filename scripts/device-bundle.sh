#!/usr/bin/env bash
# Packs the built tools so they run on the GPU machine (Ubuntu 24.04, no LLVM):
#   .bundle/kiln-device.tar.xz  with bin/<tool> (stripped) and lib/ (shared libraries the
#   tools need beyond the C and C++ runtimes, if any).
# The tools link LLVM/MLIR statically (KILN_STATIC_LLVM, the default), so they need only
# libc, libm, libstdc++ and libgcc_s there. Carry .bundle with the device call and unpack:
#   mkdir -p /tmp/kiln && tar xJf .bundle/kiln-device.tar.xz -C /tmp/kiln
#   export PATH=/tmp/kiln/bin:$PATH LD_LIBRARY_PATH=/tmp/kiln/lib
#
# Usage: scripts/device-bundle.sh [TOOL...]
#   (default: kiln kiln-opt KilnRuntimeTests make-test-engine; the last two link only the
#   runtime and are small: scripts/device-runtime.sh uses them)
set -euo pipefail
cd "$(dirname "$0")/.."

tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(kiln kiln-opt KilnRuntimeTests make-test-engine)
build_dir=${KILN_BUILD_DIR:-build}
bundle_dir=.bundle
# The tarball must stay well under the 64 MiB that travels with a device call.
limit_bytes=$((48 * 1024 * 1024))

scripts/build.sh >/dev/null
grep -q '^KILN_STATIC_LLVM:BOOL=ON' "$build_dir/CMakeCache.txt" || {
  echo "device-bundle: error: $build_dir was configured with KILN_STATIC_LLVM=OFF;" \
    "its tools need libLLVM, which the GPU machine lacks" >&2
  exit 1
}

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin" "$staging/lib"

# Libraries every Linux machine has; anything else a tool needs goes into lib/.
system_libs='^(linux-vdso|libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libdl|libpthread|librt|libz)\.so'
for tool in "${tools[@]}"; do
  binary="$build_dir/bin/$tool"
  [ -x "$binary" ] || { echo "device-bundle: error: $binary was not built" >&2; exit 1; }
  strip -o "$staging/bin/$tool" "$binary"
  ldd "$binary" | awk '$2 == "=>" { print $1, $3 }' | while read -r name path; do
    grep -qE "$system_libs" <<<"$name" || cp -L "$path" "$staging/lib/"
  done
done

mkdir -p "$bundle_dir"
tar -C "$staging" -cf - bin lib | xz -T"$(nproc)" -6 >"$bundle_dir/kiln-device.tar.xz.tmp"
mv "$bundle_dir/kiln-device.tar.xz.tmp" "$bundle_dir/kiln-device.tar.xz"

size=$(stat -c %s "$bundle_dir/kiln-device.tar.xz")
echo "device-bundle: $bundle_dir/kiln-device.tar.xz, $((size / 1024 / 1024)) MiB: ${tools[*]}"
if [ "$size" -gt "$limit_bytes" ]; then
  echo "device-bundle: error: the bundle exceeds $((limit_bytes / 1024 / 1024)) MiB; bundle fewer tools" >&2
  exit 1
fi
