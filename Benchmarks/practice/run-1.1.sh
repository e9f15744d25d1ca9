#!/usr/bin/env bash
# Practice 1.1 benchmarks, in one run, beside Python peers doing the same work:
#   1. re-grading 100,000 stored shots (20 sessions × 5,000 7-iron shots) under another template:
#      `clubhouse practice regrade --template T --all`, whole process, SQLite included (target ≤ 1 s);
#   2. live shots: `practice live-sim` replays 1,000 shots as Open Connect messages over a Unix socket,
#      `practice live --json` reports each shot's time from arrival to committed and graded (target ≤ 2 ms).
#   Benchmarks/practice/run-1.1.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK="$ROOT/.build-peers/practice-1.1"
REPEAT=${REPEAT:-5}
if [ "${1:-}" != "--no-build" ]; then
  swift build -c release --product clubhouse 2>&1 | tail -1
  swift build -c release --product PracticePlugin 2>&1 | tail -1
fi
CLUBHOUSE="$ROOT/.build/release/clubhouse"
[ -x "$CLUBHOUSE" ] || { echo "no $CLUBHOUSE; build it first"; exit 1; }
PY=${PYTHON:-python3}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
rm -rf "$WORK"; mkdir -p "$WORK"

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== re-grade 100,000 stored shots"
export CLUBHOUSE_DATA_DIR="$WORK/base"
for i in $(seq 20); do
  "$PY" Benchmarks/practice/gen_shots.py --shots 5000 --seed "$i" --out "$WORK/s$i.csv"
  "$CLUBHOUSE" practice import "$WORK/s$i.csv" --date "2026-01-$(printf %02d "$i")" >/dev/null
done
cat > "$WORK/strict.json" <<'T'
{"schema_version": "1.0", "club": "7i", "aggregation_method": "worst_metric", "name": "bench strict 7i",
 "metrics": {"ball_speed": {"a_min": 106, "b_min": 102}}}
T
HASH=$("$CLUBHOUSE" practice template add "$WORK/strict.json" --json | grep -o '"hash": *"[0-9a-f]*"' | head -1 | grep -o '[0-9a-f]\{64\}')
echo "stored: $("$CLUBHOUSE" practice sessions --json | grep -o '"shot_count": *[0-9]*' | awk -F: '{s+=$2} END {print s}') shots in 20 sessions; template $HASH"
DB=$(find "$WORK/base" -name 'org.clubhouse.practice.sqlite' | head -1)
: > "$WORK/regrade.times"; : > "$WORK/noop.times"; : > "$WORK/peer.times"
for _ in $(seq "$REPEAT"); do
  rm -rf "$WORK/run"; cp -r "$WORK/base" "$WORK/run"
  CLUBHOUSE_DATA_DIR="$WORK/run" wall "$CLUBHOUSE" practice regrade --template "$HASH" --all >> "$WORK/regrade.times"
  CLUBHOUSE_DATA_DIR="$WORK/run" wall "$CLUBHOUSE" practice template list >> "$WORK/noop.times"
  rm -rf "$WORK/peer"; cp -r "$WORK/base" "$WORK/peer"
  "$PY" Benchmarks/practice/regrade_peer.py "$(find "$WORK/peer" -name 'org.clubhouse.practice.sqlite' | head -1)" 106 102 >> "$WORK/peer.times"
done
CLUBHOUSE_DATA_DIR="$WORK/run" "$CLUBHOUSE" practice regrade --template "$HASH" --all | head -1
REGRADE=$(median < "$WORK/regrade.times"); NOOP=$(median < "$WORK/noop.times"); PEER=$(median < "$WORK/peer.times")
echo "clubhouse practice regrade --all (100,000 shots, whole process): $REGRADE s median of $REPEAT (target ≤ 1 s)"
echo "  the same process running 'practice template list' (start-up, plugin load, database open): $NOOP s"
echo "peer (python sqlite3: read, grade, one insert per session; no process start-up counted): $PEER s"
echo "ratio peer / clubhouse: $(awk -v a="$PEER" -v b="$REGRADE" 'BEGIN {printf "%.2f", a/b}')x"
echo "  shots file: $DB ($(du -h "$DB" | cut -f1))"

echo
echo "== live shots: stored and graded per shot, from arrival"
"$PY" Benchmarks/practice/gen_shots.py --shots 1000 --seed 99 --out "$WORK/live.csv"
cat > "$WORK/site.json" <<S
{"sites": {"range": {"devices": {"lm": {"transport": "unix:$WORK/lm.sock"}},
  "plugins": {"practice": {"id": "org.clubhouse.practice", "grants": ["storage", "device:lm"]}}}}}
S
: > "$WORK/live.medians"; : > "$WORK/live.p95"; : > "$WORK/live.max"
for r in $(seq 3); do
  export CLUBHOUSE_DATA_DIR="$WORK/live-$r"
  "$CLUBHOUSE" --config "$WORK/site.json" practice live-sim "$WORK/live.csv" --listen "unix:$WORK/lm.sock" --interval-ms 3 \
      > "$WORK/sim-$r.out" 2> "$WORK/sim-$r.err" &
  SIM=$!
  for _ in $(seq 100); do grep -q "listening on" "$WORK/sim-$r.err" 2>/dev/null && break; sleep 0.05; done
  "$CLUBHOUSE" --config "$WORK/site.json" practice live --device lm --club 7i --json > "$WORK/live-$r.json"
  wait "$SIM"
  "$PY" - "$WORK/live-$r.json" "$WORK" <<'P'
import json, sys
d = json.load(open(sys.argv[1])); l = d["latency"]; w = sys.argv[2]
open(w + "/live.medians", "a").write(f"{l['median']}\n"); open(w + "/live.p95", "a").write(f"{l['p95']}\n")
open(w + "/live.max", "a").write(f"{l['max']}\n")
print(f"run: {l['count']} shots, median {l['median']:.3f} ms, p95 {l['p95']:.3f} ms, max {l['max']:.3f} ms; {d['reason']}")
P
done
echo "clubhouse practice live: median $(median < "$WORK/live.medians") ms, p95 $(median < "$WORK/live.p95") ms," \
     "max $(median < "$WORK/live.max") ms per shot (medians of 3 runs of 1,000 shots; target ≤ 2 ms)"
"$PY" Benchmarks/practice/live_peer.py "$WORK/peer-live.sqlite" 1000 | sed 's/^/peer (python json + sqlite3, one transaction per shot): /'
