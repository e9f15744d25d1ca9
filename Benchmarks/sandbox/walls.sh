#!/usr/bin/env bash
# Issue 27 (the sandbox's walls): this build against the one before, in one run, release builds.
#   Benchmarks/sandbox/walls.sh BEFORE_DIR AFTER_DIR [ROUNDS]
# BEFORE_DIR and AFTER_DIR are release products folders (clubhouse, clubhouse-bench, libNotesC.so,
# libGreeterPlugin.so, libFaultyPlugin.so), e.g. a `git worktree` of the base built with
# `swift build -c release --scratch-path .build-base` and this tree's `.build/release`.
#  1. `clubhouse-bench sandbox` of each build, taking turns ROUNDS times: runner start (sandbox vs
#     process, same build: target ≤ 1.2×) and the sandboxed ping round trip (after vs before:
#     target ≤ 1.1×), with CPU time beside wall time;
#  2. AFTER's `clubhouse-bench serve --restarting --binary BEFORE --binary AFTER`: a sandboxed
#     plugin's ping through `serve --socket` while another sandboxed plugin crashes and restarts
#     all the time, the two servers taking turns round by round (target: unchanged within noise).
set -euo pipefail
BEFORE=${1:?BEFORE_DIR}
AFTER=${2:?AFTER_DIR}
ROUNDS=${3:-3}
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r)"
for round in $(seq "$ROUNDS"); do
  for side in BEFORE AFTER; do
    dir=${!side}
    echo "-- round $round, $side ($dir), load $(cut -d' ' -f1 /proc/loadavg)"
    "$dir/clubhouse-bench" sandbox
  done
done
echo "-- serve with runners restarting, load $(cut -d' ' -f1 /proc/loadavg)"
"$AFTER/clubhouse-bench" serve --restarting --binary "$BEFORE/clubhouse" --binary "$AFTER/clubhouse"
