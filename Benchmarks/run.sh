#!/usr/bin/env bash
# Runs every benchmark of the project in one session, each beside its peer where one exists, on a
# release build. The figures in BENCHMARKS.md come from this script.
#   Benchmarks/run.sh            # all areas
#   Benchmarks/run.sh platform   # one area: platform isolation access signing putting putting-processing globe tennis practice scorecard
# The peers (../shared/peers) run in a Python venv: /work/peers-venv when present, else each
# area's script makes one under .build-peers/ (git-ignored). Expect ±20 % on a shared 2-core box.
set -euo pipefail
cd "$(dirname "$0")/.."
areas=("$@")
[ ${#areas[@]} -gt 0 ] || areas=(platform isolation access signing putting putting-processing globe tennis practice scorecard)
echo "# Clubhouse benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(swift --version 2>&1 | head -1)"
swift build -c release >&2
for area in "${areas[@]}"; do
    echo
    echo "## $area"
    case "$area" in
        platform|isolation|access) .build/release/clubhouse-bench "$area" 2>/dev/null ;;
        signing) Benchmarks/signing/run.sh --no-build ;;
        *) "Benchmarks/$area/run.sh" ;;
    esac
    echo "(load after $area: $(cut -d' ' -f1-3 /proc/loadavg))"
done
