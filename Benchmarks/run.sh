#!/usr/bin/env bash
# Runs every benchmark of the project in one session, each beside its peer where one exists, on a
# release build. The figures in BENCHMARKS.md come from this script.
#   Benchmarks/run.sh            # all areas
#   Benchmarks/run.sh platform   # one area: platform startup isolation access serve signing putting putting-processing globe tennis practice scorecard
#   Benchmarks/run.sh --record startup   # ... and keep its figures as the ones to compare with next time
# The peers (../shared/peers) run in a Python venv: /work/peers-venv when present, else each
# area's script makes one under .build-peers/ (git-ignored). Expect ±20 % on a shared 2-core box.
#
# Every line an area prints as `@figure KEY VALUE UNIT` is a figure: at the end the script prints
# each beside the last recorded one (Benchmarks/figures.tsv: key, value, unit, date, commit), so a
# regression shows the day it lands. `--record` writes this run's figures into that file (keys not
# measured this time keep their last value). Lower is better unless the unit ends in "/s".
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
areas=()
for a in "$@"; do
    if [ "$a" = "--record" ]; then record=1; else areas+=("$a"); fi
done
[ ${#areas[@]} -gt 0 ] || areas=(platform startup isolation access serve signing putting putting-processing globe tennis practice scorecard)
figures=Benchmarks/figures.tsv
log=$(mktemp)
trap 'rm -f "$log"' EXIT
{
echo "# Clubhouse benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(swift --version 2>&1 | head -1)"
} | tee -a "$log"
swift build -c release >&2
for area in "${areas[@]}"; do
    {
    echo
    echo "## $area"
    case "$area" in
        platform|isolation|access) .build/release/clubhouse-bench "$area" 2>/dev/null ;;
        # What loading each group of the libraries clubhouse starts with costs, beside the commands.
        startup) .build/release/clubhouse-bench startup 2>/dev/null; Benchmarks/startup/libraries.py .build/release ;;
        # The serve target holds under two busy background cores: two spinners of our own run beside it.
        serve) .build/release/clubhouse-bench serve --busy 2 2>/dev/null ;;
        signing) Benchmarks/signing/run.sh --no-build ;;
        *) "Benchmarks/$area/run.sh" ;;
    esac
    echo "(load after $area: $(cut -d' ' -f1-3 /proc/loadavg))"
    } | tee -a "$log"
done

# This run's figures beside the last recorded ones.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
today=$(date -u +%Y-%m-%d)
grep '^@figure ' "$log" | awk '{print $2 "\t" $3 "\t" $4}' > "$log.now" || true
if [ -s "$log.now" ]; then
    echo
    echo "## figures beside the last recorded ones ($figures)"
    touch "$figures"
    awk -F'\t' -v OFS='\t' '
        NR == FNR { last[$1] = $2; when[$1] = $4 " " $5; next }
        {
            key = $1; now = $2 + 0; unit = $3
            if (!(key in last)) { printf "  %-58s %14.6g %-3s  (first record)\n", key, now, unit; next }
            before = last[key] + 0
            change = before == 0 ? 0 : (now - before) / before * 100
            better = (unit ~ /\/s$/) ? (change > 0) : (change < 0)
            verdict = (change > -5 && change < 5) ? "same" : (better ? "better" : "WORSE")
            printf "  %-58s %14.6g %-3s  last %14.6g (%s)  %+6.1f%%  %s\n", key, now, unit, before, when[key], change, verdict
        }' "$figures" "$log.now"
    if [ "$record" = 1 ]; then
        awk -F'\t' -v OFS='\t' -v today="$today" -v commit="$commit" '
            NR == FNR { fresh[$1] = $2 "\t" $3; next }
            { if ($1 in fresh) { print $1, fresh[$1], today, commit; done[$1] = 1 } else print }
            END { for (k in fresh) if (!(k in done)) print k, fresh[k], today, commit }' "$log.now" "$figures" | sort > "$figures.new"
        mv "$figures.new" "$figures"
        echo "(recorded in $figures)"
    fi
fi
rm -f "$log.now"
