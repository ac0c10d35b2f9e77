#!/usr/bin/env bash
# Regenerates the reference pages in docs/reference/ from the .td files: builds the
# kiln-docs target (mlir-tblgen only) in build/ (or $KILN_BUILD_DIR), configuring it first
# if needed, and copies the pages it made. Run it after changing a pass's or an op's
# description, options or attributes; test/docs/reference-current.test fails until then.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja
fi
cmake --build "$build_dir" --target kiln-docs

mkdir -p docs/reference
for page in Passes GraphDialect KernelDialect; do
  cp "$build_dir/docs/reference/$page.md" "docs/reference/$page.md"
done
echo "docs/reference/: Passes.md, GraphDialect.md, KernelDialect.md from $build_dir"
