"""Peer for the putting benchmark: the compat roll model and its three-stage search written the
plain NumPy way (per-step array arithmetic, as a Python service would run it), timed on Presidio
hole 1. Written for this project from the rules in shared/domain/putting.md; it must land on the
same answer as Hole_1_bestline.json, which it checks before printing its time.

usage: python compat_peer.py PRESIDIO_DIR [RUNS]
"""
import json
import math
import sys
import time

import numpy as np

G = 32.174
CUP = 2.125 / 12.0


def load(folder):
    meta = json.load(open(f"{folder}/hole_1/Hole_1_heightfield.json"))["grid"]
    nx, nz, res = meta["nx"], meta["nz"], meta["resolution_ft"]
    heights = np.fromfile(f"{folder}/hole_1/Hole_1_heightfield.bin", dtype="<f4").reshape(nz, nx).astype(np.float64)
    xs = np.arange(nx) * res + meta["x_min_ft"]
    zs = np.arange(nz) * res + meta["z_min_ft"]
    green = heights > 0.0
    slope_z, slope_x = np.gradient(np.where(green, heights, 0.0), res, res)
    return xs, zs, heights, green, slope_x, slope_z


def roll(field, start, velocity, hole, stimp):
    xs, zs, heights, green, slope_x, slope_z = field
    decel = 6.0 ** 2 / (2.0 * stimp)
    p = np.array(start, dtype=float)
    v = np.array(velocity, dtype=float)
    path, holed, t = [], False, 0.0
    for _ in range(int(30.0 / 0.01)):
        x, z = float(p[0]), float(p[1])
        i = int(np.clip(np.searchsorted(xs, x) - 1, 0, len(xs) - 1))
        j = int(np.clip(np.searchsorted(zs, z) - 1, 0, len(zs) - 1))
        if not green[j, i]:
            break
        path.append((x, z, float(heights[j, i])))
        speed = float(np.linalg.norm(v))
        if speed < 0.2:
            break
        if (x - hole[0]) ** 2 + (z - hole[1]) ** 2 <= CUP ** 2 and speed <= 4.0:
            holed = True
            break
        a = -G * np.array([slope_x[j, i], slope_z[j, i]]) - decel * (v / (speed + 1e-12))
        v = v + a * 0.01
        p = p + v * 0.01
        t += 0.01
    end = path[-1][:2] if path else tuple(start)
    return holed, end, float(np.linalg.norm(v)), path, t


def best_line(field, ball, hole, stimp):
    base = math.atan2(hole[1] - ball[1], hole[0] - ball[0])

    def stage(offsets, speeds):
        best = None
        for offset in offsets:
            direction = np.array([math.cos(base + np.deg2rad(offset)), math.sin(base + np.deg2rad(offset))])
            for speed in speeds:
                v0 = direction * float(speed)
                holed, end, final_speed, _, _ = roll(field, ball, v0, hole, stimp)
                miss = math.hypot(end[0] - hole[0], end[1] - hole[1])
                score = -1000.0 - miss if holed else miss + 0.15 * final_speed
                if best is None or score < best[0]:
                    best = (score, float(offset), float(speed), v0)
        return best

    _, a1, s1, _ = stage(np.arange(-25.0, 25.0 + 1e-9, 2.0), np.arange(2.0, 16.0 + 1e-9, 1.0))
    _, a2, s2, _ = stage(np.arange(a1 - 4.0, a1 + 4.0 + 1e-9, 0.5),
                         np.arange(max(2.0, s1 - 2.0), min(16.0, s1 + 2.0) + 1e-9, 0.25))
    _, a3, s3, v0 = stage(np.arange(a2 - 1.0, a2 + 1.0 + 1e-9, 0.2),
                          np.arange(max(2.0, s2 - 0.6), min(16.0, s2 + 0.6) + 1e-9, 0.1))
    holed, _, _, path, t = roll(field, ball, v0, hole, stimp)
    return a3, s3, holed, len(path), t


def main():
    folder = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    expected = json.load(open(f"{folder}/hole_1/Hole_1_bestline.json"))["bestLine"]
    field = load(folder)
    ball = (expected["ballXFt"], expected["ballZFt"])
    hole = (expected["holeXFt"], expected["holeZFt"])
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        aim, speed, holed, points, t_end = best_line(field, ball, hole, expected["stimpFt"])
        times.append(time.perf_counter() - t0)
    same = (aim == expected["aimOffsetDeg"] and speed == expected["speedFps"] and holed == expected["holed"]
            and points == len(expected["pathXFt"]) and t_end == expected["tEndS"])
    times.sort()
    print(f"peer numpy compat best line, hole 1: median {times[len(times) // 2] * 1000:.1f} ms over {runs} run(s); "
          f"aim {aim}, speed {speed}, holed {holed}, {points} points; matches the original file: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
