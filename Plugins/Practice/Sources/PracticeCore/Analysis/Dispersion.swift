import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// Where a club's shots land: carry (downrange) against side carry (offline, right positive), their
/// spread, and the 95 % covariance ellipse.
///
/// Mishit rule (documented in `shared/domain/practice.md` terms: a mishit is not a shot the player
/// meant to hit): a shot is excluded when its carry is far from the club's typical carry by a
/// robust z-score, z = 0.6745 · (carry − median) / MAD, with MAD the median absolute deviation
/// from the median (Iglewicz & Hoaglin's modified z-score); |z| > 3.5 is a mishit. The median and
/// MAD are not pulled by the mishits themselves, unlike a mean and standard deviation. When MAD is
/// 0 (half the shots or more carry exactly the median) no shot is excluded by the rule. Shots
/// without a carry are left out (counted as unmeasured); shots without a side carry count for
/// carry and total but not for side spread or the ellipse. Nothing is guessed.
///
/// Ellipse: the sample covariance (n − 1) of (side, carry) over the kept shots; its eigenvectors
/// give the axes and each semi-axis is √(5.991 · λ), 5.991 being the 95 % quantile of the
/// chi-square distribution with 2 degrees of freedom, so about 95 % of shots from the same
/// bivariate normal fall inside. At least 3 kept shots are needed for an ellipse.
public enum Dispersion {
    /// The 95 % quantile of χ² with 2 degrees of freedom.
    public static let chiSquare95 = 5.991
    /// |modified z| above this is a mishit.
    public static let mishitZ = 3.5
    public static let rule = "rule: a mishit has |0.6745·(carry − median)/MAD| > 3.5 (modified z-score); MAD = 0 excludes none"

    /// Median of a non-empty array.
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        let n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }

    /// The modified z-score of each carry (nil for all when MAD is 0 or there are no values).
    public static func robustZ(_ carries: [Double]) -> [Double]? {
        guard !carries.isEmpty else { return nil }
        let m = median(carries)
        let mad = median(carries.map { abs($0 - m) })
        guard mad > 0 else { return nil }
        return carries.map { 0.6745 * ($0 - m) / mad }
    }

    /// The 95 % ellipse of points (x, y), or nil with fewer than 3 points.
    public static func ellipse(xs: [Double], ys: [Double]) -> CovarianceEllipse? {
        let n = xs.count
        guard n >= 3, ys.count == n else { return nil }
        let mx = xs.reduce(0, +) / Double(n), my = ys.reduce(0, +) / Double(n)
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for i in 0..<n {
            let dx = xs[i] - mx, dy = ys[i] - my
            sxx += dx * dx
            syy += dy * dy
            sxy += dx * dy
        }
        sxx /= Double(n - 1)
        syy /= Double(n - 1)
        sxy /= Double(n - 1)
        let mean = (sxx + syy) / 2
        let root = ((sxx - syy) / 2 * (sxx - syy) / 2 + sxy * sxy).squareRoot()
        let l1 = mean + root, l2 = max(mean - root, 0)
        // Angle of the major axis from the x axis toward y.
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return CovarianceEllipse(centerX: mx, centerY: my, varianceX: sxx, varianceY: syy, covariance: sxy,
                                 semiMajor: (chiSquare95 * l1).squareRoot(), semiMinor: (chiSquare95 * l2).squareRoot(),
                                 angleDegrees: angle * 180 / Double.pi)
    }

    /// The dispersion of one club's shots.
    public static func analyze(club: String, shots: [(sessionID: Int64, shot: StoredShot)]) -> ClubDispersion {
        var points: [DispersionShot] = []
        var unmeasured = 0
        var implausible = 0
        for (sessionID, shot) in shots {
            // A value stored outside its plausible range (by a version that did not check) is left out.
            let (measurements, leftOut) = shot.measurements.plausible
            implausible += leftOut.count
            guard let carry = measurements[.carry] else {
                unmeasured += 1
                continue
            }
            points.append(DispersionShot(sessionID: sessionID, rowIndex: shot.rowIndex, carry: carry, side: measurements[.sideCarry],
                                         total: measurements[.total], z: nil, mishit: false))
        }
        if let z = robustZ(points.map(\.carry)) {
            for i in points.indices {
                points[i].z = z[i]
                points[i].mishit = abs(z[i]) > mishitZ
            }
        }
        let kept = points.filter { !$0.mishit }
        func stats(_ values: [Double]) -> (Double, Double)? {
            guard !values.isEmpty else { return nil }
            let mean = values.reduce(0, +) / Double(values.count)
            guard values.count > 1 else { return (mean, 0) }
            let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
            return (mean, variance.squareRoot())
        }
        let carry = stats(kept.map(\.carry)), side = stats(kept.compactMap(\.side)), total = stats(kept.compactMap(\.total))
        let located = kept.filter { $0.side != nil }
        return ClubDispersion(club: club, shots: points, unmeasured: unmeasured, implausible: implausible, kept: kept.count,
                              mishits: points.count - kept.count,
                              carryMean: carry?.0, carrySD: carry?.1, sideMean: side?.0, sideSD: side?.1,
                              totalMean: total?.0, totalSD: total?.1,
                              ellipse: ellipse(xs: located.compactMap(\.side), ys: located.map(\.carry)), rule: rule)
    }
}

/// A 95 % covariance ellipse in (x, y) = (side, carry) yards.
public struct CovarianceEllipse: Sendable, Equatable, Codable {
    public let centerX: Double
    public let centerY: Double
    public let varianceX: Double
    public let varianceY: Double
    public let covariance: Double
    public let semiMajor: Double
    public let semiMinor: Double
    /// The major axis's angle from the side (x) axis toward carry (y), in degrees (−90…90).
    public let angleDegrees: Double

    enum CodingKeys: String, CodingKey {
        case centerX = "center_side", centerY = "center_carry", varianceX = "variance_side", varianceY = "variance_carry"
        case covariance, semiMajor = "semi_major", semiMinor = "semi_minor", angleDegrees = "angle_degrees"
    }

    /// `count` points on the ellipse (x, y).
    public func outline(_ count: Int = 96) -> [(Double, Double)] {
        let t = angleDegrees * Double.pi / 180
        return (0..<count).map { k in
            let u = 2 * Double.pi * Double(k) / Double(count)
            let a = semiMajor * cos(u), b = semiMinor * sin(u)
            return (centerX + a * cos(t) - b * sin(t), centerY + a * sin(t) + b * cos(t))
        }
    }
}

/// One shot on the dispersion picture.
public struct DispersionShot: Sendable, Equatable, Codable {
    public let sessionID: Int64
    public let rowIndex: Int
    public let carry: Double
    /// Side carry, yards right (+) or left (−) of the target line; nil when not measured (such a
    /// shot counts for carry and total, not for side spread or the ellipse).
    public let side: Double?
    public let total: Double?
    /// Modified z-score of the carry (nil when MAD is 0).
    public var z: Double?
    public var mishit: Bool

    enum CodingKeys: String, CodingKey { case sessionID = "session_id", rowIndex = "row_index", carry, side, total, z, mishit }
}

public struct ClubDispersion: Sendable, Equatable, Codable {
    public let club: String
    /// Every shot with a carry, mishits included (marked).
    public let shots: [DispersionShot]
    /// Shots without a carry (left out).
    public let unmeasured: Int
    /// Stored values outside their metric's plausible range, left out (ShotMetric.plausibleRange).
    public let implausible: Int
    public let kept: Int
    public let mishits: Int
    public let carryMean: Double?
    public let carrySD: Double?
    public let sideMean: Double?
    public let sideSD: Double?
    public let totalMean: Double?
    public let totalSD: Double?
    public let ellipse: CovarianceEllipse?
    public let rule: String

    enum CodingKeys: String, CodingKey {
        case club, shots, unmeasured, implausible, kept, mishits, carryMean = "carry_mean", carrySD = "carry_sd", sideMean = "side_mean"
        case sideSD = "side_sd", totalMean = "total_mean", totalSD = "total_sd", ellipse, rule
    }

    public var text: String {
        func f(_ v: Double?) -> String { v.map { fixed($0, 1) } ?? "-" }
        var lines = ["\(club): \(kept) shots kept, \(mishits) mishit\(mishits == 1 ? "" : "s") excluded"
            + (unmeasured > 0 ? ", \(unmeasured) without a carry" : "")
            + (implausible > 0 ? ", \(implausible) stored value\(implausible == 1 ? "" : "s") outside the plausible range left out" : "")]
        lines.append("carry  \(f(carryMean)) yd ± \(f(carrySD)) (sd)")
        lines.append("side   \(f(sideMean)) yd ± \(f(sideSD)) (sd; + is right)")
        if totalMean != nil { lines.append("total  \(f(totalMean)) yd ± \(f(totalSD)) (sd)") }
        if let e = ellipse {
            lines.append("95% ellipse: \(fixed(e.semiMajor * 2, 1)) × \(fixed(e.semiMinor * 2, 1)) yd, major axis at "
                + "\(fixed(e.angleDegrees, 1))° from the side axis (χ² 2 dof = \(Dispersion.chiSquare95))")
        } else {
            lines.append("95% ellipse: needs at least 3 kept shots")
        }
        for s in shots where s.mishit {
            lines.append("mishit: session \(s.sessionID) row \(s.rowIndex), carry \(fixed(s.carry, 1)) yd (z \(s.z.map { fixed($0, 1) } ?? "-"))")
        }
        lines.append(Dispersion.rule)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `practice distances`: one row per club.
public struct DistanceTable: Sendable, Equatable, Codable {
    public let clubs: [ClubDispersion]
    /// Sessions the table covers (all unless one was named).
    public let sessionID: Int64?

    enum CodingKeys: String, CodingKey { case clubs, sessionID = "session_id" }

    public var text: String {
        guard !clubs.isEmpty else { return "no shots with a carry yet; import a session first\n" }
        func f(_ v: Double?) -> String { v.map { fixed($0, 1) } ?? "-" }
        var table = TextTable(["CLUB", "SHOTS", "MISHITS", "CARRY", "CARRY SD", "TOTAL", "SIDE SD"])
        for c in clubs {
            table.add([c.club, String(c.kept), String(c.mishits), f(c.carryMean), f(c.carrySD), f(c.totalMean), f(c.sideSD)])
        }
        return table.render() + "yards; means and sample standard deviations over kept shots; " + Dispersion.rule + "\n"
    }
}

/// Reads the stored shots for dispersion and distance tables.
public struct DispersionQuery {
    public let store: any PracticeStore

    public init(store: any PracticeStore) { self.store = store }

    func shots(sessionID: Int64?) throws(PracticeError) -> [(sessionID: Int64, shot: StoredShot)] {
        var ids: [Int64]
        if let sessionID {
            guard try storeCall({ try store.session(id: sessionID) }) != nil else {
                throw .notFound("no session \(sessionID); `practice sessions` lists them")
            }
            ids = [sessionID]
        } else {
            ids = try storeCall { try store.sessions() }.map(\.id)
        }
        var result: [(sessionID: Int64, shot: StoredShot)] = []
        for id in ids { for shot in try storeCall({ try store.shots(sessionID: id) }) { result.append((id, shot)) } }
        return result
    }

    public func club(_ name: String, sessionID: Int64? = nil) throws(PracticeError) -> ClubDispersion {
        let club = try ClubName.option(name)
        let all = try shots(sessionID: sessionID)
        let mine = all.filter { $0.shot.club == club }
        if mine.isEmpty {
            let known = Set(all.map(\.shot.club)).sorted()
            throw .notFound("no \(club) shots" + (sessionID.map { " in session \($0)" } ?? "")
                + (known.isEmpty ? "; import a session first" : " (clubs: \(known.joined(separator: ", ")))"))
        }
        return Dispersion.analyze(club: club, shots: mine)
    }

    /// Every club, longest carry first.
    public func distances(sessionID: Int64? = nil) throws(PracticeError) -> DistanceTable {
        let all = try shots(sessionID: sessionID)
        var order: [String] = []
        var byClub: [String: [(sessionID: Int64, shot: StoredShot)]] = [:]
        for item in all {
            if byClub[item.shot.club] == nil { order.append(item.shot.club) }
            byClub[item.shot.club, default: []].append(item)
        }
        let clubs = order.map { Dispersion.analyze(club: $0, shots: byClub[$0] ?? []) }
            .sorted { ($0.carryMean ?? -1, $1.club) > ($1.carryMean ?? -1, $0.club) }
        return DistanceTable(clubs: clubs, sessionID: sessionID)
    }
}
