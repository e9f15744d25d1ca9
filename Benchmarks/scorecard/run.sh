#!/usr/bin/env bash
# Reproduces Benchmarks/scorecard/RESULTS.md from a clean clone: release build of clubhouse-bench, then
# the Handicap Index recomputation of 100,000 generated players × 20 hole-by-hole rounds (single core).
# No peer exists for this workload (see RESULTS.md); the target is an absolute one: <= 1 s.
# Then (issue 17) the leaderboard of a 144-player Stableford field with 18 holes entered: <= 20 ms,
# in process on the in-memory store (`clubhouse-bench scorecard-formats`) and through the real stack
# (`clubhouse serve` with the plugin's SQLite database, Benchmarks/scorecard/leaderboard_serve.py).
# Usage: Benchmarks/scorecard/run.sh [--players N] [--rounds R] [--runs K]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product clubhouse-bench >&2
bin="$(swift build -c release --show-bin-path)/clubhouse-bench"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
# One core: the benchmark is single-threaded; taskset keeps it on one CPU when available.
if command -v taskset >/dev/null; then
    taskset -c 0 "$bin" scorecard "$@"
    taskset -c 0 "$bin" scorecard-formats
else
    "$bin" scorecard "$@"
    "$bin" scorecard-formats
fi
swift build -c release --product clubhouse >&2
swift build -c release --product ScorecardPlugin >&2
python3 Benchmarks/scorecard/leaderboard_serve.py "$(dirname "$bin")/clubhouse" "$(pwd)/.build-peers/scorecard-serve"
