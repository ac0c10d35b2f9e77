#!/usr/bin/python3
"""Runs every ONNX backend test case through `kiln run --device cpu` (or `--device cuda`
on a GPU machine) and compares the outcome with test/conformance/cpu-expectations.txt
(gpu-expectations.txt).

Each test_data_set_N of each case under node, pytorch-converted, pytorch-operator and
simple runs as `kiln run MODEL --device cpu --inputs-dir D --expect-dir D` with the
tolerances of ONNX's backend test runner (rtol 1e-3, atol 1e-7), under a timeout. A case is
  pass         every data set matches
  fail         a mismatch (exit 1) or any error (reason: the mismatch or first error line)
  unsupported  exit 3: the model uses something Kiln does not support (reason: the message)
  crash        a signal or the timeout; counted as a failure wherever it happens
The expectations file lists every case that does not pass (`folder/case<TAB>status<TAB>
reason`); a case not listed must pass.

    run-conformance.py            run all, rewrite docs/onnx-conformance.md, report changes
    run-conformance.py --check    run all, write nothing; fail on a regression: a case not
                                  listed that does not pass, or a crash anywhere
    run-conformance.py --update   run, rewrite the expectations (and the document on a full run)
    --filter REGEX                only the cases whose folder/case name matches (the document
                                  is then not rewritten; --update changes only those lines)

Ends with "onnx-conformance: N passed, N failed" (passing cases; regressions and crashes).
Environment: KILN_BUILD_DIR (default build), ONNX_TESTDATA.
"""

import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test"))
from kiln_run_log import UNSUPPORTED, crash_summary, first_error  # noqa: E402
BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
DATA = os.environ.get("ONNX_TESTDATA", "/usr/share/libonnx-testdata/data")
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
# Per device (--device): what is expected not to pass, and the generated document.
EXPECTATIONS_OF = {"cpu": "test/conformance/cpu-expectations.txt",
                   "cuda": "test/conformance/gpu-expectations.txt"}
DOC_OF = {"cpu": "docs/onnx-conformance.md", "cuda": "docs/onnx-conformance-gpu.md"}
TITLE_OF = {"cpu": "the CPU", "cuda": "the GPU"}
DEVICE = "cpu"
EXPECTATIONS = os.path.join(ROOT, EXPECTATIONS_OF[DEVICE])
IMPORT_FAILURES = os.path.join(ROOT, "test/conformance/import-failures.txt")
DOC = os.path.join(ROOT, DOC_OF[DEVICE])
# onnx.backend.test.loader.load_model_tests: the defaults for a case without data.json.
RTOL, ATOL = "1e-3", "1e-7"
# Worst first: a case takes the worst status of its data sets.
STATUSES = ["crash", "fail", "unsupported", "pass"]


def find_cases(pattern):
    """[(folder/case, case dir, [data set dirs])], sorted."""
    cases = []
    for folder in FOLDERS:
        base = os.path.join(DATA, folder)
        for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            case = f"{folder}/{name}"
            case_dir = os.path.join(base, name)
            if not os.path.exists(os.path.join(case_dir, "model.onnx")):
                continue
            if pattern and not re.search(pattern, case):
                continue
            sets = sorted(os.path.join(case_dir, d) for d in os.listdir(case_dir)
                          if d.startswith("test_data_set_"))
            cases.append((case, case_dir, sets))
    return cases


def run_data_set(kiln, model, data_set, timeout, memory_gib):
    """(status, reason) of one data set."""
    # An address-space limit, so that a runaway allocation in one case fails that case
    # instead of taking memory from everyone on a shared machine.
    limit = ["prlimit", f"--as={memory_gib << 30}", "--"] if memory_gib else []
    command = limit + [kiln, "run", model, "--device", DEVICE, "--inputs-dir", data_set,
               "--expect-dir", data_set, "--rtol", RTOL, "--atol", ATOL, "--quiet"]
    # A session of its own, so that the timeout ends whatever kiln started too.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "crash", f"timeout after {timeout} s"
    code = process.returncode
    if code < 0 or code > 128:
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return "crash", f"{name} {crash_summary(output)}"
    if code == 0:
        # Trust a success only when every expected output was compared and matched.
        expected = len([f for f in os.listdir(data_set) if re.fullmatch(r"output_\d+\.pb", f)])
        checked = len(re.findall(r"^output '.*' .* ok\s*$", output, re.M))
        if checked < expected:
            return "fail", f"exit 0, but {checked} of {expected} outputs reported ok"
        return "pass", ""
    if code == 1:
        return "fail", first_error(output, re.compile("MISMATCH"))
    if code == 3:
        return "unsupported", first_error(output, UNSUPPORTED)
    return "fail", f"exit {code}: {first_error(output)}"


def run_case(kiln, case, case_dir, sets, timeout, memory_gib):
    model = os.path.join(case_dir, "model.onnx")
    if not sets:
        return "fail", "no test_data_set_N"
    results = []
    for data_set in sets:
        status, reason = run_data_set(kiln, model, data_set, timeout, memory_gib)
        if len(sets) > 1 and reason:
            reason = f"{os.path.basename(data_set)}: {reason}"
        results.append((STATUSES.index(status), status, reason))
    _, status, reason = min(results)
    return status, reason


def read_listing(path):
    """{case: (status, reason)} of a tab-separated file with '#' comments."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fields = line.rstrip("\n").split("\t")
                entries[fields[0]] = (fields[1] if len(fields) > 1 else "",
                                      fields[2] if len(fields) > 2 else "")
    return entries


def write_expectations(entries):
    lines = [
        f"# ONNX backend test cases that do not pass `kiln run --device {DEVICE}`: case, status",
        "# (fail, unsupported or crash), reason. A case not listed must pass.",
        "# Written by test/conformance/run-conformance.py --update; checked by --check, where a",
        "# crash fails even when listed.",
    ]
    lines += [f"{case}\t{status}\t{reason}" for case, (status, reason) in sorted(entries.items())]
    with open(EXPECTATIONS, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_doc(results, timeout):
    cell = lambda s: s.replace("|", "/")
    lines = [
        f"# ONNX conformance on {TITLE_OF[DEVICE]}",
        "",
        f"Generated by `/usr/bin/python3 test/conformance/run-conformance.py --device {DEVICE}` "
        "(needs a built "
        "`build/bin/kiln`); do not edit by hand. Every case of the ONNX backend test data "
        f"(`{DATA}`: {', '.join(FOLDERS)}) runs through "
        f"`kiln run MODEL --device {DEVICE} --inputs-dir D --expect-dir D` for each "
        f"`test_data_set_N` D, with rtol {RTOL} and atol {ATOL} (the defaults of ONNX's "
        f"backend test runner) and a timeout of {timeout} s. `unsupported` means kiln run "
        f"exited with 3 (an operator or type that the importer or {TITLE_OF[DEVICE]} path does "
        "not support); `crash` a signal or the timeout. The cases that do not pass are also "
        f"listed in `{EXPECTATIONS_OF[DEVICE]}`, which `--check` holds the results to.",
        "",
    ]
    node = [s for c, (s, _) in results.items() if c.startswith("node/")]
    if node:
        passing = node.count("pass")
        lines += [f"**{passing} of {len(node)} node tests pass "
                  f"({100.0 * passing / len(node):.1f}%).**", ""]
    lines += ["| folder | cases | pass | fail | unsupported | crash | % pass |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for folder in FOLDERS + ["total"]:
        statuses = [s for c, (s, _) in results.items()
                    if folder == "total" or c.startswith(folder + "/")]
        if not statuses:
            continue
        counts = [statuses.count(s) for s in ("pass", "fail", "unsupported", "crash")]
        lines.append(f"| {folder} | {len(statuses)} | " + " | ".join(map(str, counts)) +
                     f" | {100.0 * counts[0] / len(statuses):.1f} |")
    lines += ["", "## Cases that do not pass", "", "| case | status | reason |",
              "| --- | --- | --- |"]
    for case, (status, reason) in sorted(results.items()):
        if status != "pass":
            lines.append(f"| {case} | {status} | {cell(reason)} |")
    with open(DOC, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="write nothing; fail on regressions")
    mode.add_argument("--update", action="store_true", help="rewrite the expectations file")
    parser.add_argument("--filter", metavar="REGEX", help="cases whose folder/case name matches")
    parser.add_argument("--jobs", type=int, default=2, help="parallel kiln runs (default 2)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per data set (default 60)")
    parser.add_argument("--memory-limit", type=int, default=None, metavar="GIB",
                        help="address space per kiln run in GiB, 0 for none (default 4 on the "
                             "CPU; none on the GPU, whose driver reserves address space)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="where the cases run (each device has its expectations file)")
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    args = parser.parse_args()
    global DEVICE, EXPECTATIONS, DOC
    DEVICE = args.device
    EXPECTATIONS = os.path.join(ROOT, EXPECTATIONS_OF[DEVICE])
    DOC = os.path.join(ROOT, DOC_OF[DEVICE])
    if args.memory_limit is None:
        args.memory_limit = 4 if DEVICE == "cpu" else 0

    if not os.access(args.kiln, os.X_OK):
        print(f"run-conformance: error: no {args.kiln}; build first", file=sys.stderr)
        return 2
    cases = find_cases(args.filter)
    if not cases:
        print(f"run-conformance: error: no case under {DATA} matches", file=sys.stderr)
        return 2

    started = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_case, args.kiln, case, case_dir, sets, args.timeout,
                               args.memory_limit): case
                   for case, case_dir, sets in cases}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            case = futures[future]
            results[case] = future.result()
            status, reason = results[case]
            if args.verbose:
                print(f"{case}\t{status}\t{reason}".rstrip(), flush=True)
            if done % 200 == 0:
                print(f"... {done}/{len(cases)} cases, {time.time() - started:.0f} s", flush=True)

    expected = read_listing(EXPECTATIONS)
    regressions = sorted(c for c, (s, _) in results.items() if s != "pass" and c not in expected)
    crashes = sorted(c for c, (s, _) in results.items() if s == "crash")
    fixed = sorted(c for c, (s, _) in results.items() if s == "pass" and c in expected)
    changed = sorted(c for c, (s, _) in results.items()
                     if s != "pass" and c in expected and expected[c][0] != s)
    not_unsupported = sorted(c for c in read_listing(IMPORT_FAILURES)
                             if c in results and results[c][0] != "unsupported")

    counts = {s: sum(1 for v, _ in results.values() if v == s) for s in STATUSES}
    print(f"{len(results)} cases in {time.time() - started:.0f} s: " +
          ", ".join(f"{counts[s]} {s}" for s in reversed(STATUSES)))
    for case in regressions:
        if case not in crashes:
            what = "newly listed" if args.update else "regression"
            print(f"{what}: {case} was expected to pass: {results[case][0]}: "
                  f"{results[case][1]}")
    for case in crashes:
        print(f"crash: {case}: {results[case][1]}")
    for case in changed:
        print(f"changed: {case}: {expected[case][0]} -> {results[case][0]}: {results[case][1]}")
    for case in not_unsupported:
        print(f"note: {case} fails to import (import-failures.txt) but kiln run says "
              f"{results[case][0]}: {results[case][1]}")
    for case in fixed:
        print(f"now passes: {case} (listed as {expected[case][0]})")
    if (fixed or changed or regressions) and not args.update:
        print("if these changes are intended, rewrite the expectations with "
              "test/conformance/run-conformance.py --update (keep --filter to touch only those "
              "cases) and commit the file")

    if args.update:
        merged = {c: e for c, e in expected.items() if c not in results}
        merged.update({c: r for c, r in results.items() if r[0] != "pass"})
        write_expectations(merged)
        print(f"wrote {os.path.relpath(EXPECTATIONS, ROOT)}")
    if not args.check and not args.filter:
        write_doc(results, args.timeout)
        print(f"wrote {os.path.relpath(DOC, ROOT)}")

    # After --update, only crashes still fail: the file now says what is expected.
    failures = len(set(crashes) | (set() if args.update else set(regressions)))
    print(f"onnx-conformance: {counts['pass']} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
