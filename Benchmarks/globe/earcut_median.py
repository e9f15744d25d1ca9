#!/usr/bin/env python3
"""Times mapbox earcut (C++) on every polygon of a GeoJSON file, per run, so the globe benchmark
can compare medians as well as the peer's own best-of figure.

It loads ../shared/peers/earcut_peer.py as a module and times exactly what that peer times
(its prepare() outside the loop, its run_earcut() inside), only recording every run.

Usage: earcut_median.py PEER_SCRIPT GEOJSON [--repeat N]
"""
import argparse
import importlib.util
import json
import statistics
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("peer")
    ap.add_argument("geojson")
    ap.add_argument("--repeat", type=int, default=50)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("earcut_peer", a.peer)
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    with open(a.geojson, encoding="utf-8") as f:
        fc = json.load(f)
    features = fc["features"] if fc.get("type") == "FeatureCollection" else [fc]
    polygons = [p for f in features for p in peer.polygons_of(f["geometry"])]
    prepped = [peer.prepare(p) for p in polygons]
    result = peer.run_earcut(prepped)  # warm-up
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        result = peer.run_earcut(prepped)
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"polygons": len(prepped), "triangles": int(sum(len(r) // 3 for r in result)),
                      "repeat": a.repeat, "median_ms": statistics.median(times), "best_ms": min(times)}))


if __name__ == "__main__":
    main()
