import ClubhouseJSON
import ClubhouseHashing

/// Which way a metric improves.
public enum MetricDirection: String, Codable, Sendable {
    case higherIsBetter = "higher_is_better"
    case lowerIsBetter = "lower_is_better"
}

/// A shot's grade: A best, C worst.
public enum Grade: String, Codable, Sendable, CaseIterable, Comparable {
    case a = "A", b = "B", c = "C"

    public static func < (lhs: Grade, rhs: Grade) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The A and B thresholds of one metric.
public struct MetricThreshold: Sendable, Equatable, Codable {
    public let metric: ShotMetric
    public let direction: MetricDirection
    /// `a_min` (higher is better) or `a_max` (lower is better).
    public let a: Double
    /// `b_min` or `b_max`; without it, anything short of A is C.
    public let b: Double?

    /// A if the value reaches `a`, else B if it reaches `b`, else C.
    public func grade(_ value: Double) -> Grade {
        switch direction {
        case .higherIsBetter:
            if value >= a { return .a }
            if let b, value >= b { return .b }
            return .c
        case .lowerIsBetter:
            if value <= a { return .a }
            if let b, value <= b { return .b }
            return .c
        }
    }
}

/// A KPI template (schema_version "1.0"): per-metric thresholds for one club, graded by the worst
/// metric. Its identity is the SHA-256 of its raid-v2 canonical JSON, computed once when it is
/// made from text; a template read back from storage carries the stored hash.
public struct KPITemplate: Sendable, Equatable {
    public static let schemaVersion = "1.0"
    public static let aggregationMethod = "worst_metric"

    /// Normalized club (`ClubName`).
    public let club: String
    /// The club as the template wrote it.
    public let clubAsWritten: String
    /// Sorted by metric name.
    public let thresholds: [MetricThreshold]
    public let name: String?
    /// The raid-v2 canonical JSON (what the hash is of).
    public let canonicalJSON: String
    /// Lowercase hex SHA-256 of `canonicalJSON`.
    public let hash: String
    /// Problems that don't stop the template from grading (an empty B band, say).
    public let warnings: [String]

    /// Worst metric grade; a missing value makes the shot C.
    public func grade(_ shot: ShotMeasurements) -> Grade {
        var worst = Grade.a
        for t in thresholds {
            guard let value = shot[t.metric] else { return .c }
            let g = t.grade(value)
            if g > worst {
                worst = g
                if worst == .c { return .c }
            }
        }
        return worst
    }

    /// Parses and validates template text and computes its hash. Errors name the file and the
    /// line:column of the offending value.
    public static func parse(_ bytes: [UInt8], sourceName: String) throws(PracticeError) -> KPITemplate {
        let text = String(decoding: bytes, as: UTF8.self)
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            throw .invalidInput("\(sourceName):\(error.location): \(error.message)")
        }
        let canonical: [UInt8]
        do {
            canonical = try CanonicalJSON.bytes(of: document.value, profile: .raidV2)
        } catch {
            throw .invalidInput("\(sourceName):\(document.location(of: error.pointer)): \(error.message)")
        }
        return try validated(document, canonical: canonical, hash: SHA256.hash(canonical).hex, sourceName: sourceName)
    }

    public static func parse(_ text: String, sourceName: String) throws(PracticeError) -> KPITemplate {
        try parse(Array(text.utf8), sourceName: sourceName)
    }

    /// A template as stored: its canonical JSON and the hash computed when it was inserted. The
    /// hash is trusted, never recomputed (a read must not depend on canonicalization).
    public static func stored(canonicalJSON: String, hash: String) throws(PracticeError) -> KPITemplate {
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(canonicalJSON)
        } catch {
            throw .storage("stored template \(hash) is not valid JSON (\(error)); the database is damaged")
        }
        return try validated(document, canonical: Array(canonicalJSON.utf8), hash: hash, sourceName: "template \(hash)")
    }

    private static func validated(_ document: JSONDocument, canonical: [UInt8], hash: String,
                                  sourceName: String) throws(PracticeError) -> KPITemplate {
        var checker = TemplateChecker(document: document, sourceName: sourceName)
        let parts = try checker.check()
        return KPITemplate(club: ClubName.normalize(parts.club), clubAsWritten: parts.club, thresholds: parts.thresholds,
                           name: parts.name, canonicalJSON: String(decoding: canonical, as: UTF8.self), hash: hash,
                           warnings: checker.warnings)
    }
}

/// Walks a template document and says precisely what is wrong with it.
private struct TemplateChecker {
    let document: JSONDocument
    let sourceName: String
    var warnings: [String] = []

    static let topLevelKeys = ["schema_version", "club", "aggregation_method", "metrics", "name", "description"]

    init(document: JSONDocument, sourceName: String) {
        self.document = document
        self.sourceName = sourceName
    }

    func fail(_ pointer: String, _ message: String) -> PracticeError {
        .invalidInput("\(sourceName):\(document.location(of: pointer)): \(message)")
    }

    mutating func check() throws(PracticeError) -> (club: String, thresholds: [MetricThreshold], name: String?) {
        guard let root = document.value.objectValue else {
            throw fail("", "a KPI template is a JSON object; found \(document.value.kindName)")
        }
        for key in root.keys where !Self.topLevelKeys.contains(key) {
            throw fail("/" + JSONDocument.escapePointerToken(key), "unknown key \"\(key)\"; a template has schema_version, club, "
                + "aggregation_method and metrics (name and description are optional)")
        }
        guard let version = root["schema_version"] else {
            throw fail("", "schema_version is missing; add \"schema_version\": \"\(KPITemplate.schemaVersion)\"")
        }
        guard version.stringValue == KPITemplate.schemaVersion else {
            throw fail("/schema_version", "schema_version \(version) is not supported; this kernel reads \"\(KPITemplate.schemaVersion)\"")
        }
        guard let clubValue = root["club"] else { throw fail("", "club is missing; add \"club\": \"7i\" (the club it grades)") }
        guard let club = clubValue.stringValue, !ClubName.normalize(club).isEmpty else {
            throw fail("/club", "club must be a club name such as \"7i\"; found \(clubValue.kindName == "a string" ? "an empty name" : clubValue.kindName)")
        }
        guard let method = root["aggregation_method"] else {
            throw fail("", "aggregation_method is missing; add \"aggregation_method\": \"\(KPITemplate.aggregationMethod)\"")
        }
        guard method.stringValue == KPITemplate.aggregationMethod else {
            throw fail("/aggregation_method", "aggregation_method \(method) is not supported; the only method is \"\(KPITemplate.aggregationMethod)\"")
        }
        var name: String? = nil
        for key in ["name", "description"] {
            if let v = root[key] {
                guard let s = v.stringValue else { throw fail("/" + key, "\(key) must be a string; found \(v.kindName)") }
                if key == "name" { name = s }
            }
        }
        guard let metricsValue = root["metrics"] else {
            throw fail("", "metrics is missing; add \"metrics\": {\"ball_speed\": {\"a_min\": …, \"b_min\": …}}")
        }
        guard let metrics = metricsValue.objectValue else {
            throw fail("/metrics", "metrics must be an object of metric name → thresholds; found \(metricsValue.kindName)")
        }
        guard !metrics.isEmpty else { throw fail("/metrics", "metrics is empty; grade at least one metric") }
        let known = ShotMetric.gradeable.map(\.rawValue)
        var thresholds: [MetricThreshold] = []
        for (key, value) in metrics {
            let pointer = "/metrics/" + JSONDocument.escapePointerToken(key)
            guard let metric = ShotMetric(rawValue: key), ShotMetric.gradeable.contains(metric) else {
                throw fail(pointer, "unknown metric \"\(key)\"; use \(known.joined(separator: ", "))")
            }
            thresholds.append(try threshold(metric, value, pointer: pointer))
        }
        thresholds.sort { $0.metric.rawValue < $1.metric.rawValue }
        return (club, thresholds, name)
    }

    mutating func threshold(_ metric: ShotMetric, _ value: JSONValue, pointer: String) throws(PracticeError) -> MetricThreshold {
        let label = "metrics.\(metric.rawValue)"
        guard let object = value.objectValue else {
            throw fail(pointer, "\(label) must be an object with a_min and b_min (or a_max and b_max); found \(value.kindName)")
        }
        var direction = MetricDirection.higherIsBetter
        if let d = object["direction"] {
            guard let s = d.stringValue, let parsed = MetricDirection(rawValue: s) else {
                throw fail(pointer + "/direction", "\(label).direction is \(d); use \"higher_is_better\" or \"lower_is_better\"")
            }
            direction = parsed
        }
        let (aKey, bKey, otherA, otherB) = direction == .higherIsBetter
            ? ("a_min", "b_min", "a_max", "b_max") : ("a_max", "b_max", "a_min", "b_min")
        for key in object.keys where ![aKey, bKey, "direction"].contains(key) {
            if key == otherA || key == otherB {
                throw fail(pointer + "/" + key, "\(label) has \(key), but \(direction.rawValue) thresholds are \(aKey) and \(bKey)")
            }
            throw fail(pointer + "/" + JSONDocument.escapePointerToken(key),
                       "\(label) has unknown key \"\(key)\"; use direction, \(aKey) and \(bKey)")
        }
        func number(_ key: String) throws(PracticeError) -> Double? {
            guard let v = object[key] else { return nil }
            guard let n = v.numberValue else {
                throw fail(pointer + "/" + key, "\(label).\(key) must be a number; found \(v.kindName)")
            }
            let d = n.double
            guard d.isFinite else { throw fail(pointer + "/" + key, "\(label).\(key) \(n.lexeme) is out of range") }
            return d
        }
        guard let a = try number(aKey) else {
            throw fail(pointer, "\(label) needs \(aKey) (the A threshold of a \(direction.rawValue) metric)")
        }
        let b = try number(bKey)
        if let b {
            let empty = direction == .higherIsBetter ? b >= a : b <= a
            if empty {
                warnings.append("\(label): \(bKey) \(Self.format(b)) is not \(direction == .higherIsBetter ? "below" : "above") "
                    + "\(aKey) \(Self.format(a)), so no shot can grade B on this metric")
            }
        }
        return MetricThreshold(metric: metric, direction: direction, a: a, b: b)
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
