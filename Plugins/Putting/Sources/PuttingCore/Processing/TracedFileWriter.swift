// The traced files written back in the original layout (`Hole_N_boundary.json`,
// `Hole_N_contours.json`): for greens the project generates itself (the demo), so that what it
// processes went through the same parser, checks and error locations as a user's files.
import ClubhouseJSON

extension TracedBoundary {
    /// The boundary file: header members, then one point per line.
    public var fileText: String {
        var lines = ["{"] + TracedFileWriter.header(imagePath: imagePath, imageWidthPx: imageWidthPx, imageHeightPx: imageHeightPx,
                                                    widthFt: greenWidthFt, heightFt: greenHeightFt)
        lines.append("  \"points_xz_ft\": [")
        for (i, p) in points.enumerated() {
            lines.append("    " + TracedFileWriter.point(p) + (i + 1 < points.count ? "," : ""))
        }
        return (lines + ["  ]", "}"]).joined(separator: "\n") + "\n"
    }
}

extension TracedContours {
    /// The contours file: header members, then one contour per line.
    public var fileText: String {
        var lines = ["{"] + TracedFileWriter.header(imagePath: imagePath, imageWidthPx: imageWidthPx, imageHeightPx: imageHeightPx,
                                                    widthFt: greenWidthFt, heightFt: greenHeightFt)
        if let contourIntervalFt { lines.append("  \"contour_interval_ft\": \(TracedFileWriter.number(contourIntervalFt)),") }
        lines.append("  \"contours\": [")
        for (i, c) in contours.enumerated() {
            var item = "    {"
            if let k = c.k { item += "\"k\": \(k), " }
            item += "\"height_ft\": \(TracedFileWriter.number(c.heightFt)), \"points_xz_ft\": ["
            item += c.points.map(TracedFileWriter.point).joined(separator: ", ") + "]}"
            lines.append(item + (i + 1 < contours.count ? "," : ""))
        }
        return (lines + ["  ]", "}"]).joined(separator: "\n") + "\n"
    }
}

enum TracedFileWriter {
    static func header(imagePath: String?, imageWidthPx: Int?, imageHeightPx: Int?, widthFt: Double, heightFt: Double) -> [String] {
        var lines: [String] = []
        if let imagePath { lines.append("  \"image_path\": \(JSONWriter.compact(.string(imagePath))),") }
        if let imageWidthPx { lines.append("  \"image_w_px\": \(imageWidthPx),") }
        if let imageHeightPx { lines.append("  \"image_h_px\": \(imageHeightPx),") }
        lines.append("  \"green_width_ft\": \(number(widthFt)),")
        lines.append("  \"green_height_ft\": \(number(heightFt)),")
        return lines
    }

    /// Shortest round-trip form (what the parser reads back bit for bit).
    static func number(_ v: Double) -> String { JSONWriter.compact(.double(v)) }

    static func point(_ p: TracedPoint) -> String { "{\"x\": \(number(p.x)), \"z\": \(number(p.z))}" }
}
