import ClubhouseToolkit

/// Writes realistic Rapsodo MLM2PRO exports from a seed: per-club distributions shaped like a real
/// 7-iron session (club speed 82.3 ± 1.4 mph, smash 1.28 ± 0.05, ball speed 105.7 ± 4.6 mph,
/// carry 152 ± 8.4 yd, spin 4600 ± 500 rpm, descent 45.6 ± 4.5°, with the correlations seen
/// there: smash drives ball speed and carry, launch drives apex and descent, start direction and
/// spin axis drive side carry), occasional mishits, and the export's layout (title row, blank
/// row, quoted header, per-club Average and Std. Dev. footers).
public struct SessionGenerator {
    /// One club's typical numbers for an amateur with a 7-iron like the real export's.
    public struct ClubProfile: Sendable {
        public let club: String
        let clubSpeed: Double, smash: Double, launch: Double, spin: Double, descent: Double
        let carryPerMph: Double, apex: Double, roll: Double

        /// The clubs the generator knows, longest first.
        public static let all: [ClubProfile] = [
            ClubProfile(club: "Dr", clubSpeed: 95, smash: 1.44, launch: 13, spin: 2700, descent: 34, carryPerMph: 1.62, apex: 85, roll: 20),
            ClubProfile(club: "3w", clubSpeed: 90, smash: 1.42, launch: 12.5, spin: 3700, descent: 37, carryPerMph: 1.55, apex: 80, roll: 14),
            ClubProfile(club: "5i", clubSpeed: 85, smash: 1.34, launch: 16.5, spin: 4300, descent: 42, carryPerMph: 1.49, apex: 80, roll: 9),
            ClubProfile(club: "6i", clubSpeed: 84, smash: 1.31, launch: 19, spin: 4700, descent: 44, carryPerMph: 1.46, apex: 84, roll: 7.5),
            ClubProfile(club: "7i", clubSpeed: 82.3, smash: 1.285, launch: 21.5, spin: 4600, descent: 45.6, carryPerMph: 1.438, apex: 87.5, roll: 6.3),
            ClubProfile(club: "8i", clubSpeed: 80, smash: 1.26, launch: 24, spin: 5600, descent: 47, carryPerMph: 1.38, apex: 88, roll: 5),
            ClubProfile(club: "9i", clubSpeed: 78, smash: 1.23, launch: 26.5, spin: 6500, descent: 48, carryPerMph: 1.33, apex: 88, roll: 4),
            ClubProfile(club: "PW", clubSpeed: 75, smash: 1.2, launch: 29, spin: 7400, descent: 49, carryPerMph: 1.26, apex: 86, roll: 3),
        ]

        public static func named(_ club: String) -> ClubProfile? {
            let key = ClubName.normalize(club)
            return all.first { ClubName.normalize($0.club) == key }
        }
    }

    public struct Configuration: Sendable {
        public var seed: UInt64
        /// Clubs and shot counts, hit in this order (one block per club, as the app exports them).
        public var clubs: [(club: String, shots: Int)]
        public var sessionName: String
        /// Local date and time of the session (year, month, day, hour, minute).
        public var date: (year: Int, month: Int, day: Int, hour: Int, minute: Int)
        /// Shifts strike quality: 0 is the real export's player, +1 a clearly better day.
        public var form: Double
        /// Write the title row and the blank row after it.
        public var titleRow: Bool
        /// Write Average and Std. Dev. rows after each club block.
        public var footers: Bool
        /// Repeat the header before every club block, as some exports do.
        public var repeatHeaders: Bool

        public init(seed: UInt64, clubs: [(club: String, shots: Int)], sessionName: String = "Generated Session",
                    date: (year: Int, month: Int, day: Int, hour: Int, minute: Int) = (2026, 1, 27, 16, 30),
                    form: Double = 0, titleRow: Bool = true, footers: Bool = true, repeatHeaders: Bool = false) {
            self.seed = seed
            self.clubs = clubs
            self.sessionName = sessionName
            self.date = date
            self.form = form
            self.titleRow = titleRow
            self.footers = footers
            self.repeatHeaders = repeatHeaders
        }
    }

    static let header = ["Club Type", "Club Brand", "Club Model", "Carry Distance", "Total Distance", "Ball Speed",
                         "Launch Angle", "Launch Direction", "Apex", "Side Carry", "Club Speed", "Smash Factor",
                         "Descent Angle", "Attack Angle", "Club Path", "Club Data Est Type", "Spin Rate", "Spin Axis"]

    /// The export as CSV bytes.
    public static func csv(_ configuration: Configuration) -> [UInt8] {
        var random = SplitMix64(seed: configuration.seed)
        var out = ""
        out.reserveCapacity(configuration.clubs.reduce(0) { $0 + $1.shots } * 120 + 1024)
        let headerLine = header.map { "\"\($0)\"" }.joined(separator: ",") + "\n"
        if configuration.titleRow {
            let d = configuration.date
            let hour12 = d.hour % 12 == 0 ? 12 : d.hour % 12
            let stamp = "\(pad2(d.month))/\(pad2(d.day))/\(d.year) \(hour12):\(pad2(d.minute)) \(d.hour < 12 ? "AM" : "PM")"
            out += "\"Rapsodo MLM2PRO: \(configuration.sessionName) - \(stamp)\"" + String(repeating: ",", count: header.count - 1) + "\n\n"
        }
        out += headerLine
        for (blockIndex, block) in configuration.clubs.enumerated() {
            let profile = ClubProfile.named(block.club) ?? ClubProfile.all[4]
            if configuration.repeatHeaders && blockIndex > 0 { out += headerLine }
            var rows: [[Double]] = []
            rows.reserveCapacity(block.shots)
            for _ in 0..<block.shots {
                let shot = Self.shot(profile, form: configuration.form, random: &random)
                rows.append(shot)
                out += row(label: block.club, shot)
            }
            if configuration.footers && !rows.isEmpty {
                let n = Double(rows.count)
                let means = (0..<rows[0].count).map { i in rows.reduce(0) { $0 + $1[i] } / n }
                let sds = (0..<rows[0].count).map { i in
                    (rows.reduce(0) { $0 + ($1[i] - means[i]) * ($1[i] - means[i]) } / max(n - 1, 1)).squareRoot()
                }
                out += row(label: "Average", means)
                out += row(label: "Std. Dev.", sds)
            }
        }
        return Array(out.utf8)
    }

    /// Carry, total, ball speed, launch, direction, apex, side carry, club speed, smash, descent,
    /// attack, path, spin, spin axis.
    static func shot(_ p: ClubProfile, form: Double, random r: inout SplitMix64) -> [Double] {
        let clubSpeed = r.normal(mean: p.clubSpeed + 0.8 * form, sd: 1.4)
        // Strike quality: mostly centred, sometimes a clear mishit (thin or toe) that costs smash.
        let mishit = r.unit() < max(0.02, 0.09 - 0.04 * form)
        var smash = p.smash + 0.025 * form + r.normal(sd: 0.035)
        if mishit { smash -= 0.08 + 0.08 * r.unit() }
        smash = min(max(smash, 1.0), 1.52)
        let ballSpeed = clubSpeed * smash
        let launch = r.normal(mean: p.launch + 0.5 * form, sd: 2.4) - (mishit ? 2.5 : 0)
        let spin = max(1500, r.normal(mean: p.spin + 150 * form + 350 * (smash - p.smash) / 0.05, sd: 430) - (mishit ? 900 : 0))
        let descent = p.descent + 1.45 * (launch - p.launch) + 0.004 * (spin - p.spin) + r.normal(sd: 1.6)
        let carry = ballSpeed * p.carryPerMph + 0.35 * (launch - p.launch) + r.normal(sd: 2.5)
        let total = carry + max(0, r.normal(mean: p.roll + (mishit ? 4 : 0), sd: 2))
        let direction = r.normal(mean: -1.56, sd: 2.62)
        let axis = r.normal(mean: -3.1 + 0.6 * direction, sd: 6.5)
        let side = carry * direction * Double.pi / 180 + 0.9 * axis * carry / 150 + r.normal(sd: 2)
        let apex = p.apex + 6.3 * (launch - p.launch) + 0.45 * (ballSpeed - p.clubSpeed * p.smash) + r.normal(sd: 6)
        let attack = r.normal(mean: -0.1, sd: 1.27)
        let path = r.normal(mean: 0, sd: 1.67)
        return [carry, total, ballSpeed, launch, direction, max(apex, 5), side, clubSpeed, smash, descent, attack, path, spin, axis]
    }

    /// One CSV row in the export's style: quoted values, one decimal (two for smash, none for spin),
    /// empty brand and model, the estimate-type flag as a bare 0.
    static func row(label: String, _ v: [Double]) -> String {
        func q(_ x: Double, _ decimals: Int) -> String { "\"" + fixed(x, decimals) + "\"" }
        return "\"\(label)\",,," + [q(v[0], 1), q(v[1], 1), q(v[2], 1), q(v[3], 1), q(v[4], 1), q(v[5], 1), q(v[6], 1),
                                    q(v[7], 1), q(v[8], 2), q(v[9], 1), q(v[10], 1), q(v[11], 1), "0", q(v[12], 0),
                                    q(v[13], 1)].joined(separator: ",") + "\n"
    }

    /// `x` with `decimals` digits after the point; a rounded negative zero keeps its sign, as the
    /// app writes it ("-0.0").
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        let scale = [1.0, 10.0, 100.0][decimals]
        let factor = [1, 10, 100][decimals]
        let scaled = Int(saturating: (abs(x) * scale).rounded())
        let sign = x < 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(scaled) }
        let whole = scaled / factor, fraction = scaled % factor
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
