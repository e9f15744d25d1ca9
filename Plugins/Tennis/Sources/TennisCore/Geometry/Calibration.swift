// Camera calibration: five tapped image points, three points derived from them by projective
// construction, and the image → court homography fitted to the eight pairs.

/// The five points an operator taps on a still of the court.
public struct CalibrationTaps: Sendable, Equatable, Codable {
    public var netLeft: Point2D
    public var netRight: Point2D
    public var baselineLeft: Point2D
    public var baselineRight: Point2D
    /// Centre of the service line (the T).
    public var t: Point2D

    public init(netLeft: Point2D, netRight: Point2D, baselineLeft: Point2D, baselineRight: Point2D, t: Point2D) {
        self.netLeft = netLeft
        self.netRight = netRight
        self.baselineLeft = baselineLeft
        self.baselineRight = baselineRight
        self.t = t
    }

    enum CodingKeys: String, CodingKey {
        case netLeft = "net_left", netRight = "net_right", baselineLeft = "baseline_left"
        case baselineRight = "baseline_right", t
    }

    /// JSON keys, in the order of `points`.
    public static let keys = ["net_left", "net_right", "baseline_left", "baseline_right", "t"]
    public var points: [Point2D] { [netLeft, netRight, baselineLeft, baselineRight, t] }
}

/// The court points of the eight calibration pairs, in order: the four corners of the half court,
/// the T, the left and right ends of the service line, and the centre of the net.
public enum CalibrationLandmark: String, Sendable, Codable, CaseIterable {
    case netLeft = "net-left", netRight = "net-right", baselineLeft = "baseline-left", baselineRight = "baseline-right"
    case t = "t", serviceLeft = "service-left", serviceRight = "service-right", netCenter = "net-center"

    public var courtPoint: Point2D {
        switch self {
        case .netLeft: return Point2D(0, 0)
        case .netRight: return Point2D(Court.width, 0)
        case .baselineLeft: return Point2D(0, Court.halfLength)
        case .baselineRight: return Point2D(Court.width, Court.halfLength)
        case .t: return Point2D(Court.width / 2, Court.serviceLine)
        case .serviceLeft: return Point2D(0, Court.serviceLine)
        case .serviceRight: return Point2D(Court.width, Court.serviceLine)
        case .netCenter: return Point2D(Court.width / 2, 0)
        }
    }

    /// True for the three points computed from the taps rather than tapped.
    public var isDerived: Bool { self == .serviceLeft || self == .serviceRight || self == .netCenter }
}

public enum CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidCameraName(String)
    case notConvex
    case tOutsideCourt
    case degenerateConstruction(CalibrationLandmark)
    case repeatedTaps(String, String)
    case collinearTaps([String])
    case homography(HomographyError)

    public var description: String {
        switch self {
        case .invalidCameraName(let name):
            return "camera name \"\(name)\" is not valid; use 1–64 letters, digits, '.', '_' or '-'"
        case .notConvex:
            return "the four corner taps do not form a convex quadrilateral in the order net-left, net-right, baseline-right, baseline-left; two of them are probably swapped"
        case .tOutsideCourt:
            return "the T tap lies outside the quadrilateral of the four corners; tap the centre of the service line"
        case .degenerateConstruction(let landmark):
            return "cannot derive the \(landmark.rawValue) point from the taps (parallel or coincident lines); tap the corners again"
        case .repeatedTaps(let a, let b):
            return "taps \(a) and \(b) are the same image point; tap each corner of the court separately"
        case .collinearTaps(let names):
            return "taps \(names.joined(separator: ", ")) lie on one line; tap the four corners of the half court"
        case .homography(let error):
            return "calibration: \(error.description)"
        }
    }
}

/// A saved calibration: what the adapter stores per site and camera.
public struct CameraCalibration: Sendable, Equatable, Codable {
    public static let currentFormat = "clubhouse.tennis.calibration/1"

    public var format: String
    public var camera: String
    public var taps: CalibrationTaps
    /// The eight pairs in `CalibrationLandmark.allCases` order (tapped, then derived).
    public var pairs: [PointPair]
    /// Image → court, normalized so that `H[2][2] == 1`.
    public var homography: Homography
    /// Court → image.
    public var inverse: Homography
    public var rmsError: Double
    public var maxError: Double
    /// Sign of the homogeneous weight over the court; image points with the other sign lie above the horizon.
    public var courtSide: Double

    /// Calibrates a camera from its five taps.
    public static func calibrate(_ taps: CalibrationTaps, camera: String = "default") throws(CalibrationError)
        -> CameraCalibration
    {
        guard isValidCameraName(camera) else { throw .invalidCameraName(camera) }
        for (i, p) in taps.points.enumerated() where !p.isFinite {
            throw .homography(.nonFinitePoint(pair: i, side: .image))
        }
        let corners = [taps.netLeft, taps.netRight, taps.baselineRight, taps.baselineLeft]
        do {
            try HomographyEstimator.validate(zip(corners, [CalibrationLandmark.netLeft, .netRight, .baselineRight, .baselineLeft])
                .map { PointPair(image: $0.0, court: $0.1.courtPoint) })
        } catch {
            let names = ["net_left", "net_right", "baseline_right", "baseline_left"]
            switch error {
            case .repeatedPoint(_, let a, let b): throw .repeatedTaps(names[a], names[b])
            case .collinearPoints(_, let pairs): throw .collinearTaps(pairs.map { names[$0] })
            default: throw .homography(error)
            }
        }
        guard isConvex(corners) else { throw .notConvex }
        guard isInside(taps.t, corners) else { throw .tOutsideCourt }
        let derived = try deriveLandmarks(taps)
        let images = [taps.netLeft, taps.netRight, taps.baselineLeft, taps.baselineRight, taps.t,
                      derived.serviceLeft, derived.serviceRight, derived.netCenter]
        let pairs = zip(images, CalibrationLandmark.allCases).map { PointPair(image: $0.0, court: $0.1.courtPoint) }
        let estimate: HomographyEstimate
        do {
            estimate = try HomographyEstimator.estimate(pairs)
        } catch {
            throw .homography(error)
        }
        let centre = estimate.inverse.apply(Point2D(Court.width / 2, Court.halfLength / 2)) ?? taps.t
        return CameraCalibration(
            format: currentFormat, camera: camera, taps: taps, pairs: pairs, homography: estimate.homography,
            inverse: estimate.inverse, rmsError: estimate.rmsError, maxError: estimate.maxError,
            courtSide: estimate.homography.weight(at: centre) < 0 ? -1 : 1)
    }

    public static func isValidCameraName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    /// Service-line ends and net centre by projective construction: the service line is the line
    /// through the T and the vanishing point of the net and baseline; the centre line is the line
    /// through the T and the vanishing point of the two sidelines. Works for parallel image lines
    /// too (their vanishing point is at infinity).
    static func deriveLandmarks(_ taps: CalibrationTaps) throws(CalibrationError)
        -> (serviceLeft: Point2D, serviceRight: Point2D, netCenter: Point2D)
    {
        let net = line(taps.netLeft, taps.netRight), baseline = line(taps.baselineLeft, taps.baselineRight)
        let left = line(taps.netLeft, taps.baselineLeft), right = line(taps.netRight, taps.baselineRight)
        let t = homogeneous(taps.t)
        let serviceLine = cross(t, cross(net, baseline))
        let centreLine = cross(t, cross(left, right))
        func point(_ h: [Double], _ landmark: CalibrationLandmark) throws(CalibrationError) -> Point2D {
            let scale = max(abs(h[0]), abs(h[1]), abs(h[2]))
            guard scale > 0, abs(h[2]) > 1e-12 * scale else { throw .degenerateConstruction(landmark) }
            let p = Point2D(h[0] / h[2], h[1] / h[2])
            guard p.isFinite else { throw .degenerateConstruction(landmark) }
            return p
        }
        return (try point(cross(serviceLine, left), .serviceLeft), try point(cross(serviceLine, right), .serviceRight),
                try point(cross(centreLine, net), .netCenter))
    }

    private static func homogeneous(_ p: Point2D) -> [Double] { [p.x, p.y, 1] }
    private static func line(_ a: Point2D, _ b: Point2D) -> [Double] { cross(homogeneous(a), homogeneous(b)) }
    private static func cross(_ a: [Double], _ b: [Double]) -> [Double] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    private static func turn(_ a: Point2D, _ b: Point2D, _ c: Point2D) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    static func isConvex(_ quad: [Point2D]) -> Bool {
        let turns = (0..<4).map { turn(quad[$0], quad[($0 + 1) % 4], quad[($0 + 2) % 4]) }
        return turns.allSatisfy { $0 > 0 } || turns.allSatisfy { $0 < 0 }
    }

    static func isInside(_ p: Point2D, _ quad: [Point2D]) -> Bool {
        let turns = (0..<4).map { turn(quad[$0], quad[($0 + 1) % 4], p) }
        return turns.allSatisfy { $0 > 0 } || turns.allSatisfy { $0 < 0 }
    }
}
