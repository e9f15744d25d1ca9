// Errors of the contour → heightfield step. Each renders as one line: where (file:line:column when
// the value came from a file), what is wrong and what to do.

/// Why traced contours and a boundary could not be turned into a heightfield. Nothing is produced.
public struct GreenProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Codable {
        /// The file is not valid JSON (including NaN/Infinity literals).
        case syntax
        /// A required member is missing or has the wrong type.
        case schema
        /// A coordinate, height or size is NaN or infinite.
        case notFinite
        /// A contour height beyond ±100,000 ft.
        case heightOutOfRange
        /// A contour with fewer than 2 points, or a boundary with fewer than 3.
        case tooFewPoints
        /// The boundary crosses or touches itself.
        case boundaryNotSimple
        /// A contour point lies outside the grid spanned by the green's width and height.
        case outsideGrid
        /// The green's width/height is not positive, or the boundary and contours files disagree on it.
        case greenSize
        /// The grid or the sample set exceeds a limit (memory and time stay bounded).
        case tooLarge
        /// The interpolation system cannot be solved reliably (e.g. all samples on one line).
        case illConditioned
        /// No grid node lies strictly inside the boundary.
        case emptyMask
    }

    public let kind: Kind
    /// `Hole_1_contours.json:14:9`, or nil when the input was built in code.
    public let location: String?
    public let message: String

    public init(_ kind: Kind, at location: String? = nil, _ message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    public var description: String {
        guard let location else { return message }
        return "\(location): \(message)"
    }
}
