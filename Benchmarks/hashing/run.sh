#!/usr/bin/env bash
# ClubhouseHashing before/after: SHA-256 (x86 extensions and portable) and SHA-512, whole MiB, 100-byte
# updates and a 43-byte message, CPU time. Compiles the module's sources of BASE (default main) and of
# the work tree with `swiftc -O -wmo` (a release build's flags, SHA extensions on) beside main.swift,
# then runs the two binaries interleaved, ROUNDS times (default 8).
#   Benchmarks/hashing/run.sh [BASE] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${1:-main}
ROUNDS=${2:-8}
WORK=.build-peers/hashing
rm -rf "$WORK" && mkdir -p "$WORK/before" "$WORK/after"
for f in $(git ls-tree --name-only "$BASE" PluginSDK/Sources/ClubhouseHashing/); do git show "$BASE:$f" > "$WORK/before/$(basename "$f")"; done
cp PluginSDK/Sources/ClubhouseHashing/*.swift "$WORK/after/"
for side in before after; do
  swiftc -O -wmo -D SHA_EXTENSIONS -Xcc -msha -module-name HashingBench "$WORK/$side"/*.swift Benchmarks/hashing/main.swift -o "$WORK/bench-$side"
done
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); before = $BASE ($(git rev-parse --short "$BASE")), after = work tree"
for round in $(seq "$ROUNDS"); do
  for side in after before; do echo "== $side $round"; "$WORK/bench-$side"; done
done
echo "(load after: $(cut -d' ' -f1-3 /proc/loadavg))"
