#!/usr/bin/env python3
"""Times OpenCV's robust homography fits on a pairs file written by `clubhouse-bench tennis-robust
--write-ransac-pairs` (100 pairs, 70 % wrong matches), image -> court, threshold in court metres.
Prints JSON: per method the median and best time of single fits (ms), the inliers, and the largest
distance between the fit and the true court position of the file's probe points (m).
Methods: cv2.RANSAC (what the issue names; OpenCV's defaults: confidence 0.995, maxIters 2000,
Levenberg-Marquardt refinement), cv2.USAC_DEFAULT and cv2.USAC_MAGSAC (OpenCV's newer framework).
Usage: ransac_timing.py PAIRS.json [--thresh 0.25] [--runs 31] [--threads N]"""
import argparse, json, statistics, sys, time

import cv2
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("pairs")
ap.add_argument("--thresh", type=float, default=0.25)
ap.add_argument("--runs", type=int, default=31)
ap.add_argument("--threads", type=int, default=None)
a = ap.parse_args()
if a.threads is not None:
    cv2.setNumThreads(a.threads)
d = json.load(open(a.pairs))
src = np.asarray([p["image"] for p in d["pairs"]], np.float64)
dst = np.asarray([p["court"] for p in d["pairs"]], np.float64)
probes = np.asarray(d["points"], np.float64).reshape(-1, 1, 2)
truth = np.asarray(d["points_true_court"], np.float64)
out = {"opencv": cv2.__version__, "pairs": len(src), "threshold_m": a.thresh, "threads": cv2.getNumThreads()}
for name, method in [("ransac", cv2.RANSAC), ("usac_default", cv2.USAC_DEFAULT), ("usac_magsac", cv2.USAC_MAGSAC)]:
    times = []
    H = mask = None
    for _ in range(a.runs):
        t0 = time.perf_counter()
        H, mask = cv2.findHomography(src, dst, method, a.thresh)
        times.append(time.perf_counter() - t0)
    err = float("inf") if H is None else float(np.linalg.norm(cv2.perspectiveTransform(probes, H).reshape(-1, 2) - truth, axis=1).max())
    out[name] = {"median_ms": statistics.median(times) * 1e3, "best_ms": min(times) * 1e3,
                 "inliers": None if mask is None else int(mask.sum()), "max_probe_error_m": err}
json.dump(out, sys.stdout, indent=1)
print()
