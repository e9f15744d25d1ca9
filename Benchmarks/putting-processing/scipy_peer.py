"""Peer for the putting-processing benchmark: the original numpy/scipy method on the same inputs.

Usage: scipy_peer.py DATA_DIR [--repeat N] [--check]
For each hole: samples along the contours, RBFInterpolator (thin-plate spline, degree 1,
smoothing 0.25), evaluation on the arange grid, mask strictly inside the boundary (shapely),
shift to min 0. Prints one line per hole with the median wall times (build+solve, evaluate, mask) and the
median CPU time of the whole run, and, with --check, the largest difference to the shipped .bin
over the inside cells. Run it with OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1 for one core.
"""
import json
import math
import sys
import time

import numpy as np
import shapely
from scipy.interpolate import RBFInterpolator


def samples(contours):
    pts, vals = [], []
    for c in contours:
        p = np.array([[q["x"], q["z"]] for q in c["points_xz_ft"]], dtype=float)
        h = float(c["height_ft"])
        for a, b in zip(p[:-1], p[1:]):
            n = max(1, int(math.floor(np.hypot(*(b - a)))))
            for j in range(n):
                pts.append(a + (b - a) * (j / n))
                vals.append(h)
        pts.append(p[-1])
        vals.append(h)
    return np.array(pts), np.array(vals)


def process(folder, hole):
    with open(f"{folder}/Hole_{hole}_boundary.json") as f:
        b = json.load(f)
    with open(f"{folder}/Hole_{hole}_contours.json") as f:
        c = json.load(f)
    w, h = c["green_width_ft"], c["green_height_ft"]
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    pts, vals = samples(c["contours"])
    rbf = RBFInterpolator(pts, vals, kernel="thin_plate_spline", smoothing=0.25, degree=1)
    t1 = time.perf_counter()
    xs = np.arange(-w / 2, w / 2 + 0.5, 0.5)
    zs = np.arange(-h / 2, h / 2 + 0.5, 0.5)
    X, Z = np.meshgrid(xs, zs)
    Y = rbf(np.column_stack([X.ravel(), Z.ravel()])).reshape(X.shape)
    t2 = time.perf_counter()
    poly = shapely.Polygon([(q["x"], q["z"]) for q in b["points_xz_ft"]])
    mask = shapely.contains_xy(poly, X, Z)
    Y = Y - Y[mask].min()
    Y[~mask] = 0.0
    Y = Y.astype("<f4")
    t3 = time.perf_counter()
    cpu = time.process_time() - cpu0
    return Y, mask, xs, zs, len(pts), (t1 - t0, t2 - t1, t3 - t2, cpu)


def main():
    data = sys.argv[1]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    check = "--check" in sys.argv
    total, cpu_total = [], []
    for hole in range(1, 10):
        folder = f"{data}/hole_{hole}"
        runs = []
        for _ in range(repeat):
            Y, mask, xs, zs, n, t = process(folder, hole)
            runs.append(t)
        med = [float(np.median([r[k] for r in runs])) for k in range(4)]
        total.append(float(np.median([sum(r[:3]) for r in runs])))
        cpu_total.append(med[3])
        line = (f"scipy hole {hole} samples {n} grid {len(xs)}x{len(zs)} "
                f"solve {med[0]:.4f} s eval {med[1]:.4f} s mask {med[2]:.4f} s cpu {med[3]:.4f} s")
        if check:
            shipped = np.fromfile(f"{folder}/Hole_{hole}_heightfield.bin", dtype="<f4").reshape(Y.shape)
            diff = np.abs(shipped[mask].astype(float) - Y[mask].astype(float)).max()
            mism = int(((shipped != 0) != mask).sum())
            line += f" maxdiff {diff:.3g} maskdiff {mism}"
        print(line, flush=True)
    print(f"scipy total {sum(total):.4f} s cpu {sum(cpu_total):.4f} s "
          f"(sums of per-hole medians, {repeat} runs each)")


if __name__ == "__main__":
    main()
