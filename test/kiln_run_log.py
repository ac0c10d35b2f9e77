"""What `kiln run` printed, reduced to one line for a report: the line that says what went
wrong, or for a crash where it happened. Shared by test/models/check-models.py and
test/conformance/run-conformance.py."""

import re

UNSUPPORTED = re.compile(r"not supported|unsupported|no CPU lowering", re.I)
# A frame of LLVM's stack dump: " #4 0x000055b9187f8f8e function(args) (/path/kiln+0x...)".
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*)$")


def one_line(text):
    """Without a leading model path and 'error:' prefix, tabs and pipes (the reason goes into
    tab-separated files and Markdown tables); at most 240 characters."""
    text = re.sub(r"^\S*\.onnx:\s*", "", text.strip())
    text = re.sub(r"^(\S+( \S+)?: )?error:\s*", "", text)
    return text.replace("\t", " ").replace("|", "/")[:240]


def function_name(frame):
    """The function of a stack frame without its parameter list, binary and source file."""
    text = re.sub(r" \(/[^ ]*\+0x[0-9a-f]+\)$", "", frame)
    text = re.sub(r" \S+:\d+:\d+$", "", text)
    text = re.sub(r"\s+const$", "", text)
    if text.endswith(")"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                text = text[:i]
                break
    return text.strip()


def crash_summary(output):
    """Where a crash happened: an assertion or error printed before the stack dump, else the
    first frame past the signal handler, the op being verified if any, and the first frame
    in Kiln's code below the driver (kiln::tool, whose diagnostic handler is on most
    stacks)."""
    before_dump = output.split("Stack dump:")[0]
    for line in before_dump.splitlines():
        if re.search(r"Assertion|error:|terminate called|LLVM ERROR", line):
            return one_line(line)
    frames = [m.group(1) for m in map(FRAME.match, output.splitlines()) if m]
    # The frames up to and including libc's signal trampoline are the crash handler's own.
    start = next((i + 1 for i, f in enumerate(frames) if "libc.so" in f), 0)
    names = [n for n in map(function_name, frames[start:]) if n]
    if not names:
        return "(no stack trace)"
    where = f"in {names[0]}"
    verified = next((n for n in names if n.endswith("::verifyInvariantsImpl")), None)
    if verified:
        where += f" while verifying {verified[:-len('::verifyInvariantsImpl')]}"
    kiln = next((n for n in names if "kiln::" in n and "kiln::tool::" not in n), None)
    if kiln and kiln != names[0]:
        where += f" (from {kiln})"
    return one_line(where)


def first_error(output, pattern=None):
    """The first line matching `pattern`, else the first that mentions an error, else the
    first line."""
    lines = [line for line in output.splitlines() if line.strip()]
    for line in lines:
        if pattern and pattern.search(line):
            return one_line(line)
    for line in lines:
        if "error" in line.lower():
            return one_line(line)
    return one_line(lines[0]) if lines else "(no output)"
