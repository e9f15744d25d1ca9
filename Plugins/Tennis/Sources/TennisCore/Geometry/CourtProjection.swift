// Image → court projection of single points (feet positions) with the clamping rule.

public enum ProjectionError: Error, Sendable, Equatable, CustomStringConvertible {
    case nonFinite(Point2D)
    case beyondHorizon(Point2D)

    public var description: String {
        switch self {
        case .nonFinite(let p):
            return "image point \(p) is not a finite number; give real pixel coordinates"
        case .beyondHorizon(let p):
            return "image point \(p) lies on or above the horizon of the court plane, so it cannot be on the court; use the feet point of a detection"
        }
    }
}

/// Where an image point lands on the court.
public struct CourtLocation: Sendable, Equatable, Codable {
    public var image: Point2D
    /// The exact projection, in metres.
    public var court: Point2D
    /// The projection clamped to x in [−1, 9.23] and y in [−1, 14.885].
    public var clamped: Point2D
    public var wasClamped: Bool
    /// The zone of the clamped position (nil outside the half court).
    public var zone: Int?
}

extension CameraCalibration {
    /// Projects an image point (pixels) to the court and clamps it.
    public func locate(_ image: Point2D) throws(ProjectionError) -> CourtLocation {
        guard image.isFinite else { throw .nonFinite(image) }
        let w = homography.weight(at: image)
        // A point on the other side of the horizon maps to a finite but meaningless court point.
        guard w * courtSide > 0, let court = homography.apply(image) else { throw .beyondHorizon(image) }
        let clamped = Court.clamp(court)
        return CourtLocation(image: image, court: court, clamped: clamped, wasClamped: clamped != court,
                             zone: CourtZones.zone(at: clamped))
    }
}
