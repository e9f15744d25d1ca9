#!/usr/bin/env bash
# Reproduces Benchmarks/globe/RESULTS.md: the globe's triangulation against mapbox earcut (C++,
# through ../shared/peers/earcut_peer.py) in the same session, and the world map SVG time.
# Usage: [GLOBE_BENCH=PATH] Benchmarks/globe/run.sh [ROUNDS]   (from anywhere inside a clone next to ../shared)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${1:-3}"
PEERS=../shared/peers
DATA=$PEERS/data/naturalearth_lowres_countries.geojson
[ -f "$DATA" ] || { echo "globe bench: $DATA not found (the peers' data sits beside the repository)"; exit 1; }

# The peer's Python: the shared venv when there is one, else our own under .build-peers/.
if [ -x $PEERS/.venv/bin/python ]; then
    PY=$PEERS/.venv/bin/python
elif [ -x /work/peers-venv/bin/python ]; then
    PY=/work/peers-venv/bin/python
else
    if [ ! -x .build-peers/venv/bin/python ]; then
        python3 -m venv .build-peers/venv
        .build-peers/venv/bin/pip install --quiet mapbox-earcut==2.1.0 numpy==2.4.6
    fi
    PY=.build-peers/venv/bin/python
fi

# GLOBE_BENCH=.build/debug/clubhouse-bench uses a bench already built (GlobeCore is optimized in
# debug too, see optimizedInDebug in Package.swift; the world map SVG time is then not comparable).
if [ -n "${GLOBE_BENCH:-}" ]; then
    BENCH=$GLOBE_BENCH
else
    swift build -c release --product clubhouse-bench >/dev/null
    BENCH=.build/release/clubhouse-bench
fi
mkdir -p .build-peers

echo "machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "python: $($PY -c 'import sys, mapbox_earcut; print(sys.version.split()[0], "mapbox_earcut", getattr(mapbox_earcut, "__version__", "?"))')"
for round in $(seq 1 "$ROUNDS"); do
    # The peer exactly as the issue runs it (best of 20), then per-run times for medians.
    $PY $PEERS/earcut_peer.py "$DATA" --engine earcut --repeat 20 --json >.build-peers/globe-peer-$round.json
    $PY Benchmarks/globe/earcut_median.py $PEERS/earcut_peer.py "$DATA" --repeat 50 >.build-peers/globe-peer-median-$round.json
    $BENCH globe --geojson "$DATA" --repeat 50 --json >.build-peers/globe-swift-$round.json
done

$PY - "$ROUNDS" <<'PYEOF'
import json, statistics, sys
rounds = int(sys.argv[1])
load = lambda name: json.load(open(f".build-peers/{name}.json"))
peer_best = [load(f"globe-peer-{r}")["engines"]["earcut"]["best_time_ms"] for r in range(1, rounds + 1)]
peer = [load(f"globe-peer-median-{r}") for r in range(1, rounds + 1)]
swift = [load(f"globe-swift-{r}") for r in range(1, rounds + 1)]
tri = [s["triangulate"] for s in swift]
svg = [s["world_map_svg"] for s in swift]
med = statistics.median
assert all(t["triangles"] == 9783 for t in tri), "Swift triangle count is not 9783"
assert all(p["triangles"] == 9783 for p in peer), "earcut triangle count is not 9783"
swift_median = med([t["median_ms"] for t in tri]); swift_best = min(t["best_ms"] for t in tri)
peer_median = med([p["median_ms"] for p in peer]); peer_best_min = min(peer_best + [p["best_ms"] for p in peer])
print(f"rounds: {rounds}")
print("| benchmark | Swift median | Swift best | peer median | peer best | ratio (median) | ratio (best) | target |")
print("|---|---|---|---|---|---|---|---|")
print(f"| triangulate NE 1:110m (287 polygons, 10,355 vertices, 9,783 triangles) | {swift_median:.3f} ms | {swift_best:.3f} ms "
      f"| {peer_median:.3f} ms | {peer_best_min:.3f} ms | {swift_median / peer_median:.2f}× | {swift_best / peer_best_min:.2f}× | ≤ 1.0× earcut (issue 18) |")
print(f"| world map SVG ({svg[0]['countries']} countries, {svg[0]['bytes']:,} bytes) | {med([s['median_ms'] for s in svg]):.3f} ms "
      f"| {min(s['best_ms'] for s in svg):.3f} ms | — | — | — | — | ≤ 50 ms |")
print(f"earcut_peer.py best-of-20 per round: {', '.join(f'{b:.3f} ms' for b in peer_best)}")
PYEOF
