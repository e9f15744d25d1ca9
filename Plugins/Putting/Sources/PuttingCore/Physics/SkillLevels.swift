// Named skill levels: stroke errors fitted to published make rates by distance, each with its source.
//
// The fit (Benchmarks/putting/calibrate.sh, which runs `clubhouse-bench putting-calibrate --fit`) rolls the
// physics model on a flat green at the data's green speed and integrates the make probability exactly as a best
// line does, at the data's distances, and chooses the numbers by least squares on the make rates (and, for the
// amateur levels, the share of misses left short). The tables below are the data it fits; the tests check the
// shipped numbers against them.
//
// - tour: Broadie's PGA Tour ShotLink make rates, 2016–2018, in the bins Gelman republished ("Model building and
//   expansion for golf putting", Stan case study, 2019: the golf_data_new table of mean distance, tries, makes).
//   Two numbers fit it within 1 point from 3 to 20 ft: aim ±1.46° and speed ±5.84 %. Tour greens run about 12 ft
//   on the stimpmeter, so the fit is at stimp 12. Berry's data (Berry 1995: professional golfers' putts by whole feet, as
//   in Gelman and Nolan 2002) are printed beside it as a check, not fitted.
// - scratch, 10, 20, 25: Shot Scope's handicap data (rounds tracked by Shot Scope users) as MyGolfSpy republished
//   them ("How putting miss patterns change from scratch to 25 handicap": make % from 0–3 ft and 6–9 ft and the share
//   of misses left short, per handicap; 9–12 ft for scratch and 25), and the 18–24 ft make rates of scratch and 25
//   from the same data (CalGolfNews, "Smart Putting for Lower Scores"). Club greens, speed not recorded: fitted at
//   stimp 10. Amateurs miss more putts from inside 3 ft than an aim error that fits 6–12 ft allows (the worn ring
//   around a club cup, strikes off the sweet spot), hence the sideways scatter at the hole, and leave more putts short
//   than long the higher the handicap, hence the pace bias. The data pin the speed spread only where they reach
//   18–24 ft (scratch and 25); 10 and 20 take it on the line between those two. No amateur level is given less aim or
//   speed spread than the tour level (the fit's lower bounds; scratch's speed spread sits on its bound).
// The plugin README lists the sources in full and what the model leaves out.

/// A published make rate: putts from `loFt`…`hiFt` (a bin, weighted as `weights` say), made at `rate`.
public struct PublishedMakeRate: Sendable, Equatable {
    public var loFt: Double
    public var hiFt: Double
    public var rate: Double
    /// Putts tried (nil when the source gives only the rate).
    public var tries: Int?
    /// Distances and weights standing for the bin (one distance: the bin's mean distance).
    public var points: [(distanceFt: Double, weight: Double)]

    public static func == (a: PublishedMakeRate, b: PublishedMakeRate) -> Bool {
        a.loFt == b.loFt && a.hiFt == b.hiFt && a.rate == b.rate && a.tries == b.tries
    }

    /// A bin at its mean distance, with its counts.
    static func mean(_ d: Double, tries: Int, made: Int) -> PublishedMakeRate {
        PublishedMakeRate(loFt: d, hiFt: d, rate: Double(made) / Double(tries), tries: tries, points: [(d, 1)])
    }

    /// A bin lo…hi ft given only as a rate: putts spread evenly over it (four distances), except the 0–3 ft bin,
    /// which holds tap-ins too: weighted as Broadie's tour bins below 3 ft are (0.28, 0.97 and 1.93 ft; 45,198,
    /// 183,020 and 169,503 putts), the only published split of such short putts.
    static func bin(_ lo: Double, _ hi: Double, _ rate: Double) -> PublishedMakeRate {
        let points: [(distanceFt: Double, weight: Double)] = lo == 0 && hi == 3
            ? [(0.28, 45198), (0.97, 183_020), (1.93, 169_503)]
            : (0..<4).map { (lo + (hi - lo) * (Double($0) + 0.5) / 4, 1) }
        return PublishedMakeRate(loFt: lo, hiFt: hi, rate: rate, tries: nil, points: points)
    }

    /// "2.92 ft" or "6–9 ft".
    public var label: String { loFt == hiFt ? "\(fixed(loFt, 2)) ft" : "\(fixed(loFt, 0))–\(fixed(hiFt, 0)) ft" }
}

/// A named golfer: the stroke errors fitted to one published data set.
public enum SkillLevel: String, Sendable, Codable, CaseIterable {
    case tour
    case scratch
    case ten = "10"
    case twenty = "20"
    case twentyFive = "25"

    /// The fitted stroke errors.
    public var errors: StrokeErrors {
        switch self {
        case .tour: return StrokeErrors(aimSDDeg: 1.459, speedSDFraction: 0.0584, skill: self)
        case .scratch: return StrokeErrors(aimSDDeg: 1.467, speedSDFraction: 0.0576, lateralSDIn: 0.623, paceBiasFraction: -0.0198, skill: self)
        case .ten: return StrokeErrors(aimSDDeg: 1.753, speedSDFraction: 0.0691, lateralSDIn: 0.683, paceBiasFraction: -0.0301, skill: self)
        case .twenty: return StrokeErrors(aimSDDeg: 1.791, speedSDFraction: 0.0806, lateralSDIn: 0.970, paceBiasFraction: -0.0448, skill: self)
        case .twentyFive: return StrokeErrors(aimSDDeg: 1.855, speedSDFraction: 0.0864, lateralSDIn: 1.043, paceBiasFraction: -0.0540, skill: self)
        }
    }

    /// "a PGA Tour player's", "a scratch golfer's", "a 10-handicapper's".
    public var possessive: String {
        switch self {
        case .tour: return "a PGA Tour player's"
        case .scratch: return "a scratch golfer's"
        default: return "a \(rawValue)-handicapper's"
        }
    }

    /// Where the numbers come from (the plugin README has the full references).
    public var source: String {
        switch self {
        case .tour:
            return "Broadie, PGA Tour ShotLink 2016–2018, as republished by Gelman (2019), golf_data_new table; fitted at stimp 12"
        default:
            return "Shot Scope handicap data as republished by MyGolfSpy and CalGolfNews (make % by distance, misses left short); fitted at stimp 10"
        }
    }

    /// The green speed the data were fitted at.
    public var dataStimpFt: Double { self == .tour ? 12 : 10 }

    /// The published make rates the level is fitted to.
    public var data: [PublishedMakeRate] {
        switch self {
        case .tour: return SkillLevel.broadieTour
        case .scratch: return [.bin(0, 3, 0.98), .bin(6, 9, 0.49), .bin(9, 12, 0.34), .bin(18, 24, 0.12)]
        case .ten: return [.bin(0, 3, 0.96), .bin(6, 9, 0.39)]
        case .twenty: return [.bin(0, 3, 0.90), .bin(6, 9, 0.33)]
        case .twentyFive: return [.bin(0, 3, 0.88), .bin(6, 9, 0.30), .bin(9, 12, 0.17), .bin(18, 24, 0.06)]
        }
    }

    /// The share of missed putts left short (nil: not published).
    public var missedShort: Double? {
        switch self {
        case .tour: return nil
        case .scratch: return 0.42
        case .ten: return 0.48
        case .twenty: return 0.55
        case .twentyFive: return 0.59
        }
    }

    /// How close the fit must come to each published rate (percentage points): the targets.
    public var targetPoints: Double { self == .tour ? 3 : 5 }

    /// Broadie's PGA Tour bins from 3 to 20 ft (mean distance, tries, makes), 2016–2018, from Gelman (2019).
    public static let broadieTour: [PublishedMakeRate] = [
        .mean(2.92, tries: 113_094, made: 108_953), .mean(3.93, tries: 73855, made: 64740), .mean(4.94, tries: 53659, made: 41106),
        .mean(5.94, tries: 42991, made: 28205), .mean(6.95, tries: 37050, made: 21334), .mean(7.95, tries: 33275, made: 16615),
        .mean(8.95, tries: 30836, made: 13503), .mean(9.95, tries: 28637, made: 11060), .mean(10.95, tries: 26239, made: 9032),
        .mean(11.95, tries: 24636, made: 7687), .mean(12.95, tries: 22876, made: 6432), .mean(14.43, tries: 41267, made: 9813),
        .mean(16.43, tries: 35712, made: 7196), .mean(18.44, tries: 31573, made: 5290), .mean(20.44, tries: 28280, made: 4086),
    ]

    /// Berry (1995): professional golfers' putts by whole feet 2–20 (tries, makes), as in Gelman and Nolan (2002).
    public static let berryPros: [PublishedMakeRate] = zip(2...20, [
        (1443, 1346), (694, 577), (455, 337), (353, 208), (272, 149), (256, 136), (240, 111), (217, 69), (200, 67), (237, 75),
        (202, 52), (192, 46), (174, 54), (167, 28), (201, 27), (195, 31), (191, 33), (147, 20), (152, 24),
    ]).map { PublishedMakeRate.mean(Double($0.0), tries: $0.1.0, made: $0.1.1) }

    /// Reads a `--skill` value or a config key's: "tour", "scratch", "10", "20", "25" (also "0" for scratch).
    public init(name: String) throws(PuttingError) {
        let n = name.lowercased()
        if let level = SkillLevel(rawValue: n) { self = level; return }
        if n == "0" { self = .scratch; return }
        throw .unknownSkill(name)
    }
}
