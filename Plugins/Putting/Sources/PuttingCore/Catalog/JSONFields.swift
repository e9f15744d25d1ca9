// Typed access to the fields of a parsed JSON file, each failure carrying the line and column of
// the offending value so messages can say `file:line:col: field problem`.
import ClubhouseJSON

/// A field that is missing or not what was expected, with where it is (or where it should be).
struct FieldProblem: Error, Sendable, Equatable {
    let line: Int
    let column: Int
    /// Dotted path of the field, e.g. `grid.nx` or `points_xz_ft[3].x`.
    let field: String
    /// What is wrong and what to do, e.g. `is missing: add it` or `must be a number`.
    let problem: String
}

/// The plausible values of a course folder's numbers, in feet: wide enough for any green, narrow enough
/// that grid indices, contour levels and pictures stay far from overflow (a file with 1e308 is refused
/// at import, naming file:line:column). Listed in the putting CHANGELOG.
enum PlausibleFeet {
    /// A point's x or z, a grid origin: the side limit of a traced green (TracedGreenSize.maxSideFt) either way.
    static let coordinate = -TracedGreenSize.maxSideFt...TracedGreenSize.maxSideFt
    /// A contour's height: as processing allows (TracedContours.maxHeightFt).
    static let height = -TracedContours.maxHeightFt...TracedContours.maxHeightFt
    /// A contour interval or a grid resolution.
    static let spacing = 0.001...1_000.0
    /// A green's width or height.
    static let side = 0.001...TracedGreenSize.maxSideFt
    /// An image's width or height in pixels.
    static let imagePixels = 1...100_000

    static func text(_ range: ClosedRange<Double>) -> String { "\(range.lowerBound)…\(range.upperBound)" }
}

/// A parsed JSON document read by JSON Pointer, with typed getters that throw `FieldProblem`.
struct JSONFields: Sendable {
    let document: JSONDocument

    init(text: String) throws(JSONParseError) {
        document = try JSONParser.parseDocument(text)
    }

    init(document: JSONDocument) { self.document = document }

    var root: JSONValue { document.value }

    /// The value at a pointer such as `/grid/nx`, or nil when absent.
    func value(_ pointer: String) -> JSONValue? {
        var current = document.value
        guard !pointer.isEmpty else { return current }
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = String(token)
            switch current {
            case .object(let object):
                guard let next = object[key] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(key), index >= 0, index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    func problem(_ pointer: String, _ message: String) -> FieldProblem {
        let location = document.location(of: pointer)
        return FieldProblem(line: location.line, column: location.column, field: Self.fieldName(pointer), problem: message)
    }

    /// `/grid/nx` → `grid.nx`, `/points/3/x` → `points[3].x`.
    static func fieldName(_ pointer: String) -> String {
        var name = ""
        for token in pointer.split(separator: "/", omittingEmptySubsequences: true) {
            if let index = Int(token) {
                name += "[\(index)]"
            } else {
                name += name.isEmpty ? String(token) : "." + token
            }
        }
        return name.isEmpty ? "document" : name
    }

    func required(_ pointer: String) throws(FieldProblem) -> JSONValue {
        guard let v = value(pointer) else { throw problem(pointer, "is missing: add it") }
        return v
    }

    func double(_ pointer: String) throws(FieldProblem) -> Double {
        let v = try required(pointer)
        guard let n = v.numberValue else { throw problem(pointer, "must be a number, found \(v.kindName)") }
        let d = n.double
        guard d.isFinite else { throw problem(pointer, "must be a finite number, found \(n.lexeme)") }
        return d
    }

    func optionalDouble(_ pointer: String) throws(FieldProblem) -> Double? {
        guard value(pointer) != nil else { return nil }
        return try double(pointer)
    }

    /// A number within `plausible` (in feet unless `unit` says otherwise): what a file can hold and no
    /// later arithmetic overflows on (`PlausibleFeet`).
    func double(_ pointer: String, plausible: ClosedRange<Double>, unit: String = "ft") throws(FieldProblem) -> Double {
        let d = try double(pointer)
        guard plausible.contains(d) else {
            throw problem(pointer, "is \(d) \(unit): outside the plausible \(PlausibleFeet.text(plausible)) \(unit); check the file's units")
        }
        return d
    }

    func optionalDouble(_ pointer: String, plausible: ClosedRange<Double>, unit: String = "ft") throws(FieldProblem) -> Double? {
        guard value(pointer) != nil else { return nil }
        return try double(pointer, plausible: plausible, unit: unit)
    }

    func int(_ pointer: String) throws(FieldProblem) -> Int {
        let v = try required(pointer)
        guard let n = v.numberValue else { throw problem(pointer, "must be an integer, found \(v.kindName)") }
        guard let i = n.int else { throw problem(pointer, "must be an integer, found \(n.lexeme)") }
        return i
    }

    func string(_ pointer: String) throws(FieldProblem) -> String {
        let v = try required(pointer)
        guard let s = v.stringValue else { throw problem(pointer, "must be a string, found \(v.kindName)") }
        return s
    }

    func array(_ pointer: String) throws(FieldProblem) -> [JSONValue] {
        let v = try required(pointer)
        guard let a = v.arrayValue else { throw problem(pointer, "must be an array, found \(v.kindName)") }
        return a
    }

    /// An array of `{"x": …, "z": …}` points.
    func points(_ pointer: String) throws(FieldProblem) -> [PointFt] {
        let elements = try array(pointer)
        var points: [PointFt] = []
        points.reserveCapacity(elements.count)
        for i in elements.indices {
            points.append(PointFt(x: try double("\(pointer)/\(i)/x", plausible: PlausibleFeet.coordinate),
                                  z: try double("\(pointer)/\(i)/z", plausible: PlausibleFeet.coordinate)))
        }
        return points
    }
}
