// Import of the original tools' folder layout, read as is:
//
//   COURSE/Hole_N/  config.json, Hole_N_boundary.json, Hole_N_contours.json,
//                   Hole_N_heightfield.json + .bin (or under unity/)      (the original repository)
//   COURSE/hole_N/  the same files side by side                           (shared/data/putting/presidio)
//
// A hole folder without a heightfield (or any, with `sourcesOnly`) is read from its traced boundary
// and contours alone; `putting hole process` builds its heightfield later.
//
// and of one hole from a heightfield `.json` with its `.bin` beside it. Everything is read and
// checked before anything is returned, so a failed import writes nothing.
import ClubhouseJSON
import Glibc

/// The parts of `config.json` the catalog uses.
public struct GreenConfig: Sendable, Equatable {
    public var north, south, east, west: LatLon?
    public var contourIntervalFt: Double?
    public var holeLocation: LatLon?

    /// The reference point of the original local frame: the mean of the four extents.
    public var origin: LatLon? {
        guard let n = north, let s = south, let e = east, let w = west else { return nil }
        return LatLon(lat: (n.lat + s.lat + e.lat + w.lat) / 4, lon: (n.lon + s.lon + e.lon + w.lon) / 4)
    }

    /// Green width (east–west extent) and height (north–south), feet, along geodesics.
    public var greenSizeFt: (width: Double, height: Double)? {
        guard let n = north, let s = south, let e = east, let w = west,
              let width = Geodesy.distanceFt(e, w), let height = Geodesy.distanceFt(n, s) else { return nil }
        return (width, height)
    }

    /// The hole location in the green's frame, feet.
    public var holePositionFt: PointFt? {
        guard let origin, let holeLocation else { return nil }
        return Geodesy.localFeet(of: holeLocation, origin: origin)
    }
}

/// A boundary or contours file's header and points.
public struct GreenOutlineFile: Sendable, Equatable {
    public var imageWidthPx: Int?
    public var imageHeightPx: Int?
    public var greenWidthFt: Double?
    public var greenHeightFt: Double?
    public var contourIntervalFt: Double?
    public var boundary: PolygonFt?
    public var contours: [ContourLine] = []
}

/// Reads the original layouts into holes.
public enum CatalogImporter {
    /// Every hole of a course folder (`Hole_N/` or `hole_N/` sub-folders), sorted by number. With
    /// `sourcesOnly`, heightfield files are ignored: every hole is read from its traced files.
    public static func readCourse(directory: String, courseID: String, sourcesOnly: Bool = false,
                                  files: any LocalFileAccess = LocalFiles()) throws(PuttingError) -> [Hole] {
        guard files.isDirectory(directory) else {
            throw .notADirectory(path: directory)
        }
        let entries = files.names(in: directory)
        var folders: [Int: String] = [:]
        for name in entries {
            guard let number = holeNumber(folderName: name) else { continue }
            let path = directory + "/" + name
            guard files.isDirectory(path) else { continue }
            if let first = folders[number] { throw .duplicateHole(number: number, first: first, second: path) }
            folders[number] = path
        }
        guard !folders.isEmpty else { throw .noHoles(directory: directory) }
        var holes: [Hole] = []
        for (number, folder) in folders.sorted(by: { $0.key < $1.key }) {
            holes.append(try readHoleFolder(folder, number: number, courseID: courseID, sourcesOnly: sourcesOnly, files: files))
        }
        return holes
    }

    /// `Hole_12` or `hole_12` → 12 (1…99); anything else → nil.
    public static func holeNumber(folderName: String) -> Int? {
        let lower = folderName.lowercased()
        guard lower.hasPrefix("hole_") else { return nil }
        let digits = lower.dropFirst(5)
        guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy(\.isASCII), let n = Int(digits), (1...99).contains(n) else {
            return nil
        }
        return n
    }

    /// One hole folder: its heightfield, or the traced boundary and contours to build one from (both
    /// are kept verbatim whenever both are there), plus config. With `sourcesOnly` the heightfield
    /// files are ignored and the traced files are required. Traced files a hole depends on (no
    /// heightfield) are checked as strictly as processing will check them, so a bad file is refused
    /// here with its line and column and nothing is stored.
    public static func readHoleFolder(_ folder: String, number: Int, courseID: String, sourcesOnly: Bool = false,
                                      files: any LocalFileAccess = LocalFiles()) throws(PuttingError) -> Hole
    {
        let entries = files.names(in: folder)
        let unity = folder + "/unity"
        let unityFiles = files.names(in: unity)
        func find(_ suffix: String) -> String? {
            if let f = entries.first(where: { $0.lowercased().hasSuffix(suffix) }) { return folder + "/" + f }
            if let f = unityFiles.first(where: { $0.lowercased().hasSuffix(suffix) }) { return unity + "/" + f }
            return nil
        }
        let heightfieldPath = sourcesOnly ? nil : find("_heightfield.json")
        let boundaryPath = find("_boundary.json"), contoursPath = find("_contours.json")
        if heightfieldPath == nil {
            let missing = [(boundaryPath, "*_boundary.json"), (contoursPath, "*_contours.json")].filter { $0.0 == nil }.map(\.1)
            if !missing.isEmpty { throw .missingGreenFiles(holeDirectory: folder, missing: missing, sourcesOnly: sourcesOnly) }
        }
        var traced: TracedSourceFiles?
        if let boundaryPath, let contoursPath {
            let sources = TracedSourceFiles(boundaryFile: boundaryPath, boundaryText: try readText(boundaryPath, files: files),
                                            contoursFile: contoursPath, contoursText: try readText(contoursPath, files: files))
            if heightfieldPath == nil { _ = try sources.parse(what: "\(courseID) hole \(number)") }
            traced = sources
        }
        let heightfield: Heightfield?
        do { heightfield = try heightfieldPath.map { (p: String) throws(HeightfieldError) in try Heightfield.read(jsonPath: p, files: files) } } catch {
            throw .heightfield(error)
        }

        let configPath = folder + "/config.json"
        let config = files.exists(configPath) ? try readConfig(configPath, files: files) : nil
        let boundaryFile = try boundaryPath.map { (p: String) throws(PuttingError) in try readOutline(p, kind: .boundary, files: files) }
        let contoursFile = try contoursPath.map { (p: String) throws(PuttingError) in try readOutline(p, kind: .contours, files: files) }

        var width = boundaryFile?.greenWidthFt ?? contoursFile?.greenWidthFt
        var height = boundaryFile?.greenHeightFt ?? contoursFile?.greenHeightFt
        if width == nil || height == nil, let size = config?.greenSizeFt {
            width = width ?? size.width
            height = height ?? size.height
        }
        // Without a heightfield, the strict parse above made sure the traced files give the size.
        let greenWidth = width ?? heightfield.map { Double($0.nx - 1) * $0.resolutionFt } ?? 1
        let greenHeight = height ?? heightfield.map { Double($0.nz - 1) * $0.resolutionFt } ?? 1
        var hole = Hole(courseID: courseID, number: number, greenWidthFt: greenWidth, greenHeightFt: greenHeight,
                        holePosition: config?.holePositionFt, boundary: boundaryFile?.boundary,
                        contours: contoursFile?.contours ?? [],
                        contourIntervalFt: contoursFile?.contourIntervalFt ?? config?.contourIntervalFt, traced: traced,
                        imageWidthPx: boundaryFile?.imageWidthPx ?? contoursFile?.imageWidthPx,
                        imageHeightPx: boundaryFile?.imageHeightPx ?? contoursFile?.imageHeightPx,
                        source: folder)
        if let heightfield, let heightfieldPath {
            try checkGridCoversGreen(heightfield, width: greenWidth, height: greenHeight, file: heightfieldPath)
            hole.setHeightfield(heightfield, origin: .imported)
        }
        return hole
    }

    /// A whole text file (its errors read like the heightfield reader's).
    static func readText(_ path: String, files: any LocalFileAccess) throws(PuttingError) -> String {
        do { return String(decoding: try readFile(path, files: files), as: UTF8.self) } catch { throw .heightfield(error) }
    }

    /// One hole from a heightfield `.json` (the `.bin` beside it); its size is the grid's span.
    public static func readHeightfieldHole(jsonPath: String, courseID: String, number: Int,
                                           files: any LocalFileAccess = LocalFiles()) throws(PuttingError) -> Hole {
        guard (1...99).contains(number) else { throw .invalidHoleNumber(number) }
        let heightfield: Heightfield
        do { heightfield = try Heightfield.read(jsonPath: jsonPath, files: files) } catch { throw .heightfield(error) }
        guard heightfield.heights.contains(where: { $0 > 0 }) else {
            throw .heightfield(.inFile(file: Heightfield.binaryPath(forJSONPath: jsonPath),
                                       problem: "no cell is above 0, so the heightfield has no green: check the file"))
        }
        return Hole(courseID: courseID, number: number, greenWidthFt: Double(heightfield.nx - 1) * heightfield.resolutionFt,
                    greenHeightFt: Double(heightfield.nz - 1) * heightfield.resolutionFt, heightfield: heightfield,
                    source: jsonPath)
    }

    /// The original grid spans the green's width and height (give or take a cell or two) centred on the
    /// origin; anything else means the heightfield belongs to another green.
    static func checkGridCoversGreen(_ hf: Heightfield, width: Double, height: Double, file: String) throws(PuttingError) {
        let spanX = Double(hf.nx - 1) * hf.resolutionFt, spanZ = Double(hf.nz - 1) * hf.resolutionFt
        let slackX = Swift.max(3 * hf.resolutionFt, 0.05 * width), slackZ = Swift.max(3 * hf.resolutionFt, 0.05 * height)
        if abs(spanX - width) > slackX || abs(spanZ - height) > slackZ
            || abs(hf.xMinFt + width / 2) > slackX || abs(hf.zMinFt + height / 2) > slackZ
        {
            throw .heightfield(.inFile(file: file, problem: "grid spans \(PuttingError.short(spanX))×\(PuttingError.short(spanZ)) ft from "
                + "(\(PuttingError.short(hf.xMinFt)), \(PuttingError.short(hf.zMinFt))) but the green is "
                + "\(PuttingError.short(width))×\(PuttingError.short(height)) ft centred on 0: the heightfield does not belong to this hole"))
        }
    }

    static func parse(_ path: String, files: any LocalFileAccess) throws(PuttingError) -> JSONFields {
        let bytes: [UInt8]
        do { bytes = try readFile(path, files: files) } catch { throw .heightfield(error) }
        do {
            return try JSONFields(text: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .invalidJSON(file: path, line: error.location.line, column: error.location.column, message: error.message)
        }
    }

    static func bad(_ path: String, _ p: FieldProblem) -> PuttingError {
        .badField(file: path, line: p.line, column: p.column, field: p.field, problem: p.problem)
    }

    /// Reads `config.json` (extents, contour interval, hole location; all optional but typed).
    public static func readConfig(_ path: String, files: any LocalFileAccess = LocalFiles()) throws(PuttingError) -> GreenConfig {
        let fields = try parse(path, files: files)
        do throws(FieldProblem) {
            guard fields.root.objectValue != nil else { throw fields.problem("", "must be an object") }
            func latLon(_ pointer: String) throws(FieldProblem) -> LatLon? {
                guard fields.value(pointer) != nil else { return nil }
                let lat = try fields.double(pointer + "/lat"), lon = try fields.double(pointer + "/lon")
                guard (-90...90).contains(lat) else { throw fields.problem(pointer + "/lat", "is \(lat): a latitude lies in −90…90") }
                guard (-180...180).contains(lon) else { throw fields.problem(pointer + "/lon", "is \(lon): a longitude lies in −180…180") }
                return LatLon(lat: lat, lon: lon)
            }
            var config = GreenConfig()
            config.north = try latLon("/extents/north")
            config.south = try latLon("/extents/south")
            config.east = try latLon("/extents/east")
            config.west = try latLon("/extents/west")
            if let c = try fields.optionalDouble("/contour_interval_ft"), c <= 0 {
                throw fields.problem("/contour_interval_ft", "is \(c): it must be greater than 0")
            }
            config.contourIntervalFt = try fields.optionalDouble("/contour_interval_ft", plausible: PlausibleFeet.spacing)
            config.holeLocation = try latLon("/hole_location")
            return config
        } catch {
            throw bad(path, error)
        }
    }

    enum OutlineKind { case boundary, contours }

    /// Reads a `*_boundary.json` or `*_contours.json` file.
    static func readOutline(_ path: String, kind: OutlineKind, files: any LocalFileAccess = LocalFiles()) throws(PuttingError) -> GreenOutlineFile {
        let fields = try parse(path, files: files)
        do throws(FieldProblem) {
            guard fields.root.objectValue != nil else { throw fields.problem("", "must be an object") }
            var file = GreenOutlineFile()
            if fields.value("/image_w_px") != nil { file.imageWidthPx = try fields.int("/image_w_px") }
            if fields.value("/image_h_px") != nil { file.imageHeightPx = try fields.int("/image_h_px") }
            for (pointer, v) in [("/image_w_px", file.imageWidthPx), ("/image_h_px", file.imageHeightPx)] {
                if let v, v <= 0 { throw fields.problem(pointer, "is \(v): an image size must be greater than 0") }
                if let v, !PlausibleFeet.imagePixels.contains(v) {
                    throw fields.problem(pointer, "is \(v) px: outside the plausible 1…\(PlausibleFeet.imagePixels.upperBound) px")
                }
            }
            for pointer in ["/green_width_ft", "/green_height_ft"] {
                if let v = try fields.optionalDouble(pointer), v <= 0 { throw fields.problem(pointer, "is \(v): a green size must be greater than 0") }
            }
            file.greenWidthFt = try fields.optionalDouble("/green_width_ft", plausible: PlausibleFeet.side)
            file.greenHeightFt = try fields.optionalDouble("/green_height_ft", plausible: PlausibleFeet.side)
            switch kind {
            case .boundary:
                let points = try fields.points("/points_xz_ft")
                guard points.count >= 3 else {
                    throw fields.problem("/points_xz_ft", "has \(points.count) points: a boundary needs at least 3")
                }
                file.boundary = PolygonFt(points: points)
            case .contours:
                file.contourIntervalFt = try fields.optionalDouble("/contour_interval_ft", plausible: PlausibleFeet.spacing)
                let items = try fields.array("/contours")
                for i in items.indices {
                    let height = try fields.double("/contours/\(i)/height_ft", plausible: PlausibleFeet.height)
                    let points = try fields.points("/contours/\(i)/points_xz_ft")
                    file.contours.append(ContourLine(heightFt: height, points: points))
                }
            }
            return file
        } catch {
            throw bad(path, error)
        }
    }
}
