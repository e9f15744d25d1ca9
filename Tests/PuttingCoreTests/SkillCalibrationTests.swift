import ClubhouseJSON
@testable import PuttingCore
import XCTest

/// The named skill levels against the published make rates they are fitted to (SkillLevels.swift), on a flat green at
/// each data set's green speed, as `clubhouse-bench putting-calibrate` prints them (Benchmarks/putting/calibrate.sh).
final class SkillCalibrationTests: XCTestCase {
    func flatSolver(stimp: Double, errors: StrokeErrors) throws -> PhysicsSolver {
        let hf = try GreenGenerator.plane(widthFt: 60, depthFt: 20, slopeX: 0, slopeZ: 0)
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: stimp)))
        solver.computeTolerance = false
        solver.strokeErrors = errors
        return solver
    }

    func makeRate(_ solver: PhysicsSolver, _ d: Double) throws -> Double {
        try XCTUnwrap(solver.bestLine(ball: PointFt(x: -d / 2, z: 0), hole: PointFt(x: d / 2, z: 0)).probability).probability
    }

    func testEveryLevelMeetsItsPublishedMakeRates() throws {
        // Tour within ±3 points of every Broadie bin from 3 to 20 ft; each amateur level within ±5 of its Shot Scope bins.
        for level in SkillLevel.allCases {
            let solver = try flatSolver(stimp: level.dataStimpFt, errors: level.errors)
            for bin in level.data {
                let total = bin.points.reduce(0) { $0 + $1.weight }
                var model = 0.0
                for p in bin.points { model += p.weight * (try makeRate(solver, p.distanceFt)) }
                model /= total
                XCTAssertEqual(model * 100, bin.rate * 100, accuracy: level.targetPoints, "\(level.rawValue) at \(bin.label)")
            }
        }
        XCTAssertEqual(SkillLevel.broadieTour.count, 15)
        XCTAssertEqual(SkillLevel.broadieTour.first?.loFt, 2.92)
        XCTAssertEqual(SkillLevel.broadieTour.last?.loFt, 20.44)
    }

    func testTourLevelBesideBerrysData() throws {
        // Berry's professional golfers' putts (1995; as in Gelman and Nolan 2002), a second data set the tour level is not
        // fitted to, at stimp 10. From 7 to 20 ft every whole foot lies within 3.5 binomial standard errors of the model (each
        // holds 147–256 putts) and the putts made there add up within 2 points of the model's; from 2 to 6 ft Berry's
        // pros made clearly fewer than Broadie's 2016–18 ones, and the model follows the newer data (README, Sources).
        let solver = try flatSolver(stimp: 10, errors: SkillLevel.tour.errors)
        var tries = 0.0, made = 0.0, expected = 0.0
        for bin in SkillLevel.berryPros {
            let n = Double(try XCTUnwrap(bin.tries))
            let se = (bin.rate * (1 - bin.rate) / n).squareRoot()
            let model = try makeRate(solver, bin.loFt)
            if bin.loFt >= 7 {
                XCTAssertEqual(model, bin.rate, accuracy: 3.5 * se, "\(bin.label): model \(model), Berry \(bin.rate)")
                tries += n
                made += bin.rate * n
                expected += model * n
            } else {
                XCTAssertGreaterThan(model - bin.rate, 3 * se, "\(bin.label): model \(model), Berry \(bin.rate)")
            }
        }
        XCTAssertEqual(tries, 2771)
        XCTAssertEqual(expected / tries * 100, made / tries * 100, accuracy: 2, "7–20 ft pooled")
    }

    func testWorseGolfersMakeFewerAndLeaveMoreShort() throws {
        // At 8 ft on the same green, each level down the list makes fewer; the old 0.75°/4 % defaults made far more.
        var previous = 1.0
        for level in SkillLevel.allCases {
            let p = try makeRate(try flatSolver(stimp: 10, errors: level.errors), 8)
            XCTAssertLessThan(p, previous, level.rawValue)
            previous = p
        }
        let old = try makeRate(try flatSolver(stimp: 10, errors: StrokeErrors(aimSDDeg: 0.75, speedSDFraction: 0.04)), 8)
        XCTAssertGreaterThan(old, 0.8)
        XCTAssertLessThan(try makeRate(try flatSolver(stimp: 10, errors: .tour), 8), 0.55)
        // The pace bias moves the speeds the integral weighs: a putt hit 5 % short on average drops less often.
        var short = SkillLevel.tour.errors
        short.paceBiasFraction = -0.05
        XCTAssertLessThan(try makeRate(try flatSolver(stimp: 10, errors: short), 15),
                          try makeRate(try flatSolver(stimp: 10, errors: .tour), 15) - 0.01)
        // The sideways scatter widens short putts' aim more than long ones'.
        let e = SkillLevel.twenty.errors
        XCTAssertGreaterThan(e.aimSDDeg(distanceFt: 2) - e.aimSDDeg, 1)
        XCTAssertLessThan(e.aimSDDeg(distanceFt: 20) - e.aimSDDeg, 0.1)
    }

    func testSkillNamesAndTheirErrors() throws {
        XCTAssertEqual(try SkillLevel(name: "TOUR"), .tour)
        XCTAssertEqual(try SkillLevel(name: "0"), .scratch)
        XCTAssertEqual(try SkillLevel(name: "20"), .twenty)
        XCTAssertEqual(errorMessage { try SkillLevel(name: "pro") },
                       "unknown skill \"pro\": use tour (default), scratch, 10, 20 or 25 (a handicap)")
        XCTAssertEqual(errorMessage { try StrokeErrors(aimSDDeg: 1, speedSDFraction: 0.05, lateralSDIn: 7).validated() },
                       "sideways scatter 7 is out of range: it must be 0 to 6 inches")
        XCTAssertEqual(errorMessage { try StrokeErrors(aimSDDeg: 1, speedSDFraction: 0.05, paceBiasFraction: -0.3).validated() },
                       "pace bias -30 is out of range: it must be within ±20 percent")
        XCTAssertEqual(StrokeErrors.tour, SkillLevel.tour.errors)
        XCTAssertEqual(SkillLevel.tour.errors.summary, "a PGA Tour player's stroke (aim ±1.46°, speed ±5.8%)")
        XCTAssertEqual(SkillLevel.twenty.errors.summary,
                       "a 20-handicapper's stroke (aim ±1.79° and ±0.97 in at the hole, speed ±8.1%, 4.5% short on average)")
        XCTAssertEqual(StrokeErrors(aimSDDeg: 1, speedSDFraction: 0.05).summary, "a stroke's natural errors: aim ±1.00°, speed ±5.0%")
        for level in SkillLevel.allCases {
            XCTAssertEqual(try level.errors.validated(), level.errors)
            XCTAssertEqual(StrokeErrors(json: level.errors.json), level.errors)
        }
        // A stored request from before the levels (numbers only) reads back as a site's own numbers.
        var read = StrokeErrors.tour
        read.update(fromStored: ["aimSDDeg": 0.75, "speedSDFraction": 0.04])
        XCTAssertEqual(read, StrokeErrors(aimSDDeg: 0.75, speedSDFraction: 0.04))
    }
}
