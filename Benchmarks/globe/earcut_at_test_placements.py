#!/usr/bin/env python3
"""mapbox earcut's own deviation on the self-crossing earcut fixtures (those earcut's _expected.json
gives an "errors" bound) at the placements the quick tests use, so that the tests can hold GlobeCore
to "within earcut's figure at that rotation" (issue 31, item 4) without running Python.

Prints, per fixture, earcut's deviation at 17, 33.3 and 61 degrees (EarcutFixtureTests'
odd rotations) and its worst over EarcutRotationSweepTests' sample (every 30th whole degree and
every 30th from 7, plain and scaled to 20 degrees around (10.5, 45.25), and 20 random placements
from SplitMix64 seed 31; every 4th of those for fixtures of more than 1,000 vertices), placed with the same floating-point operations in the same order.
With --per-placement it prints earcut's deviation at every placement of that sample as Swift
dictionary entries (EarcutRotationSweepTests.earcutAtSample: fixture -> [placement index: deviation]),
so that the quick test holds each case to earcut's figure at that very placement.
Usage: earcut_at_test_placements.py [--fixtures DIR] [--per-placement]
"""
import argparse, json, math, os

import mapbox_earcut
import numpy as np

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def turn(degrees):
    right = {0: (1.0, 0.0), 90: (0.0, 1.0), 180: (-1.0, 0.0), 270: (0.0, -1.0)}
    return right.get(degrees) or (math.cos(degrees * math.pi / 180), math.sin(degrees * math.pi / 180))


def placements():
    """EarcutRotationSweepTests.placements(step: 30, random: 20)."""
    out = []
    for d in sorted(set(range(0, 360, 30)) | set(range(7, 360, 30))):
        out.append((float(d), None, 0.0, 0.0))
        out.append((float(d), 20.0, 10.5, 45.25))
    g = SplitMix64(31)
    uniform = lambda: (g.next() >> 11) / float(1 << 53)
    for _ in range(20):
        degrees = uniform() * 360
        extent = 0.001 * math.pow(300_000, uniform())
        half_lon, half_lat = min(extent, 359.9) / 2, min(extent, 179.9) / 2
        lon = -180 + half_lon + uniform() * max(0, 360 - 2 * half_lon)
        lat = -90 + half_lat + uniform() * max(0, 180 - 2 * half_lat)
        out.append((degrees, min(extent, 179.9), lon, lat))
    return out


def place(rings, placement):
    degrees, extent, lon, lat = placement
    c, s = turn(degrees)
    turned = [[(c * x - s * y, s * x + c * y) for x, y in ring] for ring in rings]
    if extent is None:
        return turned
    xs = [p[0] for r in turned for p in r]
    ys = [p[1] for r in turned for p in r]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    size = max(x1 - x0, y1 - y0)
    k = extent / size if size > 0 else 1
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return [[(lon + (x - cx) * k, lat + (y - cy) * k) for x, y in ring] for ring in turned]


def deviation(rings):
    pts = [p for r in rings for p in r]
    ends = np.cumsum([len(r) for r in rings]).astype(np.uint32)
    v = np.array(pts, dtype=np.float64)
    t = mapbox_earcut.triangulate_float64(v, ends).reshape(-1, 3)
    area = 0.0
    for i, r in enumerate(rings):
        a = 0.0
        for j in range(len(r)):
            (xj, yj), (xi, yi) = r[j - 1], r[j]
            a += (xj - xi) * (yi + yj)
        area += abs(a) / 2 if i == 0 else -abs(a) / 2
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    tri = float(np.sum(np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])))) / 2
    return abs(tri - area) / area


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(__file__), "../../../shared/data/globe/earcut-fixtures"))
    ap.add_argument("--per-placement", action="store_true")
    a = ap.parse_args()
    expected = json.load(open(os.path.join(a.fixtures, "_expected.json")))
    sample = placements()
    if a.per_placement:
        for fid in sorted(f for f, bound in expected["errors"].items() if bound > 1e-10):  # the self-crossing ones
            rings = json.load(open(os.path.join(a.fixtures, fid + ".json")))
            large = sum(len(r) for r in rings) > 1000
            cells = [f"{i}: {deviation(place(rings, p)):.6g}" for i, p in enumerate(sample) if not large or i % 4 == 0]
            print(f'"{fid}": [' + ", ".join(cells) + "],")
        return
    print(f"mapbox_earcut {getattr(mapbox_earcut, '__version__', '?')}; {len(sample)} sweep placements")
    for fid in sorted(expected["errors"]):
        rings = json.load(open(os.path.join(a.fixtures, fid + ".json")))
        odd = [deviation(place(rings, (d, None, 0.0, 0.0))) for d in (17.0, 33.3, 61.0)]
        large = sum(len(r) for r in rings) > 1000
        worst = max(deviation(place(rings, p)) for i, p in enumerate(sample) if not large or i % 4 == 0)
        print(f'"{fid}": odd angles {", ".join(f"{x:.3g}" for x in odd)}; sweep sample worst {worst:.3g}')


if __name__ == "__main__":
    main()
