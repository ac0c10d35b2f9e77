#!/usr/bin/python3
"""Writes docs/onnx-coverage.md: which ONNX operators Kiln imports, at which opsets, and
which ONNX backend test models import, with the reason for each that does not.

Runs scripts/import-onnx-tests.sh (needs a built kiln-translate) and reads the models with
Debian's python3-onnx for their operators and the schemas for their versions. Also writes
test/conformance/import-failures.txt, the cases expected not to import; with --check it
writes nothing and fails if a case outside that list no longer imports.

    /usr/bin/python3 scripts/onnx-coverage.py [--check]
"""

import collections
import os
import subprocess
import sys

import onnx
import onnx.defs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("ONNX_TESTDATA", "/usr/share/libonnx-testdata/data")
MIN_OPSET, MAX_OPSET = 1, 21
DOC = os.path.join(ROOT, "docs/onnx-coverage.md")
EXPECTED_FAILURES = os.path.join(ROOT, "test/conformance/import-failures.txt")

# Operators left out on purpose, and why. Cases whose import fails on one of these are
# listed under "Out of scope"; every other failure is a gap to close.
OUT_OF_SCOPE = {
    "training": ["Gradient", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"],
    "sequence and optional values": [
        "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
        "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence",
        "OptionalGetElement", "OptionalHasElement", "Optional"],
    "strings": ["StringNormalizer", "TfIdfVectorizer", "RegexFullMatch", "StringConcat",
                "StringSplit"],
}
OUT_OF_SCOPE_OPS = {op: reason for reason, ops in OUT_OF_SCOPE.items() for op in ops}


def run_imports():
    env = dict(os.environ)
    result = subprocess.run([os.path.join(ROOT, "scripts/import-onnx-tests.sh")], cwd=ROOT,
                            env=env, capture_output=True, text=True, check=True)
    cases = {}
    for line in result.stderr.splitlines():
        fields = line.split("\t")
        if len(fields) >= 2 and fields[1] in ("ok", "fail"):
            cases[fields[0]] = (fields[1], fields[2] if len(fields) > 2 else "")
    return cases


def case_ops(case):
    model = onnx.load(os.path.join(DATA, case, "model.onnx"))
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    ops = set()

    def walk(graph):
        for node in graph.node:
            ops.add(node.op_type)
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    return sorted(ops), opset


# The domains Kiln imports: the default one and the training optimizers' (opset 1).
DOMAINS = ("", "ai.onnx", "ai.onnx.preview.training")


def schema_versions(op):
    try:
        versions = sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history()
                           if s.name == op and s.domain in DOMAINS})
    except Exception:
        versions = []
    return [v for v in versions if v <= MAX_OPSET]


def classify(case, status, error, ops, opset):
    if status == "ok":
        return None
    if opset and opset < MIN_OPSET:
        return f"opset {opset}: before opset {MIN_OPSET}, outside the supported range"
    for op in ops:
        if op in OUT_OF_SCOPE_OPS:
            return f"{OUT_OF_SCOPE_OPS[op]}: {op}"
    if "sequence type" in error or "optional type" in error:
        return "sequence and optional values"
    if "STRING" in error:
        return "strings"
    if "training" in error:
        return "training: " + ", ".join(ops)
    return None


def check(cases):
    """Every case not listed as an expected failure must import."""
    with open(EXPECTED_FAILURES) as f:
        expected = {line.split()[0] for line in f if line.strip() and not line.startswith("#")}
    regressions = sorted(c for c, (s, _) in cases.items() if s == "fail" and c not in expected)
    fixed = sorted(c for c, (s, _) in cases.items() if s == "ok" and c in expected)
    for case in regressions:
        print(f"regression: {case} no longer imports: {cases[case][1]}")
    if fixed:
        print(f"{len(fixed)} expected failures now import; regenerate with scripts/onnx-coverage.py")
    ok = sum(1 for s, _ in cases.values() if s == "ok")
    print(f"onnx-import: {ok} passed, {len(regressions)} failed")
    return 1 if regressions else 0


def main(output):
    cases = run_imports()
    by_op = collections.defaultdict(list)
    out_of_scope = collections.defaultdict(list)
    gaps = []
    for case, (status, error) in sorted(cases.items()):
        ops, opset = case_ops(case)
        for op in ops:
            by_op[op].append((case, status))
        reason = classify(case, status, error, ops, opset)
        if status == "fail":
            (out_of_scope[reason].append(case) if reason else gaps.append((case, error)))

    ok = sum(1 for s, _ in cases.values() if s == "ok")
    lines = [
        "# ONNX coverage",
        "",
        "Generated by `scripts/onnx-coverage.py` from the ONNX backend test data "
        f"(`{DATA}`: node, pytorch-converted, pytorch-operator, simple); do not edit by hand.",
        "",
        f"**{ok} of {len(cases)} test models import.** "
        f"{sum(len(v) for v in out_of_scope.values())} are out of scope (below, with reasons); "
        f"{len(gaps)} fail for reasons still to fix (last section).",
        "",
        f"Kiln imports opsets {MIN_OPSET} to {MAX_OPSET} of the default domain and opset 1 of "
        "`ai.onnx.preview.training` (Adagrad, Adam, Momentum). "
        "For each operator: its schema versions up to opset 21, and the test models that use it.",
        "",
        "| operator | schema versions | test models importing | failing test models |",
        "| --- | --- | --- | --- |",
    ]
    for op in sorted(by_op):
        entries = by_op[op]
        good = sum(1 for _, s in entries if s == "ok")
        failing = [c.split("/", 1)[1] for c, s in entries if s == "fail"]
        shown = ", ".join(failing[:6]) + (f", ... ({len(failing) - 6} more)" if len(failing) > 6 else "")
        versions = ", ".join(str(v) for v in schema_versions(op)) or "—"
        lines.append(f"| {op} | {versions} | {good} / {len(entries)} | {shown} |")

    lines += ["", "## Out of scope", ""]
    for reason in sorted(out_of_scope, key=str):
        names = ", ".join(c.split("/", 1)[1] for c in out_of_scope[reason])
        lines.append(f"- **{reason}** ({len(out_of_scope[reason])}): {names}")

    lines += ["", "## Failing for reasons still to fix", ""]
    if not gaps:
        lines.append("None.")
    for case, error in gaps:
        lines.append(f"- `{case}`: {error}")
    with open(output, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.makedirs(os.path.dirname(EXPECTED_FAILURES), exist_ok=True)
    with open(EXPECTED_FAILURES, "w") as f:
        f.write("# ONNX backend test models that are expected not to import, with the reason.\n"
                "# Generated by scripts/onnx-coverage.py; `--check` (run by scripts/test.sh)\n"
                "# fails when a case outside this list stops importing.\n")
        for case, (status, error) in sorted(cases.items()):
            if status == "fail":
                f.write(f"{case}\t{error}\n")
    print(f"{output}: {ok} of {len(cases)} import, {len(gaps)} gaps")


if __name__ == "__main__":
    if "--check" in sys.argv[1:]:
        sys.exit(check(run_imports()))
    main(DOC)
