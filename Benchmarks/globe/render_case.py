#!/usr/bin/env python3
"""Draws one case of the rotation sweep to SVG: the placed rings (outer black, holes blue) over the
triangles GlobeCore cut (thin grey edges, light fill; a triangle covering area another one covers
too shows darker, since the fills are translucent). Reads the JSON that
`clubhouse-bench globe-sweep --only ID --dump P` prints (coordinates, holeStarts, triangles).
Usage: clubhouse-bench globe-sweep --only bad-diagonals --dump 399 | render_case.py OUT.svg [--size 900]
Then: rsvg-convert OUT.svg -o OUT.png
"""
import argparse, json, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=900)
    a = ap.parse_args()
    case = json.loads(sys.stdin.read())
    xy = case["coordinates"]
    pts = [(xy[k], xy[k + 1]) for k in range(0, len(xy), 2)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    span = max(x1 - x0, y1 - y0) or 1.0
    pad = 0.04 * a.size
    k = (a.size - 2 * pad) / span

    def sx(p):  # y up in the data, down in SVG
        return f"{pad + (p[0] - x0) * k:.3f},{a.size - pad - (p[1] - y0) * k:.3f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{a.size}" height="{a.size}" viewBox="0 0 {a.size} {a.size}">',
           f'<rect width="{a.size}" height="{a.size}" fill="white"/>']
    t = case["triangles"]
    for i in range(0, len(t) - 2, 3):
        a_, b_, c_ = pts[t[i]], pts[t[i + 1]], pts[t[i + 2]]
        out.append(f'<polygon points="{sx(a_)} {sx(b_)} {sx(c_)}" fill="#2a9d8f" fill-opacity="0.35" stroke="#555" stroke-width="0.6"/>')
    bounds = [0] + case["holeStarts"] + [len(pts)]
    for r in range(len(bounds) - 1):
        ring = pts[bounds[r]:bounds[r + 1]]
        if not ring:
            continue
        colour = "black" if r == 0 else "#1d4ed8"
        out.append(f'<polygon points="{" ".join(sx(p) for p in ring)}" fill="none" stroke="{colour}" stroke-width="1.6"/>')
    out.append(f'<text x="8" y="18" font-family="sans-serif" font-size="13">{len(pts)} vertices, '
               f'{len(case["holeStarts"])} holes, {len(t) // 3} triangles</text>')
    out.append("</svg>")
    open(a.out, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
