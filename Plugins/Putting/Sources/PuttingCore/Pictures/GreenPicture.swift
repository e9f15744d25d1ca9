// An SVG picture of a green: elevation shading, contour lines, the boundary, and a putt (ball,
// flag, path, aim line) with a legend. Layers are independent, so the same picture can show only
// contours over shading (e.g. a heightfield rebuilt from contours, compared with its sources).

/// A picture of a green in the original map's feet↔pixel frame.
import ClubhouseGraphics
import ClubhouseToolkit
public struct GreenPicture: Sendable {
    public var heightfield: Heightfield
    /// Feet → pixels of the map area (origin at the image centre, +z up).
    public var frame: PixelFrame
    /// Which cells to shade (row-major like the heightfield); nil = cells above 0.
    public var mask: [Bool]?
    public var shading = true
    public var contours: [ContourLine] = []
    /// Heights of contour lines drawn thicker (every n-th interval); 0 = none.
    public var indexContourEvery = 4
    public var contourIntervalFt: Double?
    public var boundary: PolygonFt?
    public var ball: PointFt?
    public var flag: PointFt?
    public var path: [PointFt] = []
    public var aimLine: (from: PointFt, to: PointFt)?
    public var title: String?
    public var legend: [String] = []
    /// SVG drawn over the map, below the flag (e.g. a green book's markers).
    public var overlaySVG = ""
    /// A colour ramp for the legend in place of the elevation ramp (when the picture is not shaded).
    public var legendRamp: (stops: [String], low: String, high: String)?
    /// Cup radius for drawing the hole.
    public var cupRadiusFt = 2.125 / 12
    /// Draw a grid in feet with labelled x (east) and z (north) axes, so a position can be read off
    /// the picture as `--ball X,Z` / `--flag X,Z`.
    public var grid = false
    /// Label of the flag drawn without a putt (e.g. "stored cup").
    public var flagLabel: String?

    /// The grid's spacing: the smallest of 1, 2, 5, 10, 20, 50 ft whose lines are at least 40 px
    /// apart (a label fits between two).
    public var gridSpacingFt: Double {
        let pxPerFt = frame.imageWidthPx / frame.greenWidthFt
        return [1.0, 2, 5, 10, 20, 50].first { $0 * pxPerFt >= 40 } ?? 100
    }

    /// The point in feet drawn at the centre of the map area (the original map frame's origin unless
    /// `cropToGreen` moved it).
    public var center = PointFt(x: 0, z: 0)

    /// Feet → pixel of the map area.
    public func pixel(_ p: PointFt) -> (u: Double, v: Double) {
        frame.pixel(PointFt(x: p.x - center.x, z: p.z - center.z))
    }

    /// Frames the map on what is drawn — the shaded cells, the boundary, the ball, flag and path —
    /// with `marginFt` around, at the same pixel width: no band of empty grid below a green, no
    /// green cut by the original map's edge.
    public mutating func cropToGreen(marginFt: Double = 2) {
        var minX = Double.infinity, maxX = -Double.infinity, minZ = Double.infinity, maxZ = -Double.infinity
        func take(_ p: PointFt) {
            minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
            minZ = Swift.min(minZ, p.z); maxZ = Swift.max(maxZ, p.z)
        }
        let hf = heightfield, half = hf.resolutionFt / 2
        if let mask, mask.count == hf.nx * hf.nz {
            for row in 0..<hf.nz {
                for column in 0..<hf.nx where mask[row * hf.nx + column] {
                    take(PointFt(x: hf.xFt(column: column) - half, z: hf.zFt(row: row) - half))
                    take(PointFt(x: hf.xFt(column: column) + half, z: hf.zFt(row: row) + half))
                }
            }
        }
        boundary?.points.forEach(take)
        // Traced contours alone (no heightfield, no boundary) are what the picture shows.
        if !minX.isFinite { for line in contours { line.points.forEach(take) } }
        [ball, flag].compactMap { $0 }.forEach(take)
        path.forEach(take)
        guard minX.isFinite, maxX > minX, maxZ > minZ else { return }
        let w = maxX - minX + 2 * marginFt, h = maxZ - minZ + 2 * marginFt
        center = PointFt(x: (minX + maxX) / 2, z: (minZ + maxZ) / 2)
        frame = PixelFrame(imageWidthPx: frame.imageWidthPx, imageHeightPx: (frame.imageWidthPx * h / w).rounded(),
                           greenWidthFt: w, greenHeightFt: h)
    }

    /// A picture `widthPx` wide of the whole grid of `heightfield` (or of the given green size).
    public init(heightfield: Heightfield, widthPx: Double = 900, greenWidthFt: Double? = nil, greenHeightFt: Double? = nil) {
        self.heightfield = heightfield
        let w = greenWidthFt ?? Double(heightfield.nx) * heightfield.resolutionFt
        let h = greenHeightFt ?? Double(heightfield.nz) * heightfield.resolutionFt
        frame = PixelFrame(imageWidthPx: widthPx, imageHeightPx: (widthPx * h / w).rounded(), greenWidthFt: w, greenHeightFt: h)
    }

    /// The colour ramp for elevation, low to high.
    static let ramp: [(Double, (Double, Double, Double))] = [
        (0.0, (27, 94, 32)), (0.35, (67, 160, 71)), (0.65, (156, 204, 101)), (1.0, (240, 230, 140)),
    ]
    static let bands = 24

    static func colour(_ t: Double) -> String {
        let t = Swift.min(1, Swift.max(0, t))
        var k = 0
        while k < ramp.count - 2 && t > ramp[k + 1].0 { k += 1 }
        let (t0, c0) = ramp[k], (t1, c1) = ramp[k + 1]
        let f = (t - t0) / (t1 - t0)
        func mix(_ a: Double, _ b: Double) -> Int { Int((a + (b - a) * f).rounded()) }
        return hex(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2))
    }

    static func hex(_ r: Int, _ g: Int, _ b: Int) -> String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for v in [r, g, b] {
            let c = Swift.min(255, Swift.max(0, v))
            s.append(digits[c >> 4]); s.append(digits[c & 15])
        }
        return s
    }


    /// Legend lines broken at spaces to at most `width` characters (the 14 px font is about 7 px a
    /// character), so no line runs under the ramp or off the picture; continuations are indented.
    static func wrap(_ lines: [String], width: Int) -> [String] {
        let limit = Swift.max(30, width)
        var out: [String] = []
        for line in lines {
            var rest = Substring(line)
            var first = true
            while rest.count > limit - (first ? 0 : 3) {
                let room = limit - (first ? 0 : 3)
                let head = rest.prefix(room)
                let cut = head.lastIndex(of: " ") ?? head.endIndex
                out.append((first ? "" : "   ") + String(rest[rest.startIndex..<cut]))
                rest = rest[cut...].drop { $0 == " " }
                first = false
            }
            if !rest.isEmpty || first { out.append((first ? "" : "   ") + String(rest)) }
        }
        return out
    }

    func px(_ p: PointFt) -> String {
        let (u, v) = pixel(p)
        return "\(fixed(u, 2)),\(fixed(v, 2))"
    }

    /// Grid lines every `gridSpacingFt` over the map area, the x = 0 and z = 0 lines darker, each
    /// line labelled in feet along the bottom (x) and left (z) edges, and the axes named.
    func gridSVG() -> String {
        let step = gridSpacingFt
        let width = frame.imageWidthPx, height = frame.imageHeightPx
        // The feet at the map area's edges.
        let west = center.x - frame.greenWidthFt / 2, east = center.x + frame.greenWidthFt / 2
        let south = center.z - frame.greenHeightFt / 2, north = center.z + frame.greenHeightFt / 2
        var lines = "", labels = ""
        let halo = "stroke=\"#ffffff\" stroke-width=\"3\" stroke-opacity=\"0.85\" paint-order=\"stroke\""
        var x = (west / step).rounded(.up) * step
        while x <= east {
            let u = pixel(PointFt(x: x, z: center.z)).u
            let axis = abs(x) < step / 1000
            lines += "<line x1=\"\(fixed(u, 2))\" y1=\"0\" x2=\"\(fixed(u, 2))\" y2=\"\(fixed(height, 2))\"\(axis ? " class=\"axis\" stroke-opacity=\"0.9\" stroke-width=\"1.4\"" : "")/>\n"
            if u > 14 && u < width - 40 {
                labels += "<text x=\"\(fixed(u, 2))\" y=\"\(fixed(height - 6, 2))\" text-anchor=\"middle\" \(halo)>\(PuttingError.short(x + 0))</text>\n"
            }
            x += step
        }
        var z = (south / step).rounded(.up) * step
        while z <= north {
            let v = pixel(PointFt(x: center.x, z: z)).v
            let axis = abs(z) < step / 1000
            lines += "<line x1=\"0\" y1=\"\(fixed(v, 2))\" x2=\"\(fixed(width, 2))\" y2=\"\(fixed(v, 2))\"\(axis ? " class=\"axis\" stroke-opacity=\"0.9\" stroke-width=\"1.4\"" : "")/>\n"
            if v > 40 && v < height - 24 {
                labels += "<text x=\"4\" y=\"\(fixed(v + 4, 2))\" \(halo)>\(PuttingError.short(z + 0))</text>\n"
            }
            z += step
        }
        var out = "<g id=\"grid\" stroke=\"#1b2a1c\" stroke-opacity=\"0.3\" stroke-width=\"0.8\">\n" + lines + "</g>\n"
        out += "<g id=\"axes\" font-size=\"12\" fill=\"#1b2a1c\">\n" + labels
        out += "<text x=\"\(fixed(width - 6, 2))\" y=\"\(fixed(height - 22, 2))\" text-anchor=\"end\" font-weight=\"bold\" \(halo)>x ft (east) →</text>\n"
        out += "<text x=\"4\" y=\"16\" font-weight=\"bold\" \(halo)>↑ z ft (north)</text>\n"
        out += "</g>\n"
        return out
    }

    /// The SVG document.
    public func svg() -> String {
        let width = frame.imageWidthPx, mapHeight = frame.imageHeightPx
        // A narrow picture (a phone's) puts the ramp and scale bar under the text, not beside it.
        let narrow = frame.imageWidthPx < 560
        let wrapped = GreenPicture.wrap(legend, width: Int(saturating: (frame.imageWidthPx - (narrow ? 24 : 260)) / 7.2))
        let legendLines = (title == nil ? 0 : 1) + wrapped.count
        let legendHeight = Swift.max(Double(legendLines) * 20 + 30, 70) + (narrow ? 56 : 0)
        let height = mapHeight + legendHeight
        let scale = frame.imageWidthPx / frame.greenWidthFt
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fixed(width, 0))\" height=\"\(fixed(height, 0))\" "
        s += "viewBox=\"0 0 \(fixed(width, 0)) \(fixed(height, 0))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        s += "<rect x=\"0\" y=\"0\" width=\"\(fixed(width, 0))\" height=\"\(fixed(height, 0))\" fill=\"#f4f1ea\"/>\n"

        let hf = heightfield
        let mask = self.mask ?? hf.heights.map { $0 > 0 }
        var lo = Double.infinity, hi = -Double.infinity
        for k in hf.heights.indices where mask[k] {
            lo = Swift.min(lo, Double(hf.heights[k])); hi = Swift.max(hi, Double(hf.heights[k]))
        }
        if !(lo <= hi) { lo = 0; hi = 1 }
        let span = Swift.max(hi - lo, 1e-9)

        if shading {
            // Cells are squares: clipped to the traced boundary (when there is one) so no staircase or speck of
            // shading sticks out past the green's edge.
            if let boundary, boundary.points.count >= 3 {
                s += "<clipPath id=\"green-clip\"><polygon points=\"\(boundary.points.map(px).joined(separator: " "))\"/></clipPath>\n"
                s += "<g id=\"shading\" shape-rendering=\"crispEdges\" clip-path=\"url(#green-clip)\">\n"
            } else {
                s += "<g id=\"shading\" shape-rendering=\"crispEdges\">\n"
            }
            let half = hf.resolutionFt / 2
            for row in 0..<hf.nz {
                var column = 0
                while column < hf.nx {
                    let k = row * hf.nx + column
                    guard mask[k] else { column += 1; continue }
                    let band = Swift.min(GreenPicture.bands - 1, Int(saturating: (Double(hf.heights[k]) - lo) / span * Double(GreenPicture.bands)))
                    var end = column + 1
                    while end < hf.nx, mask[row * hf.nx + end],
                          Swift.min(GreenPicture.bands - 1, Int(saturating: (Double(hf.heights[row * hf.nx + end]) - lo) / span * Double(GreenPicture.bands))) == band
                    {
                        end += 1
                    }
                    let topLeft = pixel(PointFt(x: hf.xFt(column: column) - half, z: hf.zFt(row: row) + half))
                    let w = Double(end - column) * hf.resolutionFt * scale
                    let h = hf.resolutionFt * frame.imageHeightPx / frame.greenHeightFt
                    let colour = GreenPicture.colour((Double(band) + 0.5) / Double(GreenPicture.bands))
                    s += "<rect x=\"\(fixed(topLeft.u, 2))\" y=\"\(fixed(topLeft.v, 2))\" width=\"\(fixed(w + 0.05, 2))\" height=\"\(fixed(h + 0.05, 2))\" fill=\"\(colour)\"/>\n"
                    column = end
                }
            }
            s += "</g>\n"
        }

        if !contours.isEmpty {
            let clip = shading && (boundary?.points.count ?? 0) >= 3 ? " clip-path=\"url(#green-clip)\"" : ""
            s += "<g id=\"contours\" fill=\"none\" stroke=\"#2e3b2f\" stroke-opacity=\"0.55\" stroke-linejoin=\"round\"\(clip)>\n"
            for line in contours where line.points.count >= 2 {
                var thick = false
                if let interval = contourIntervalFt, interval > 0, indexContourEvery > 0 {
                    let k = (line.heightFt / interval).rounded()
                    thick = abs(k * interval - line.heightFt) < 1e-6 && Int(saturating: k) % indexContourEvery == 0
                }
                let points = line.points.map(px).joined(separator: " ")
                s += "<polyline stroke-width=\"\(thick ? "1.6" : "0.8")\" points=\"\(points)\"><title>\(fixed(line.heightFt, 2)) ft</title></polyline>\n"
            }
            s += "</g>\n"
        }

        if let boundary, boundary.points.count >= 3 {
            s += "<polygon id=\"boundary\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"2.5\" points=\"\(boundary.points.map(px).joined(separator: " "))\"/>\n"
        }

        if grid { s += gridSVG() }
        s += overlaySVG
        if let flag {
            let (u, v) = pixel(flag)
            let r = Swift.max(4, cupRadiusFt * scale)
            s += "<g id=\"flag\"><circle cx=\"\(fixed(u, 2))\" cy=\"\(fixed(v, 2))\" r=\"\(fixed(r, 2))\" fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"1\"/>"
            s += "<line x1=\"\(fixed(u, 2))\" y1=\"\(fixed(v, 2))\" x2=\"\(fixed(u, 2))\" y2=\"\(fixed(v - 34, 2))\" stroke=\"#333333\" stroke-width=\"2\"/>"
            s += "<polygon points=\"\(fixed(u, 2)),\(fixed(v - 34, 2)) \(fixed(u + 16, 2)),\(fixed(v - 29, 2)) \(fixed(u, 2)),\(fixed(v - 24, 2))\" fill=\"#d32f2f\"/>"
            if let flagLabel {
                let text = "\(flagLabel) \(fixed(flag.x, 2)),\(fixed(flag.z, 2))"
                // Right of the flag, or left of the pole when it would run off the picture.
                let left = u + 20 + Double(text.count) * 7 > width
                s += "<text x=\"\(fixed(left ? u - 4 : u + 20, 2))\" y=\"\(fixed(v - 26, 2))\"\(left ? " text-anchor=\"end\"" : "") font-size=\"13\" fill=\"#111111\" "
                s += "stroke=\"#ffffff\" stroke-width=\"3\" stroke-opacity=\"0.8\" paint-order=\"stroke\">\(SVGText.escape(text))</text>"
            }
            s += "</g>\n"
        }
        // The path and aim line over the flag, so the pole never hides where the ball went.
        if let aim = aimLine {
            s += "<line id=\"aim\" x1=\"\(fixed(pixel(aim.from).u, 2))\" y1=\"\(fixed(pixel(aim.from).v, 2))\" "
            s += "x2=\"\(fixed(pixel(aim.to).u, 2))\" y2=\"\(fixed(pixel(aim.to).v, 2))\" stroke=\"#ffffff\" stroke-width=\"2.5\" stroke-dasharray=\"8 5\"/>\n"
        }
        if path.count >= 2 {
            s += "<polyline id=\"path\" fill=\"none\" stroke=\"#e65100\" stroke-width=\"2.5\" stroke-linecap=\"round\" stroke-linejoin=\"round\" points=\"\(path.map(px).joined(separator: " "))\"/>\n"
        }
        if let ball {
            let (u, v) = pixel(ball)
            s += "<circle id=\"ball\" cx=\"\(fixed(u, 2))\" cy=\"\(fixed(v, 2))\" r=\"5\" fill=\"#ffffff\" stroke=\"#222222\" stroke-width=\"1.2\"/>\n"
        }

        // Legend band: title and lines, elevation ramp, scale bar.
        var y = mapHeight + 24
        s += "<g id=\"legend\" font-size=\"14\" fill=\"#222222\">\n"
        if let title {
            s += "<text x=\"12\" y=\"\(fixed(y, 0))\" font-weight=\"bold\">\(SVGText.escape(title))</text>\n"
            y += 20
        }
        for line in wrapped {
            s += "<text x=\"12\" y=\"\(fixed(y, 0))\">\(SVGText.escape(line))</text>\n"
            y += 20
        }
        let rampX = narrow ? 12 : width - 232, rampY = narrow ? y - 6 : mapHeight + 14
        // The elevation ramp explains the shading; without shading it would explain nothing.
        if shading {
            for k in 0..<GreenPicture.bands {
                let t = (Double(k) + 0.5) / Double(GreenPicture.bands)
                s += "<rect x=\"\(fixed(rampX + Double(k) * 8, 0))\" y=\"\(fixed(rampY, 0))\" width=\"8\" height=\"12\" fill=\"\(GreenPicture.colour(t))\"/>"
            }
            s += "\n<text x=\"\(fixed(rampX, 0))\" y=\"\(fixed(rampY + 28, 0))\" font-size=\"12\">\(fixed(lo, 2)) ft</text>"
            s += "<text x=\"\(fixed(rampX + 192, 0))\" y=\"\(fixed(rampY + 28, 0))\" font-size=\"12\" text-anchor=\"end\">\(fixed(hi, 2)) ft</text>\n"
        } else if let ramp = legendRamp, !ramp.stops.isEmpty {
            let w = 192 / Double(ramp.stops.count)
            s += "<g id=\"ramp\">"
            for (k, colour) in ramp.stops.enumerated() {
                s += "<rect x=\"\(fixed(rampX + Double(k) * w, 1))\" y=\"\(fixed(rampY, 0))\" width=\"\(fixed(w + 0.3, 1))\" height=\"12\" fill=\"\(colour)\"/>"
            }
            s += "</g>\n<text x=\"\(fixed(rampX, 0))\" y=\"\(fixed(rampY + 28, 0))\" font-size=\"12\">\(SVGText.escape(ramp.low))</text>"
            s += "<text x=\"\(fixed(rampX + 192, 0))\" y=\"\(fixed(rampY + 28, 0))\" font-size=\"12\" text-anchor=\"end\">\(SVGText.escape(ramp.high))</text>\n"
        }
        let bar = 10 * scale
        s += "<line x1=\"\(fixed(rampX, 0))\" y1=\"\(fixed(rampY + 42, 0))\" x2=\"\(fixed(rampX + bar, 1))\" y2=\"\(fixed(rampY + 42, 0))\" stroke=\"#222222\" stroke-width=\"3\"/>"
        s += "<text x=\"\(fixed(rampX + bar + 6, 1))\" y=\"\(fixed(rampY + 46, 0))\" font-size=\"12\">10 ft</text>\n"
        s += "</g>\n</svg>\n"
        return s
    }
}
