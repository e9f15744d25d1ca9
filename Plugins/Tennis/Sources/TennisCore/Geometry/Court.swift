// The player's half of a singles court, its 16 target zones, and the clamping of projected positions.

/// Court frame in metres: origin at the net on the player's left, x across the court (singles width),
/// y from the net toward the baseline.
public enum Court {
    /// Singles width (ITF): 8.23 m.
    public static let width = 8.23
    /// Net to baseline (half of 23.77 m).
    public static let halfLength = 11.885
    /// Net to service line.
    public static let serviceLine = 6.40
    /// Projected positions are clamped to x in [−1, width + 1] and y in [−1, halfLength + 3].
    public static let clampX: ClosedRange<Double> = -1.0...(width + 1)
    public static let clampY: ClosedRange<Double> = -1.0...(halfLength + 3)

    /// Column boundaries: 4 columns of equal width, `k · width / 4` (2.0575, 4.115, 6.1725 m).
    public static let columnBounds: [Double] = [0, 2.0575, 4.115, 6.1725, 8.23]
    /// Row boundaries: 20 % of the half length (2.377), the service line (6.40), 70 % (8.3195), the baseline.
    public static let rowBounds: [Double] = [0, 2.377, 6.40, 8.3195, 11.885]

    /// Clamps a projected position to the area around the half court that the camera can see.
    public static func clamp(_ p: Point2D) -> Point2D {
        Point2D(min(max(p.x, clampX.lowerBound), clampX.upperBound), min(max(p.y, clampY.lowerBound), clampY.upperBound))
    }

    public static func contains(_ p: Point2D) -> Bool {
        p.x >= 0 && p.x < width && p.y >= 0 && p.y < halfLength
    }
}

/// The 16 target zones: `zone = row · 4 + column`, row 0 at the net, column 0 on the left.
/// Every interval is half-open `[lo, hi)`, so a point on a boundary belongs to the zone beyond it,
/// and points on the far sideline or the baseline are outside.
public enum CourtZones {
    public static let count = 16

    /// The zone that contains `p`, or nil when `p` is outside the half court (or not finite).
    public static func zone(at p: Point2D) -> Int? {
        guard let column = interval(p.x, Court.columnBounds), let row = interval(p.y, Court.rowBounds) else { return nil }
        return row * 4 + column
    }

    /// The rectangle of a zone: `x` in `[minX, maxX)`, `y` in `[minY, maxY)`.
    public static func bounds(of zone: Int) -> (minX: Double, maxX: Double, minY: Double, maxY: Double)? {
        guard (0..<count).contains(zone) else { return nil }
        let row = zone / 4, column = zone % 4
        return (Court.columnBounds[column], Court.columnBounds[column + 1], Court.rowBounds[row], Court.rowBounds[row + 1])
    }

    /// The centre of a zone.
    public static func center(of zone: Int) -> Point2D? {
        bounds(of: zone).map { Point2D(($0.minX + $0.maxX) / 2, ($0.minY + $0.maxY) / 2) }
    }

    private static func interval(_ value: Double, _ bounds: [Double]) -> Int? {
        guard value >= bounds[0], value < bounds[bounds.count - 1] else { return nil }
        var k = 0
        while value >= bounds[k + 1] { k += 1 }
        return k
    }
}
