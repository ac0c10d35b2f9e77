#!/usr/bin/env bash
# The end-to-end benchmark on the GPU machine, in one call (docs/benchmarks.md):
#
#   scripts/gpu-check.sh prepare     # here: build, bundle kiln, pack the models into .device/
#   device run, carry [".device"]:   bench/run.sh [bench/run.py options, e.g. --models gpt2]
#                                    bench/run.sh --continue   (after a run that hit its
#                                    deadline: measures only what it left)
#                                    bench/run.sh --models ssdlite320,rtdetr_r50 --precisions fp32,fp16
#                                    (the object detectors alone: SSDlite at batch 1, the
#                                    one its export takes, RT-DETR at 1 and 8, bench/models.py;
#                                    `python3 bench/run.py --out /tmp/x --dry-run --models ...`
#                                    lists the units any options select. The same command
#                                    with --continue, on a fresh machine and with the last
#                                    full run's docs/benchmarks.json copied to
#                                    .device/resume.json, adds their rows to that run's:
#                                    the units it does not select keep their rows)
#                                    bench/run.sh --dynamic [bench/dynamic.py options]
#                                    (dynamic engines against static ones, issue 10:
#                                    benchmarks-dynamic.json, and benchmarks.md from it and
#                                    the last full run's docs/benchmarks.json)
#                                    bench/run.sh --dynamic --continue (the shapes the last
#                                    --dynamic call left at its deadline)
#
# Unpacks the bundle, runs bench/run.py on every GPU there (it stops starting units after
# --deadline, 540 s unless given, so that the call ends inside the device's 10 minutes),
# then bench/report.py. Under $OUT: benchmarks.md, benchmarks.json, benchmarks.png,
# bench.log and logs.tar.gz (every unit's compile, run, bench and peer logs). Copy the first
# three into docs/ to publish them. Prints the table last.
set -uo pipefail
cd "$(dirname "$0")/.."

out=${OUT:-/tmp/kiln-bench-out}
work=${KILN_BENCH_WORK:-/tmp/kiln-bench}
# Always this checkout's bundle: a warm machine may hold another checkout's tools.
kiln_dir=$(mktemp -d /tmp/kiln-bench-tools.XXXXXX)
mkdir -p "$out" "$work"
tar xJf .device/kiln-device.tar.xz -C "$kiln_dir" || { echo "bench: no .device bundle; run scripts/gpu-check.sh prepare first"; exit 1; }
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib
export KILN_SHARED=$PWD/.device/shared PYTHONUNBUFFERED=1
export KILN_COMMIT=$(cat .device/commit.txt 2>/dev/null)

# Dynamic engines against static ones: bench/dynamic.py, then the report of the last full
# run (docs/benchmarks.json) with their section.
# --continue resumes from this machine's last dynamic.json, else from
# .device/dynamic-resume.json (benchmarks-dynamic.json of the last call, carried back).
if [ "${1:-}" = --dynamic ]; then
  shift
  extra=()
  [[ " $* " == *" --deadline "* ]] || extra+=(--deadline 540)
  args=()
  for arg in "$@"; do [ "$arg" = --continue ] || args+=("$arg"); done
  if [ ${#args[@]} -ne $# ]; then
    set -- ${args[@]+"${args[@]}"}
    if [ -f "$work/dynamic/dynamic.json" ]; then
      cp "$work/dynamic/dynamic.json" "$work/dynamic-resume.json"
      extra+=(--resume "$work/dynamic-resume.json")
    elif [ -f .device/dynamic-resume.json ]; then extra+=(--resume .device/dynamic-resume.json)
    else echo "bench: --continue: no earlier dynamic results here"; exit 2; fi
  fi
  rm -f "$work/dynamic/dynamic.json"
  python3 bench/dynamic.py --kiln "$kiln_dir/bin/kiln" --out "$work/dynamic" "${extra[@]}" \
    ${1+"$@"} 2>&1 | tee "$out/dynamic.log"
  status=${PIPESTATUS[0]}
  [ -f "$work/dynamic/dynamic.json" ] || { echo "bench: no dynamic results (exit $status)"; exit 1; }
  cp "$work/dynamic/dynamic.json" "$out/benchmarks-dynamic.json"
  python3 bench/report.py docs/benchmarks.json --markdown "$out/benchmarks.md" \
    --dynamic "$out/benchmarks-dynamic.json"
  (cd "$work/dynamic" && tar czf "$out/dynamic-logs.tar.gz" */*.log 2>/dev/null)
  echo
  sed -n '/^## Dynamic engines/,$p' "$out/benchmarks.md" | grep -E '^\|'
  exit "$status"
fi

# A run that ended at its deadline is continued by the next call with the same options:
# the units it measured are kept (--resume), from this machine's work folder if it is still
# there, else from .device/resume.json (benchmarks.json of the last call, carried back).
extra=()
[[ " $* " == *" --deadline "* ]] || extra+=(--deadline 540)
args=()
for arg in "$@"; do [ "$arg" = --continue ] || args+=("$arg"); done
if [ ${#args[@]} -ne $# ]; then
  set -- "${args[@]}"
  if [ -f "$work/results.json" ]; then extra+=(--resume "$work/results.json")
  elif [ -f .device/resume.json ]; then extra+=(--resume .device/resume.json)
  else echo "bench: --continue: no earlier results here"; exit 2; fi
fi
python3 bench/run.py --kiln "$kiln_dir/bin/kiln" --out "$work" "${extra[@]}" ${1+"$@"} 2>&1 |
  tee "$out/bench.log"
status=${PIPESTATUS[0]}
[ -f "$work/results.json" ] || { echo "bench: no results (exit $status)"; exit 1; }
cp "$work/results.json" "$out/benchmarks.json"
# The dynamic engines' section of the last --dynamic run stays in the report.
dynamic=()
[ -f docs/benchmarks-dynamic.json ] && dynamic=(--dynamic docs/benchmarks-dynamic.json)
python3 bench/report.py "$work/results.json" --markdown "$out/benchmarks.md" \
  --plot "$out/benchmarks.png" "${dynamic[@]}"
(cd "$work/work" && tar czf "$out/logs.tar.gz" */*.log */*.json 2>/dev/null)
echo
# This run's table, last (not the dynamic engines' section the report carries after it).
sed '/^## Dynamic engines/,$d' "$out/benchmarks.md" | grep -E '^\|'
exit "$status"
