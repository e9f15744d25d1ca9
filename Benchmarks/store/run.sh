#!/bin/sh
# Store-path benchmark (issue 19), one run: the scorecard and practice plugins built before the
# storage kit (BEFORE: a release build of main at 51edc5b) and after it (this checkout's release
# build), each loaded by this checkout's clubhouse-bench, interleaved ROUNDS times; the medians
# of the rounds go to BENCHMARKS.md.
# Usage: Benchmarks/store/run.sh BEFORE_RELEASE_DIR [ROUNDS]
set -eu
cd "$(dirname "$0")/../.."
before=${1:?usage: Benchmarks/store/run.sh BEFORE_RELEASE_DIR [ROUNDS]}
rounds=${2:-3}
after=.build/release
for f in "$before/libScorecardPlugin.so" "$before/libPracticePlugin.so" "$after/libScorecardPlugin.so" \
         "$after/libPracticePlugin.so" "$after/clubhouse-bench"; do
    [ -f "$f" ] || { echo "missing $f (release builds of ScorecardPlugin, PracticePlugin, clubhouse-bench)"; exit 1; }
done
i=1
while [ "$i" -le "$rounds" ]; do
    "$after/clubhouse-bench" store --plugins "$(cd "$before" && pwd)" --label before
    "$after/clubhouse-bench" store --plugins "$(cd "$after" && pwd)" --label after
    i=$((i + 1))
done
