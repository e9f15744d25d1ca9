// The JSON files the tennis commands read: point pairs, calibration taps.

import ClubhouseJSON

/// A pairs file: `{"pairs":[{"image":[x,y],"court":[X,Y]}, …]}` (or `{"image":[…],"court":[…]}`),
/// with optional `"points"` (image points to project). Other top-level keys are ignored, so the
/// peers' example files (which carry descriptions and ground truth) can be read as they are.
public struct PairsFile: Sendable, Equatable {
    public var pairs: [PointPair]
    public var points: [Point2D]
    /// JSON Pointer of each pair (for locating errors).
    public var pairPointers: [String]

    public static func parse(_ text: String, file: String) throws(InputError) -> PairsFile {
        let input = try JSONInput(text: text, file: file, expecting: #"a JSON pairs file: {"pairs": [{"image": [x, y], "court": [X, Y]}, …]}"#)
        let root = try input.object(at: "")
        var pairs: [PointPair] = []
        var pointers: [String] = []
        if let list = root["pairs"] {
            guard let array = list.arrayValue else { throw input.error(at: "/pairs", "pairs must be an array of {\"image\":[x,y],\"court\":[X,Y]}") }
            for i in array.indices {
                let at = "/pairs/\(i)"
                let object = try input.object(at: at)
                try input.rejectUnknownKeys(object, allowed: ["image", "court"], at: at)
                pairs.append(PointPair(image: try input.point(at: at + "/image", what: "image point", plausible: .imagePixels),
                                       court: try input.point(at: at + "/court", what: "court point", plausible: .courtMetres)))
                pointers.append(at)
            }
        } else if let images = root["image"], let courts = root["court"] {
            guard let a = images.arrayValue, let b = courts.arrayValue else {
                throw input.error(at: "", "\"image\" and \"court\" must be arrays of [x, y] points")
            }
            guard a.count == b.count else {
                throw input.error(at: "/court", "\"image\" has \(a.count) points but \"court\" has \(b.count); they must pair up")
            }
            for i in a.indices {
                pairs.append(PointPair(image: try input.point(at: "/image/\(i)", what: "image point", plausible: .imagePixels),
                                       court: try input.point(at: "/court/\(i)", what: "court point", plausible: .courtMetres)))
                pointers.append("/image/\(i)")
            }
        } else {
            throw input.error(at: "", "missing \"pairs\" (an array of {\"image\":[x,y],\"court\":[X,Y]})")
        }
        var points: [Point2D] = []
        if let list = root["points"] {
            guard let array = list.arrayValue else { throw input.error(at: "/points", "points must be an array of [x, y]") }
            for i in array.indices { points.append(try input.point(at: "/points/\(i)", what: "point", plausible: .imagePixels)) }
        }
        return PairsFile(pairs: pairs, points: points, pairPointers: pointers)
    }
}

/// A taps file: `{"net_left":[x,y],"net_right":[x,y],"baseline_left":[x,y],"baseline_right":[x,y],"t":[x,y]}`
/// in image pixels, with an optional `"camera"` name.
public struct TapsFile: Sendable, Equatable {
    public var taps: CalibrationTaps
    public var camera: String?

    public static func parse(_ text: String, file: String) throws(InputError) -> TapsFile {
        let input = try JSONInput(text: text, file: file,
                                  expecting: #"a JSON taps file: {"net_left": [x, y], "net_right": [x, y], "baseline_left": [x, y], "baseline_right": [x, y], "t": [x, y]} in image pixels"#)
        let root = try input.object(at: "")
        try input.rejectUnknownKeys(root, allowed: CalibrationTaps.keys + ["camera"], at: "")
        var points: [Point2D] = []
        for key in CalibrationTaps.keys {
            guard root[key] != nil else {
                throw input.error(at: "", "missing \"\(key)\"; a taps file gives [x, y] pixels for \(CalibrationTaps.keys.joined(separator: ", "))")
            }
            points.append(try input.point(at: "/" + key, what: key, plausible: .imagePixels))
        }
        let camera: String?
        if let value = root["camera"] {
            guard let name = value.stringValue, CameraCalibration.isValidCameraName(name) else {
                throw input.error(at: "/camera", "camera must be a name of 1–64 letters, digits, '.', '_' or '-'")
            }
            camera = name
        } else {
            camera = nil
        }
        return TapsFile(taps: CalibrationTaps(netLeft: points[0], netRight: points[1], baselineLeft: points[2],
                                              baselineRight: points[3], t: points[4]), camera: camera)
    }
}
