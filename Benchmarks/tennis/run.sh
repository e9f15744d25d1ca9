#!/usr/bin/env bash
# Tennis benchmarks beside the OpenCV peer, in one session (see RESULTS.md for the last figures).
#   Benchmarks/tennis/run.sh            # 3 rounds; RUNS=5 for more
# Builds clubhouse-bench (release), writes the 8 calibration pairs of the demo camera, and in each
# round runs: the Swift benchmarks (1,000,000-point projection, H from 8 pairs, frame encode+decode)
# plus the host simulator's round trip over loopback TCP (2000 commands through CommandExchange),
# and ../shared/peers/homography_peer.py on the same pairs (cv2.perspectiveTransform of 1,000,000
# points, cv2.findHomography on the 8 pairs), with OpenCV's default threads and with 1 thread.
# Prints a Markdown table of the medians over the rounds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
peers="$root/../shared/peers"
out="$root/.build-peers/tennis"
mkdir -p "$out"

# Python with OpenCV: the machine's peers venv when there is one, else a private venv.
if [ -n "${PEERS_VENV:-}" ] && [ -x "$PEERS_VENV/bin/python" ]; then
  py="$PEERS_VENV/bin/python"
elif [ -x /work/peers-venv/bin/python ]; then
  py=/work/peers-venv/bin/python
else
  if [ ! -x .build-peers/venv/bin/python ]; then
    python3 -m venv .build-peers/venv
    .build-peers/venv/bin/pip install -q opencv-python-headless==5.0.0.93 numpy==2.4.6
  fi
  py=.build-peers/venv/bin/python
fi
[ -f "$peers/homography_peer.py" ] || { echo "missing $peers/homography_peer.py" >&2; exit 1; }

swift build -c release --product clubhouse-bench >&2
bench=.build/release/clubhouse-bench
runs=${RUNS:-3}
for i in $(seq 1 "$runs"); do
  "$bench" tennis --write-pairs "$out/pairs8.json" > "$out/swift-$i.json"
  "$py" "$peers/homography_peer.py" "$out/pairs8.json" --bench 1000000 > "$out/peer-$i.json"
  "$py" "$peers/homography_peer.py" "$out/pairs8.json" --bench 1000000 --threads 1 > "$out/peer1-$i.json"
done

"$py" - "$out" "$runs" <<'PY'
import json, statistics, sys, platform, os
out, runs = sys.argv[1], int(sys.argv[2])
load = lambda name: [json.load(open(f"{out}/{name}-{i}.json")) for i in range(1, runs + 1)]
sw, peer, peer1 = load("swift"), load("peer"), load("peer1")
med = lambda xs: statistics.median(xs)
proj = med([s["project_median_Mpts_per_s"] for s in sw])
cv = med([p["bench"]["cv2_Mpts_per_s"] for p in peer])
cv1 = med([p["bench"]["cv2_Mpts_per_s"] for p in peer1])
est = med([s["estimate_8_pairs_median_us"] for s in sw])
fh = med([p["bench"]["estimate_lstsq_us"] for p in peer])
fh1 = med([p["bench"]["estimate_lstsq_us"] for p in peer1])
fx = med([s["frame_encode_decode_xor_M_per_s"] for s in sw])
fm = med([s["frame_encode_decode_modbus_M_per_s"] for s in sw])
print(f"| benchmark | Swift (TennisCore) | peer (OpenCV {peer[0]['opencv']}) | ratio | target |")
print("|---|---|---|---|---|")
print(f"| project 1,000,000 points (Mpts/s, higher is better) | {proj:.0f} | {cv:.0f} (default threads), {cv1:.0f} (1 thread) | {proj/cv:.2f}x, {proj/cv1:.2f}x | >= 0.5x |")
print(f"| estimate H from 8 pairs (us, lower is better) | {est:.1f} | {fh:.1f} findHomography (default threads), {fh1:.1f} (1 thread) | {fh/est:.1f}x faster | faster |")
print(f"| frame encode + decode, xor (M/s) | {fx:.1f} | - | - | >= 10 M/s |")
print(f"| frame encode + decode, modbus (M/s) | {fm:.1f} | - | - | >= 10 M/s |")
rt = med([s["simulator_round_trip_median_us"] for s in sw])
rt90 = med([s["simulator_round_trip_p90_us"] for s in sw])
print(f"| simulator round trip over loopback TCP, command → accepted (us) | {rt:.1f} median, {rt90:.1f} p90 | - | - | <= 200 us median |")
print()
print(f"{runs} rounds; Swift figures are the median of 15 samples per round, the peer's the best of 5 per round; "
      f"the table shows the median over rounds. Machine: {platform.machine()}, {os.cpu_count()} cores, "
      f"load average {os.getloadavg()[0]:.1f} at the end (shared with other builds).")
PY
