#!/usr/bin/env bash
# `clubhouse putting hole process` end to end (release build): the nine Presidio greens imported
# with --sources-only (traced contours and boundaries kept, shipped heightfields ignored), then
# processed through the CLI: host start, plugin load, the stored traced files parsed, the
# processing step, and the heightfields stored in SQLite. Pinned to one core; REPEAT runs of each
# command on a fresh import, medians.
#   Benchmarks/putting-processing/hole-process.sh       (REPEAT=5, DATA=../shared/data/putting/presidio)
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-../shared/data/putting/presidio}
REPEAT=${REPEAT:-5}
CORE=${CORE:-0}

if [ ! -d "$DATA/hole_1" ]; then
    echo "hole-process.sh: no Presidio data at $DATA (set DATA=...)" >&2
    exit 1
fi
swift build -c release --product clubhouse >&2
swift build -c release --product PuttingPlugin >&2
BIN=.build/release/clubhouse
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export CLUBHOUSE_DATA_DIR="$WORK/data"

# "wall cpu" seconds of one command (cpu = user + system of the process and its children).
timed() {
    local TIMEFORMAT='%R %U %S' line
    line=$({ time taskset -c "$CORE" "$@" > /dev/null; } 2>&1)
    echo "$line" | awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }'
}
# Medians of both columns (plain POSIX awk and sort).
median1() { sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); if (NR % 2) print v[m]; else print (v[m] + v[m + 1]) / 2 }'; }
median() {
    local rows
    rows=$(cat)
    printf '%8.3f %8.3f\n' "$(echo "$rows" | awk '{ print $1 }' | median1)" "$(echo "$rows" | awk '{ print $2 }' | median1)"
}
fresh() { "$BIN" putting course import "$DATA" --id presidio --sources-only > /dev/null; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg), REPEAT=$REPEAT"
fresh
printf '%-28s %8s %8s\n' "command (medians)" "wall s" "cpu s"
printf '%-28s %s\n' "putting holes (baseline)" "$(for _ in $(seq "$REPEAT"); do timed "$BIN" putting holes presidio; done | median)"
sum=""
for n in 1 2 3 4 5 6 7 8 9; do
    line=$(for _ in $(seq "$REPEAT"); do fresh; timed "$BIN" putting hole process --course presidio --hole "$n"; done | median)
    printf '%-28s %s\n' "hole process --hole $n" "$line"
    sum="$sum$line"$'\n'
done
printf '%-28s %s\n' "sum of the nine" "$(printf '%s' "$sum" | awk '{ w += $1; c += $2 } END { printf "%8.3f %8.3f", w, c }')"
printf '%-28s %s\n' "hole process --all" "$(for _ in $(seq "$REPEAT"); do fresh; timed "$BIN" putting hole process --course presidio --all; done | median)"
printf '%-28s %s\n' "course import --process" "$(for _ in $(seq "$REPEAT"); do timed "$BIN" putting course import "$DATA" --id again --sources-only --process; done | median)"
