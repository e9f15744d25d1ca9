/// How much a club sub-session's numbers can be trusted, by its shot count.
public enum Validity: String, Codable, Sendable, CaseIterable, Comparable {
    /// Fewer than 5 shots: no A% at all.
    case invalid
    /// 5 to 14 shots: valid, with a low-sample warning.
    case validLowSample = "valid_low_sample"
    /// 15 shots or more.
    case valid

    public static let minimumShots = 5
    public static let fullSampleShots = 15

    public init(shotCount: Int) {
        if shotCount < Self.minimumShots { self = .invalid }
        else if shotCount < Self.fullSampleShots { self = .validLowSample }
        else { self = .valid }
    }

    var rank: Int {
        switch self {
        case .invalid: return 0
        case .validLowSample: return 1
        case .valid: return 2
        }
    }

    public static func < (lhs: Validity, rhs: Validity) -> Bool { lhs.rank < rhs.rank }

    /// Parses a `--min-validity` value: `invalid` (everything), `low_sample`/`valid_low_sample`, `valid`.
    public init(option: String) throws(PracticeError) {
        switch option.lowercased().replacingOccurrences(of: "-", with: "_") {
        case "invalid", "any", "all": self = .invalid
        case "low_sample", "valid_low_sample", "low": self = .validLowSample
        case "valid": self = .valid
        default: throw .usage("unknown validity '\(option)'; use invalid, low_sample or valid")
        }
    }
}

/// Mean of each metric over some shots; a metric no shot measured is absent.
public struct MetricAverages: Sendable, Equatable, Codable {
    public let shotCount: Int
    public let means: [ShotMetric: Double]

    public init(_ shots: [ShotMeasurements]) {
        shotCount = shots.count
        var sums = [Double](repeating: 0, count: ShotMetric.allCases.count)
        var counts = [Int](repeating: 0, count: ShotMetric.allCases.count)
        for shot in shots {
            for metric in ShotMetric.allCases {
                if let v = shot[metric] {
                    sums[metric.index] += v
                    counts[metric.index] += 1
                }
            }
        }
        var means: [ShotMetric: Double] = [:]
        for metric in ShotMetric.allCases where counts[metric.index] > 0 {
            means[metric] = sums[metric.index] / Double(counts[metric.index])
        }
        self.means = means
    }

    public init(shotCount: Int, means: [ShotMetric: Double]) {
        self.shotCount = shotCount
        self.means = means
    }

    enum CodingKeys: String, CodingKey { case shotCount = "shot_count", means }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(shotCount, forKey: .shotCount)
        var m = c.nestedContainer(keyedBy: ShotMetric.CodingKey.self, forKey: .means)
        for metric in ShotMetric.allCases { try m.encodeIfPresent(means[metric], forKey: .init(metric)) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        shotCount = try c.decode(Int.self, forKey: .shotCount)
        let m = try c.nestedContainer(keyedBy: ShotMetric.CodingKey.self, forKey: .means)
        var means: [ShotMetric: Double] = [:]
        for metric in ShotMetric.allCases { means[metric] = try m.decodeIfPresent(Double.self, forKey: .init(metric)) }
        self.means = means
    }
}

/// One club's shots of one session, graded by one template: the kernel's unit of analysis.
public struct SubsessionAnalysis: Sendable, Equatable, Codable {
    public let club: String
    /// The template the grades come from; nil when the club had no template (then no grades).
    public let templateHash: String?
    public let shotCount: Int
    public let aCount: Int?
    public let bCount: Int?
    public let cCount: Int?
    public let validity: Validity
    /// a / shots · 100; nil when invalid or ungraded.
    public let aPercent: Double?
    /// Averages over every shot.
    public let averagesAll: MetricAverages
    /// Averages over the A shots only; nil when ungraded.
    public let averagesAOnly: MetricAverages?

    enum CodingKeys: String, CodingKey {
        case club, templateHash = "template_hash", shotCount = "shot_count", aCount = "a_count", bCount = "b_count"
        case cCount = "c_count", validity, aPercent = "a_percent", averagesAll = "averages_all_shots"
        case averagesAOnly = "averages_a_only"
    }

    /// Grades `shots` (all of one club) with `template`, or only counts and averages them without one.
    public static func analyze(club: String, shots: [ShotMeasurements], template: KPITemplate?) -> (SubsessionAnalysis, [Grade]?) {
        let validity = Validity(shotCount: shots.count)
        guard let template else {
            return (SubsessionAnalysis(club: club, templateHash: nil, shotCount: shots.count, aCount: nil, bCount: nil,
                                       cCount: nil, validity: validity, aPercent: nil, averagesAll: MetricAverages(shots),
                                       averagesAOnly: nil), nil)
        }
        let grades = shots.map(template.grade)
        var counts = [Grade.a: 0, .b: 0, .c: 0]
        for g in grades { counts[g, default: 0] += 1 }
        let a = counts[.a] ?? 0
        let aShots = zip(shots, grades).filter { $0.1 == .a }.map(\.0)
        let aPercent = validity == .invalid || shots.isEmpty ? nil : Double(a) / Double(shots.count) * 100
        return (SubsessionAnalysis(club: club, templateHash: template.hash, shotCount: shots.count, aCount: a,
                                   bCount: counts[.b] ?? 0, cCount: counts[.c] ?? 0, validity: validity, aPercent: aPercent,
                                   averagesAll: MetricAverages(shots), averagesAOnly: MetricAverages(aShots)), grades)
    }

    public init(club: String, templateHash: String?, shotCount: Int, aCount: Int?, bCount: Int?, cCount: Int?,
                validity: Validity, aPercent: Double?, averagesAll: MetricAverages, averagesAOnly: MetricAverages?) {
        self.club = club
        self.templateHash = templateHash
        self.shotCount = shotCount
        self.aCount = aCount
        self.bCount = bCount
        self.cCount = cCount
        self.validity = validity
        self.aPercent = aPercent
        self.averagesAll = averagesAll
        self.averagesAOnly = averagesAOnly
    }
}
