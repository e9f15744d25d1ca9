#!/usr/bin/env python3
"""The rotation sweep of issue 31 (item 4) beside mapbox earcut, in the same run.

Every fixture of earcut's own suite (../shared/data/globe/earcut-fixtures, read in place) is turned
through every whole degree, plain and scaled into longitude/latitude (20 degrees around 10.5 E,
45.25 N), and placed at random angles, extents (0.001-179.9 degrees, log-uniform) and centres.
`clubhouse-bench globe-sweep --cases` triangulates each case with GlobeCore's EarClipper and writes
the placements (the rotation's cosine and sine, the scale and shift, in exact decimal); this script
turns the fixtures with the same floating-point operations in the same order (so the coordinates are
the same bits) and triangulates them with mapbox_earcut.

A case passes when the triangulation's deviation (|polygon area - sum of |triangle areas|| / polygon
area, earcut's own measure) is within earcut's published bound for the fixture (errors-with-rotation
for a turned fixture, else errors; 1e-9 where earcut expects 0) and, for a fixture earcut allows no
deviation, the triangle count is n + 2h - 2. For a self-crossing fixture (one earcut's expected.json
gives a deviation bound) the bound is the larger of the published figure and earcut's own deviation
at that placement. Fixtures earcut expects no triangles of must cover no area.
Usage: rotation_sweep.py --bench PATH [--fixtures DIR] [--random N] [--step D] [--only ID] [--skip ID,...] [--placements K,...]
Prints a table per fixture and the failures; exits 1 when a case fails.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import mapbox_earcut
import numpy as np


def place(flat, p):
    """The bench's SweepPlacement.apply, operation for operation (IEEE double, no fused ops)."""
    x, y = flat[0::2], flat[1::2]
    c, s = p["c"], p["s"]
    tx = c * x - s * y
    ty = s * x + c * y
    if p["extent"] is None:
        return tx, ty
    x0, x1, y0, y1 = tx.min(), tx.max(), ty.min(), ty.max()
    size = max(x1 - x0, y1 - y0)
    k = p["extent"] / size if size > 0 else 1.0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return p["lon"] + (tx - cx) * k, p["lat"] + (ty - cy) * k


def areas(x, y, starts, tri):
    bounds = [0] + starts + [len(x)]
    poly = 0.0
    for r in range(len(bounds) - 1):
        a, b = bounds[r], bounds[r + 1]
        if b - a < 3:
            continue
        xs, ys = x[a:b], y[a:b]
        xj, yj = np.roll(xs, 1), np.roll(ys, 1)
        s = float(np.sum((xj - xs) * (ys + yj)))
        poly += abs(s) / 2 if r == 0 else -abs(s) / 2
    t = tri.reshape(-1, 3)
    ax, ay, bx, by, cx, cy = x[t[:, 0]], y[t[:, 0]], x[t[:, 1]], y[t[:, 1]], x[t[:, 2]], y[t[:, 2]]
    tarea = float(np.sum(np.abs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)))) / 2
    return poly, tarea


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(__file__), "../../../shared/data/globe/earcut-fixtures"))
    ap.add_argument("--random", type=int, default=300)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--only")
    ap.add_argument("--skip", help="fixtures to leave out (comma-separated), e.g. the giants run apart")
    ap.add_argument("--placements", help="only these placement numbers (comma-separated), e.g. to re-run failures")
    a = ap.parse_args()
    fixtures = os.path.normpath(a.fixtures)
    if not os.path.isdir(fixtures):
        print(f"rotation sweep: {fixtures} not found (the earcut fixtures sit beside the repository); skipped")
        return
    expected = json.load(open(os.path.join(fixtures, "_expected.json")))
    tmp = tempfile.mkdtemp(prefix="rotation-sweep-")
    placements_path = os.path.join(tmp, "placements.jsonl")
    cmd = [a.bench, "globe-sweep", "--fixtures", fixtures, "--random", str(a.random), "--step", str(a.step),
           "--cases", "--write-placements", placements_path] + (["--only", a.only] if a.only else []) + (["--skip", a.skip] if a.skip else []) + (["--placements", a.placements] if a.placements else [])
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    swift_wall = time.perf_counter() - t0
    placements = [json.loads(l) for l in open(placements_path)]
    ours = {}
    summary = {}
    for line in out.splitlines():
        d = json.loads(line)
        if "placement" in d:
            ours[(d["fixture"], d["placement"])] = d
        elif "fixture" in d:
            summary[d["fixture"]] = d
    errors, rotated = expected.get("errors", {}), expected.get("errors-with-rotation", {})
    failures = []
    rows = []
    earcut_seconds = 0.0
    for name in sorted(summary):
        rings = json.load(open(os.path.join(fixtures, name + ".json")))
        flat = np.array([v for ring in rings for pt in ring for v in pt[:2]], float)
        starts, n = [], 0
        for ring in rings:
            if n:
                starts.append(n)
            n += len(ring)
        ends = np.array(starts + [n], np.uint32)
        published_plain, published_turned = errors.get(name, 0.0), rotated.get(name, errors.get(name, 0.0))
        self_crossing = name in errors and errors[name] > 1e-12
        expect = expected["triangles"].get(name, 0)
        fails = worse_than_earcut = 0
        worst_ours = worst_earcut = 0.0
        for k, p in enumerate(placements):
            o = ours.get((name, k))
            if o is None:
                continue
            x, y = place(flat, p)
            verts = np.column_stack([x, y])
            t1 = time.perf_counter()
            tri = mapbox_earcut.triangulate_float64(verts, ends)
            earcut_seconds += time.perf_counter() - t1
            poly, tarea = areas(x, y, starts, tri)
            if expect > 0:
                e_dev = abs(tarea - poly) / poly
            else:
                box = (x.max() - x.min()) * (y.max() - y.min())
                e_dev = tarea / box if box > 0 else 0.0
            bound = published_turned if k > 0 else published_plain
            # earcut's own figure with a billionth of slack: the same triangles summed in another order
            # (Swift's loop against numpy's pairwise sum) differ in the last bits.
            allowed = max(1e-9, bound, e_dev * (1 + 1e-9) if self_crossing else 0.0)
            ok = o["deviation"] <= allowed and (expect == 0 or bound > 0 or o["triangles"] == o["formula"])
            worst_ours, worst_earcut = max(worst_ours, o["deviation"]), max(worst_earcut, e_dev)
            if o["deviation"] > max(e_dev, 1e-9):
                worse_than_earcut += 1
            if not ok:
                fails += 1
                failures.append(f"{name} placement {k} {json.dumps(p)}: ours {o['deviation']:.10g} ({o['triangles']} triangles, "
                                f"n + 2h - 2 = {o['formula']}), earcut {e_dev:.10g} ({len(tri) // 3} triangles), allowed {allowed:.3g}")
        rows.append((name, summary[name]["vertices"], summary[name]["holes"], summary[name]["cases"], worst_ours, worst_earcut,
                     worse_than_earcut, fails, summary[name]["triangulate_s"]))
    print(f"{len(placements)} placements per fixture ({360 // a.step} whole degrees plain, as many scaled into lon/lat, "
          f"{a.random} random); mapbox_earcut {getattr(mapbox_earcut, '__version__', '?')}")
    print()
    print("| fixture | vertices | holes | cases | worst deviation, ours | worst deviation, earcut | ours above earcut's | failing | ours, s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3g} | {r[5]:.3g} | {r[6]} | {r[7]} | {r[8]:.2f} |")
    total = sum(r[3] for r in rows)
    print()
    print(f"{total} cases, {len(failures)} failing; earcut itself outside the published bound or with a wrong count "
          f"is not counted against us. Swift triangulation time {sum(r[8] for r in rows):.1f} s "
          f"(whole bench process {swift_wall:.1f} s), earcut {earcut_seconds:.1f} s")
    for f in failures[:50]:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
