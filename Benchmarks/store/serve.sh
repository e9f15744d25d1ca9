#!/bin/sh
# Store-path benchmark over `clubhouse serve` (issue 19), one run: a long-lived server per build
# (BEFORE: release build of main at 51edc5b, before the storage kit; AFTER: this checkout's release
# build), one connection each, taking turns batch by batch on copies of the same seeded club
# (seed.sh: 200 players, 2,001 rounds, 66,654 score entries; 203 practice sessions). Process start
# and plugin loading are outside the measure. Prints per-call medians (client wall time and the
# server's CPU time) and the ratio before/after.
# Usage: Benchmarks/store/serve.sh BEFORE_RELEASE_DIR [AFTER_RELEASE_DIR] [ROUNDS] [CALLS]
# (each dir holds clubhouse, libScorecardPlugin.so and libPracticePlugin.so)
set -eu
cd "$(dirname "$0")/../.."
before=${1:?usage: Benchmarks/store/serve.sh BEFORE_RELEASE_DIR [AFTER_RELEASE_DIR] [ROUNDS] [CALLS]}
after=${2:-.build/release}
rounds=${3:-7}
calls=${4:-10}
for d in "$before" "$after"; do
    for f in clubhouse libScorecardPlugin.so libPracticePlugin.so; do
        [ -f "$d/$f" ] || { echo "missing $d/$f (release builds of clubhouse, ScorecardPlugin, PracticePlugin)"; exit 1; }
    done
done
scratch=$(mktemp -d /tmp/clubhouse-store-serve.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Seeded by the older build, so both can open the files (the newer plugins migrate their copy).
./Benchmarks/store/seed.sh "$before/clubhouse" "$scratch/seed"
cp -r "$scratch/seed" "$scratch/before"
cp -r "$scratch/seed" "$scratch/after"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
python3 Benchmarks/store/serve_bench.py --rounds "$rounds" --calls "$calls" \
    --build "before=$before/clubhouse=$scratch/before" --build "after=$after/clubhouse=$scratch/after"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
