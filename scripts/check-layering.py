#!/usr/bin/python3
"""Checks the layering of Kiln's sources: which parts of the tree may include which, and
that no project header includes itself through others (a cycle).

The layers, lowest first (a part may include its own files and the layers below it):

    include/kiln, runtime        no MLIR or LLVM: the runtime builds alone
    dialects                     the graph and kernel dialects
    passes/graph                 graph passes: no kernel dialect, no GPU dialect, no
                                 kernel or lowering pass
    passes/analysis, passes/quantization
                                 support both the passes and lib/ use
    passes/kernel, passes/lowering, passes (Pipelines)
    lib                          the host side: importer, calibration, engine, driver
    tools

Prints one line per violation and a last line "layering: N passed, N failed", counting
source files (a file fails with any violation; a cycle fails once), which the README's
test command adds up; exits non-zero on any violation.

    /usr/bin/python3 scripts/check-layering.py
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["include", "runtime", "dialects", "passes", "lib", "tools"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
GPU_HEADERS = re.compile(r"^mlir/(Dialect/(GPU|NVGPU|LLVMIR)|Conversion/(GPU|NVGPU|NVVM))")


def part(path):
    """The layer a project path belongs to."""
    if path.startswith(("include/kiln", "runtime/")):
        return "runtime"
    if path.startswith("dialects/"):
        return "dialects"
    if path.startswith("passes/graph/"):
        return "passes/graph"
    if path.startswith(("passes/analysis/", "passes/quantization/")):
        return "passes/support"
    if path.startswith("passes/"):
        return "passes"
    if path.startswith("lib/"):
        return "lib"
    if path.startswith("tools/"):
        return "tools"
    return None


# What each layer may include, besides itself.
ALLOWED = {
    "runtime": set(),
    "dialects": {"runtime"},
    "passes/support": {"runtime", "dialects"},
    "passes/graph": {"runtime", "dialects", "passes/support"},
    "passes": {"runtime", "dialects", "passes/support", "passes/graph"},
    "lib": {"runtime", "dialects", "passes/support", "passes/graph", "passes"},
    "tools": {"runtime", "dialects", "passes/support", "passes/graph", "passes", "lib"},
}


def project_files():
    for top in SOURCE_DIRS:
        for directory, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith((".h", ".cpp", ".h.in")):
                    yield os.path.relpath(os.path.join(directory, name), ROOT)


def resolve(included):
    """The project path of an include, or None for an external or generated header."""
    for candidate in (included, os.path.join("include", included)):
        if os.path.exists(os.path.join(ROOT, candidate)):
            return candidate
    return None


def main():
    failures, files = [], 0
    failed_files = set()
    graph = {}
    for path in sorted(project_files()):
        with open(os.path.join(ROOT, path), errors="replace") as f:
            includes = INCLUDE.findall(f.read())
        files += 1
        source = part(path)
        edges = []
        before = len(failures)
        for included in includes:
            if source == "runtime" and included.startswith(("mlir/", "llvm/")):
                failures.append(f"{path}: includes {included}: the runtime builds without MLIR")
                continue
            if source == "passes/graph" and (GPU_HEADERS.match(included) or
                                             included.startswith("dialects/kernel/")):
                failures.append(f"{path}: includes {included}: graph passes link no GPU or "
                                "kernel dialect")
                continue
            target_path = resolve(included)
            if target_path is None:
                continue
            target = part(target_path)
            edges.append(target_path)
            if source and target and source != target and target not in ALLOWED[source]:
                failures.append(f"{path}: includes {included}: {source} may not include {target}")
        if len(failures) > before:
            failed_files.add(path)
        graph[path] = edges

    # Cycles among project headers (a .cpp includes but is never included).
    state = {}
    cycles = []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for child in graph.get(node, []):
            if state.get(child) == "open":
                cycles.append(stack[stack.index(child):] + [child])
            elif child not in state:
                visit(child, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    for cycle in cycles:
        failures.append("include cycle: " + " -> ".join(cycle))

    for failure in failures:
        print(failure)
    failed = len(failed_files) + len(cycles)
    print(f"layering: {files - len(failed_files)} passed, {failed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
