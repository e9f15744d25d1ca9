// Handicap allowances per format: the Appendix C recommendation, overridden per site (plugin config
// `allowance_<format>`, e.g. `allowance_stableford = 90`) and per round (`round start --allowance`).

/// The allowance of each format at a site.
public struct AllowanceTable: Sendable, Equatable {
    public private(set) var percent: [PlayFormat: Int]

    /// Appendix C's recommendations.
    public static let appendixC = AllowanceTable(uncheckedOverrides: [:])

    init(uncheckedOverrides: [PlayFormat: Int]) {
        var table = [PlayFormat: Int](minimumCapacity: PlayFormat.allCases.count)
        for format in PlayFormat.allCases { table[format] = uncheckedOverrides[format] ?? format.allowancePercent }
        percent = table
    }

    /// The site's table: `config` maps a format's config key to its percent (0–100).
    public init(config: [String: Int]) throws(ScorecardError) {
        var overrides: [PlayFormat: Int] = [:]
        for format in PlayFormat.allCases {
            guard let value = config[format.configKey] else { continue }
            guard Self.range.contains(value) else { throw .allowanceOutOfRange(source: "config key '\(format.configKey)'", argument: nil, value: "\(value)") }
            overrides[format] = value
        }
        self.init(uncheckedOverrides: overrides)
    }

    public func percent(for format: PlayFormat) -> Int { percent[format] ?? format.allowancePercent }

    /// An allowance is a share of the Course Handicap: 0 % (gross) to 100 %.
    public static let range = 0...100
}
