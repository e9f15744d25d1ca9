#!/usr/bin/env bash
# Tennis benchmarks beside the OpenCV peer, in one session (see RESULTS.md for the last figures).
#   Benchmarks/tennis/run.sh            # 3 rounds; RUNS=5 for more
# Builds clubhouse-bench (release), writes the 8 calibration pairs of the demo camera, and in each
# round runs: the Swift benchmarks (1,000,000-point projection, H from 8 pairs, frame encode+decode)
# plus the round trip to the simulator program on a socket pair (2000 commands through CommandExchange),
# and ../shared/peers/homography_peer.py on the same pairs (cv2.perspectiveTransform of 1,000,000
# points, cv2.findHomography on the 8 pairs), with OpenCV's default threads and with 1 thread.
# Then (1.1) `clubhouse-bench tennis-robust`: the robust fit on 100 pairs with 70 % wrong matches
# (ten sets) and a 15-ball drill streamed to the simulator program on a socket pair at 2 s per ball, beside
# Benchmarks/tennis/ransac_timing.py (OpenCV findHomography RANSAC / USAC on the same pairs) and the
# shared peer's own RANSAC fit of them. Prints a Markdown table of the medians over the rounds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
peers="$root/../shared/peers"
out="$root/.build-peers/tennis"
mkdir -p "$out"

# Python with OpenCV: the machine's peers venv when there is one, else a private venv.
if [ -n "${PEERS_VENV:-}" ] && [ -x "$PEERS_VENV/bin/python" ]; then
  py="$PEERS_VENV/bin/python"
elif [ -x "$peers/.venv/bin/python" ]; then
  py="$peers/.venv/bin/python"
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
  "$bench" tennis-robust --write-ransac-pairs "$out/ransac100.json" --drill-balls "${DRILL_BALLS:-15}" > "$out/robust-$i.json"
  "$py" "$root/Benchmarks/tennis/ransac_timing.py" "$out/ransac100.json" --thresh 0.25 > "$out/cvransac-$i.json"
  "$py" "$root/Benchmarks/tennis/ransac_timing.py" "$out/ransac100.json" --thresh 0.25 --threads 1 > "$out/cvransac1-$i.json"
done
"$py" "$peers/homography_peer.py" "$out/ransac100.json" --method ransac --thresh 0.25 > "$out/peer-ransac.json"

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
print(f"| project 1,000,000 points (Mpts/s, higher is better) | {proj:.0f} | "
      f"{cv:.0f} (default threads), {cv1:.0f} (1 thread) | {proj/cv:.2f}x, {proj/cv1:.2f}x | >= 0.5x |")
print(f"| estimate H from 8 pairs (us, lower is better) | {est:.1f} | "
      f"{fh:.1f} findHomography (default threads), {fh1:.1f} (1 thread) | {fh/est:.1f}x faster | faster |")
print(f"| frame encode + decode, xor (M/s) | {fx:.1f} | - | - | >= 10 M/s |")
print(f"| frame encode + decode, modbus (M/s) | {fm:.1f} | - | - | >= 10 M/s |")
rt = med([s["simulator_round_trip_median_us"] for s in sw])
rt90 = med([s["simulator_round_trip_p90_us"] for s in sw])
print(f"| simulator round trip (the clubhouse-ballmachine program on a socket pair), command → accepted (us) | "
      f"{rt:.1f} median, {rt90:.1f} p90 | - | - | <= 200 us median |")
rb = load("robust")
cvr, cvr1 = load("cvransac"), load("cvransac1")
rm = med([r["ransac_median_ms"] for r in rb])
r1 = med([r["ransac_first_set_median_ms"] for r in rb])
cv_r = med([c["ransac"]["median_ms"] for c in cvr]); cv_r1 = med([c["ransac"]["median_ms"] for c in cvr1])
cv_u = med([c["usac_default"]["median_ms"] for c in cvr]); cv_m = med([c["usac_magsac"]["median_ms"] for c in cvr])
err_sw = max(r["ransac_first_set_max_court_error_m"] for r in rb)
err_all = max(r["ransac_worst_max_court_error_m"] for r in rb)
err_cv = cvr[0]["ransac"]["max_probe_error_m"]
err_u = cvr[0]["usac_default"]["max_probe_error_m"]
err_m = cvr[0]["usac_magsac"]["max_probe_error_m"]
peer_r = json.load(open(f"{out}/peer-ransac.json"))
print(f"| robust H, 100 pairs, 70 % wrong, threshold 0.25 m (ms, ten sets) | "
      f"{rm:.3f} median ({med([r['ransac_median_samples'] for r in rb]):.0f} samples) | - | - | <= 5 ms |")
print(f"| same, first set (ms) | {r1:.3f} | "
      f"cv2.RANSAC {cv_r:.2f} (1 thread {cv_r1:.2f}); USAC_DEFAULT {cv_u:.3f}; USAC_MAGSAC {cv_m:.3f} | "
      f"RANSAC {cv_r/r1:.1f}x faster; MAGSAC {cv_m/r1:.2f}x | - |")
print(f"| largest court error of the fit (m; first set / worst of ten) | {err_sw:.4f} / {err_all:.4f} | "
      f"RANSAC {err_cv:.4f}, USAC {err_u:.4f}, MAGSAC {err_m:.4f}; "
      f"homography_peer.py ransac: {peer_r.get('projected_vs_true_max_err', float('nan')):.4f} | "
      f"- | <= 0.10 m |")
dl = [r["drill_late_median_ms"] for r in rb]; dp = [r["drill_late_p90_ms"] for r in rb]; dm = [r["drill_late_max_ms"] for r in rb]
print(f"| drill at 2 s per ball to the simulator: command written after its time (ms, {rb[0]['drill_balls']} balls per round) | "
      f"median {med(dl):.3f}, p90 {med(dp):.3f}, max {max(dm):.3f} (worst round) | - | - | <= 1 ms |")
print()
print(f"{runs} rounds; Swift figures are the median of 15 samples per round, the peer's the best of 5 per round; "
      f"the table shows the median over rounds. Machine: {platform.machine()}, {os.cpu_count()} cores, "
      f"load average {os.getloadavg()[0]:.1f} at the end (shared with other builds).")
PY
