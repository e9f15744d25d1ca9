#!/usr/bin/env bash
# Issue 14: `practice import` of 100,000 shots with the practice plugin sandboxed (the CSV handed
# over as a descriptor by clubhouse.files/1, storage through the wire) against the same import in
# process and in a plain runner, in one run, release builds, the isolations interleaved.
#   Benchmarks/sandbox/run.sh            (builds clubhouse and PracticePlugin in release first)
#   Benchmarks/sandbox/run.sh --no-build
# Prints every time and the medians; BENCHMARKS.md's issue-14 section records one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK="$ROOT/.build-peers/sandbox"
REPEAT=${REPEAT:-5}
SHOTS=${SHOTS:-100000}
mkdir -p "$WORK"

if [ "${1:-}" != "--no-build" ]; then
  swift build -c release --product clubhouse 2>&1 | tail -1
  swift build -c release --product PracticePlugin 2>&1 | tail -1
fi
CLUBHOUSE="$ROOT/.build/release/clubhouse"
PLUGIN="$ROOT/.build/release/libPracticePlugin.so"
[ -x "$CLUBHOUSE" ] && [ -f "$PLUGIN" ] || { echo "build clubhouse and PracticePlugin in release first"; exit 1; }

CSV="$WORK/shots-$SHOTS.csv"
[ -f "$CSV" ] || python3 "$ROOT/Benchmarks/practice/gen_shots.py" --shots "$SHOTS" --seed 14 --out "$CSV"
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r)"
echo "input: $CSV ($SHOTS shots, $(wc -c < "$CSV") bytes)"

ISOLATIONS="in-process process sandbox"
for iso in $ISOLATIONS; do
  cat > "$WORK/$iso.json" <<JSON
{"sites": {"default": {"plugins": {"practice": {"path": "$PLUGIN", "grants": ["storage"], "isolation": "$iso",
  "timeout_ms": 600000, "limits": {"wall_ms": 600000, "cpu_seconds": 600}}}}}}
JSON
done

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for iso in $ISOLATIONS; do : > "$WORK/$iso.times"; done
for run in $(seq "$REPEAT"); do
  for iso in $ISOLATIONS; do
    DATA="$WORK/data-$iso-$run"
    rm -rf "$DATA"
    start=$(date +%s%N)
    CLUBHOUSE_DATA_DIR="$DATA" "$CLUBHOUSE" --config "$WORK/$iso.json" practice import "$CSV" --date 2026-01-20 --quiet > "$WORK/$iso.out"
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    echo "$ms" >> "$WORK/$iso.times"
    echo "run $run $iso: $ms ms ($(head -c 80 "$WORK/$iso.out" | tr '\n' ' '))"
    rm -rf "$DATA"
  done
done
IN=$(median < "$WORK/in-process.times")
echo
echo "== medians of $REPEAT (ms, whole command: start, import, exit)"
for iso in $ISOLATIONS; do
  M=$(median < "$WORK/$iso.times")
  echo "$iso: $M ms, ratio to in-process $(awk -v a="$M" -v b="$IN" 'BEGIN {printf "%.2f", a / b}')"
done
echo "target: sandbox ≤ 1.2× in-process"
