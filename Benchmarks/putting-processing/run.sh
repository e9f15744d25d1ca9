#!/usr/bin/env bash
# Reproduces Benchmarks/putting-processing/RESULTS.md: the nine Presidio greens processed from
# their contours and boundary by the Swift pipeline (release build) and by the original
# numpy/scipy method (scipy_peer.py), both pinned to one core, in the same session.
#   Benchmarks/putting-processing/run.sh            (REPEAT=5, DATA=../shared/data/putting/presidio)
# The peer's Python: $PEERS_PYTHON, else /work/peers-venv, else a venv made under .build-peers/.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-../shared/data/putting/presidio}
REPEAT=${REPEAT:-5}
CORE=${CORE:-0}

if [ ! -d "$DATA/hole_1" ]; then
    echo "run.sh: no Presidio data at $DATA (set DATA=...)" >&2
    exit 1
fi

PY=${PEERS_PYTHON:-}
if [ -z "$PY" ] && [ -x /work/peers-venv/bin/python ]; then PY=/work/peers-venv/bin/python; fi
if [ -z "$PY" ]; then
    if [ ! -x .build-peers/venv/bin/python ]; then
        python3 -m venv .build-peers/venv
        .build-peers/venv/bin/pip install --quiet numpy scipy shapely
    fi
    PY=.build-peers/venv/bin/python
fi

swift build -c release --product clubhouse-bench >&2
# One core for both: no BLAS/OpenMP threads for the peer, and both pinned to the same CPU.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
"$PY" -c 'import numpy, scipy; print(f"# numpy {numpy.__version__}, scipy {scipy.__version__}")' | tee -a "$OUT"
taskset -c "$CORE" .build/release/clubhouse-bench putting-processing --data "$DATA" --repeat "$REPEAT" --check | tee -a "$OUT"
taskset -c "$CORE" "$PY" Benchmarks/putting-processing/scipy_peer.py "$DATA" --repeat "$REPEAT" --check | tee -a "$OUT"
awk '/^swift total/ {sw=$3; swc=$6} /^scipy total/ {py=$3; pyc=$6}
     END { if (sw > 0 && swc > 0) printf "ratio scipy/swift: wall %.1fx, cpu %.1fx\n", py / sw, pyc / swc }' "$OUT"
