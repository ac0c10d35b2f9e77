"""The one timing policy of the benchmark, for the peers (bench/torch_peer.py,
bench/ort_peer.py) and for Kiln (the harness passes the same numbers to `kiln bench`):
warm up for at most WARMUP_RUNS runs or WARMUP_SECONDS, whichever ends first; then time at
least `min_runs` runs and keep going until they add up to `min_seconds`."""

import math
import time

WARMUP_RUNS = 10
WARMUP_SECONDS = 2.0


def warmup_runs_for(seconds_per_run):
    """How many warmup runs fit the policy for a run of about this length (at least 1)."""
    if seconds_per_run <= 0:
        return WARMUP_RUNS
    return max(1, min(WARMUP_RUNS, math.ceil(WARMUP_SECONDS / seconds_per_run)))


def warmup_and_time(run_once, min_runs, min_seconds):
    """(milliseconds of each timed run, warmup runs): run_once() runs once, returns ms."""
    warmup, started = 0, time.perf_counter()
    while warmup < WARMUP_RUNS:
        run_once()
        warmup += 1
        if time.perf_counter() - started >= WARMUP_SECONDS:
            break
    millis = []
    while len(millis) < min_runs or sum(millis) < min_seconds * 1000.0:
        millis.append(run_once())
    return millis, warmup


def summarize(millis):
    """The statistics every result carries, from each run's milliseconds."""
    ordered = sorted(millis)
    count = len(ordered)
    middle = count // 2
    median = ordered[middle] if count % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    def rank(fraction):  # nearest rank
        return ordered[min(count - 1, max(0, math.ceil(fraction * count) - 1))]

    return {
        "median_ms": median,
        "mean_ms": sum(ordered) / count,
        "p90_ms": rank(0.90),
        "p99_ms": rank(0.99),
        "min_ms": ordered[0],
        "max_ms": ordered[-1],
        "runs": count,
    }
