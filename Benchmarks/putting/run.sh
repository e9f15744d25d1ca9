#!/bin/sh
# Reproduces the putting benchmark figures in Benchmarks/putting/RESULTS.md from a clean clone:
# release build of clubhouse-bench, the Swift benchmarks, then the NumPy peer, in the same session,
# pinned to one core when `taskset` exists.
#   PUTTING_DATA  the Presidio folder (default ../shared/data/putting/presidio)
#   PEERS_VENV    a Python venv with numpy (default /work/peers-venv; else one is made in .build-peers/)
#   RUNS, PEER_RUNS  repetitions (default 21 and 3)
set -eu
cd "$(dirname "$0")/../.."
DATA=${PUTTING_DATA:-../shared/data/putting/presidio}
PIN=""
if command -v taskset >/dev/null 2>&1; then PIN="taskset -c 0"; fi

swift build -c release --product clubhouse-bench >/dev/null
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) cores, $(swift --version 2>&1 | head -1)"
$PIN .build/release/clubhouse-bench putting --data "$DATA" --runs "${RUNS:-21}"
# Putting 1.1: best line with windows and make probability over a seeded sweep of the nine greens, roll, green book
# (not pinned: the book uses every core).
.build/release/clubhouse-bench putting-sweep --data "$DATA" --runs "${RUNS:-21}" --per-green "${PER_GREEN:-16}"

PY=""
VENV=${PEERS_VENV:-/work/peers-venv}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import numpy" 2>/dev/null; then
    PY="$VENV/bin/python"
else
    if [ ! -x .build-peers/putting-venv/bin/python ]; then
        python3 -m venv .build-peers/putting-venv
        .build-peers/putting-venv/bin/pip install -q numpy
    fi
    PY=.build-peers/putting-venv/bin/python
fi
$PIN "$PY" Benchmarks/putting/compat_peer.py "$DATA" "${PEER_RUNS:-3}"
# Putting 1.3: the best line's convergence in the integration step (production against a quarter-cell reference over
# the sweep, with the stability check's flags), and the stroke-error levels against their published make rates.
.build/release/clubhouse-bench putting-converge --data "$DATA" --per-green "${PER_GREEN:-16}" --variants prod
Benchmarks/putting/calibrate.sh
