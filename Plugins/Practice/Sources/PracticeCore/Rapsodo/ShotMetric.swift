import ClubhouseToolkit

/// A launch-monitor measurement of one shot, with the MLM2PRO column it comes from and the unit
/// the kernel stores it in.
public enum ShotMetric: String, CaseIterable, Codable, Sendable {
    case carry
    case total
    case ballSpeed = "ball_speed"
    case launchAngle = "launch_angle"
    case launchDirection = "launch_direction"
    case apex
    case sideCarry = "side_carry"
    case clubSpeed = "club_speed"
    case smashFactor = "smash_factor"
    case descentAngle = "descent_angle"
    case attackAngle = "attack_angle"
    case clubPath = "club_path"
    case spinRate = "spin_rate"
    case spinAxis = "spin_axis"

    /// The metrics a KPI template may grade.
    public static let gradeable: [ShotMetric] = [.ballSpeed, .smashFactor, .spinRate, .descentAngle, .carry]

    /// The column header in an MLM2PRO export.
    public var columnName: String {
        switch self {
        case .carry: return "Carry Distance"
        case .total: return "Total Distance"
        case .ballSpeed: return "Ball Speed"
        case .launchAngle: return "Launch Angle"
        case .launchDirection: return "Launch Direction"
        case .apex: return "Apex"
        case .sideCarry: return "Side Carry"
        case .clubSpeed: return "Club Speed"
        case .smashFactor: return "Smash Factor"
        case .descentAngle: return "Descent Angle"
        case .attackAngle: return "Attack Angle"
        case .clubPath: return "Club Path"
        case .spinRate: return "Spin Rate"
        case .spinAxis: return "Spin Axis"
        }
    }

    public var unit: MeasurementUnit {
        switch self {
        case .carry, .total, .sideCarry: return .yards
        case .ballSpeed, .clubSpeed: return .mph
        case .apex: return .feet
        case .launchAngle, .launchDirection, .descentAngle, .attackAngle, .clubPath, .spinAxis: return .degrees
        case .spinRate: return .rpm
        case .smashFactor: return .ratio
        }
    }

    /// The column of the `shots` table holding this metric.
    public var sqlColumn: String {
        switch unit {
        case .yards: return rawValue + "_yd"
        case .mph: return rawValue + "_mph"
        case .feet: return rawValue + "_ft"
        case .degrees: return rawValue + "_deg"
        case .rpm: return rawValue + "_rpm"
        case .ratio: return rawValue
        }
    }

    /// The values a launch monitor can really report, in the kernel's unit (`unit`): an import refuses
    /// (or with --skip-bad-rows leaves out) a row with a value outside, and a stored value outside is
    /// left out of what is computed from stored shots. Wide enough for any real shot (the longest
    /// drives carry under 450 yd; ball speeds stay under 230 mph; wedges spin under 13 000 rpm);
    /// narrow enough that no arithmetic on them overflows. The table is in Plugins/Practice/README.md.
    public var plausibleRange: ClosedRange<Double> {
        switch self {
        case .carry: return 0...500
        case .total: return 0...600
        case .sideCarry: return -300...300
        case .ballSpeed: return 0...250
        case .clubSpeed: return 0...200
        case .apex: return 0...600
        case .launchAngle, .descentAngle, .attackAngle, .launchDirection, .clubPath, .spinAxis: return -90...90
        case .spinRate: return 0...20_000
        case .smashFactor: return 0...2
        }
    }

    /// Why `value` (in the kernel's unit) is not a plausible value of this metric, or nil when it is.
    public func implausibility(_ value: Double) -> String? {
        if plausibleRange.contains(value) { return nil }
        let unit = self.unit.label.isEmpty ? "" : (self.unit == .degrees ? "" : " ") + self.unit.label
        return "\(columnName) is \(value)\(unit), outside the plausible \(DecimalText.fixed(plausibleRange.lowerBound, 0))"
            + " to \(DecimalText.fixed(plausibleRange.upperBound, 0))\(unit)"
    }

    /// Digits shown in text output.
    public var displayDecimals: Int {
        switch self {
        case .smashFactor: return 2
        case .spinRate: return 0
        default: return 1
        }
    }
}

/// The units the kernel stores (MLM2PRO's own): yards, mph, feet, degrees, rpm.
public enum MeasurementUnit: String, Codable, Sendable {
    case yards, mph, feet, degrees, rpm, ratio

    /// The unit's short label in text output.
    public var label: String {
        switch self {
        case .yards: return "yd"
        case .mph: return "mph"
        case .feet: return "ft"
        case .degrees: return "°"
        case .rpm: return "rpm"
        case .ratio: return ""
        }
    }

    /// The factor converting a value written in `spelling` (as found in a column header such as
    /// `Carry Distance (m)`) to this unit, or nil when the spelling is not a unit of this quantity.
    func factor(from spelling: String) -> Double? {
        let s = spelling.lowercased().filter { !$0.isWhitespace }
        switch self {
        case .yards:
            if ["yd", "yds", "yard", "yards"].contains(s) { return 1 }
            if ["m", "meter", "meters", "metre", "metres"].contains(s) { return 1 / 0.9144 }
        case .feet:
            if ["ft", "feet", "foot"].contains(s) { return 1 }
            if ["m", "meter", "meters", "metre", "metres"].contains(s) { return 1 / 0.3048 }
            if ["yd", "yds", "yard", "yards"].contains(s) { return 3 }
        case .mph:
            if ["mph", "mi/h"].contains(s) { return 1 }
            if ["km/h", "kmh", "kph"].contains(s) { return 1 / 1.609344 }
            if ["m/s", "mps"].contains(s) { return 3600 / 1609.344 }
        case .degrees:
            if ["deg", "degree", "degrees", "°"].contains(s) { return 1 }
        case .rpm:
            if ["rpm"].contains(s) { return 1 }
        case .ratio:
            if s.isEmpty || s == "x" { return 1 }
        }
        return nil
    }
}

/// One shot's measurements in the kernel's units; nil where the export had no value. Stored
/// inline (no heap allocation per shot).
public struct ShotMeasurements: Sendable, Equatable, Codable {
    private var values: (Double, Double, Double, Double, Double, Double, Double,
                         Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// Bit `metric.index` is set when the metric has a value.
    private var present: UInt16 = 0

    public init() {}

    public init(_ pairs: [ShotMetric: Double]) {
        self.init()
        for (metric, value) in pairs { self[metric] = value }
    }

    public subscript(metric: ShotMetric) -> Double? {
        get {
            let i = metric.index
            guard present & (1 << i) != 0 else { return nil }
            return withUnsafeBytes(of: values) { $0.load(fromByteOffset: i * 8, as: Double.self) }
        }
        set {
            let i = metric.index
            if let newValue {
                withUnsafeMutableBytes(of: &values) { $0.storeBytes(of: newValue, toByteOffset: i * 8, as: Double.self) }
                present |= 1 << i
            } else {
                present &= ~(1 << i)
            }
        }
    }

    /// Sets a value as read from storage: SQLite keeps ±∞ (a row another program wrote), which is not a
    /// measurement and which JSON cannot say, so it reads as no value.
    public subscript(stored metric: ShotMetric) -> Double? {
        get { self[metric] }
        set { self[metric] = newValue.flatMap { $0.isFinite ? $0 : nil } }
    }

    /// These measurements without the values outside their metric's plausible range (NaN and ±∞
    /// included), and the metrics left out. What an older version stored unchecked reads safely.
    public var plausible: (measurements: ShotMeasurements, leftOut: [ShotMetric]) {
        var kept = self
        var leftOut: [ShotMetric] = []
        for metric in ShotMetric.allCases {
            if let v = self[metric], !metric.plausibleRange.contains(v) {
                kept[metric] = nil
                leftOut.append(metric)
            }
        }
        return (kept, leftOut)
    }

    public static func == (lhs: ShotMeasurements, rhs: ShotMeasurements) -> Bool {
        ShotMetric.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ShotMetric.CodingKey.self)
        for metric in ShotMetric.allCases { try c.encodeIfPresent(self[metric], forKey: .init(metric)) }
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: ShotMetric.CodingKey.self)
        for metric in ShotMetric.allCases { self[metric] = try c.decodeIfPresent(Double.self, forKey: .init(metric)) }
    }
}

extension ShotMetric {
    /// Position in `allCases`.
    var index: Int {
        switch self {
        case .carry: return 0
        case .total: return 1
        case .ballSpeed: return 2
        case .launchAngle: return 3
        case .launchDirection: return 4
        case .apex: return 5
        case .sideCarry: return 6
        case .clubSpeed: return 7
        case .smashFactor: return 8
        case .descentAngle: return 9
        case .attackAngle: return 10
        case .clubPath: return 11
        case .spinRate: return 12
        case .spinAxis: return 13
        }
    }

    struct CodingKey: Swift.CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ metric: ShotMetric) { stringValue = metric.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
