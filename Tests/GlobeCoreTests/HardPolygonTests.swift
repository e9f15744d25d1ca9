// Generated hard cases at odd rotations: holes touching each other and the outer ring at
// vertices, a spiral, combs, collinear runs and duplicate points. Scored like the earcut
// fixtures (EarcutFixtureTests.score): Σ|triangle area| equals the polygon's area to 1e-9,
// n + 2h − 2 triangles, and random points covered once inside, never outside.

import XCTest
@testable import GlobeCore

final class HardPolygonTests: XCTestCase {
    static let rotations: [Double] = [0, 17, 33.3, 61, 90, 137.5]

    private func assertValid(_ name: String, _ rings: [[(Double, Double)]], file: StaticString = #filePath, line: UInt = #line) {
        for rotation in Self.rotations {
            let polygon = EarcutFixtureTests.rotate(rings, degrees: rotation)
            let s = EarcutFixtureTests.score(polygon, samples: 200, seed: 11)
            let at = "\(name) at \(rotation)°"
            XCTAssertTrue(s.indicesInRange, at, file: file, line: line)
            XCTAssertEqual(s.triangles, s.countFormula, "\(at): n + 2h − 2", file: file, line: line)
            XCTAssertLessThanOrEqual(s.deviation, 1e-9, "\(at): area \(s.triangleArea) vs \(s.polygonArea)", file: file, line: line)
            XCTAssertTrue(s.coverageErrors.isEmpty, "\(at): \(s.coverageErrors.count) points covered wrongly", file: file, line: line)
        }
    }

    private static func square(_ x: Double, _ y: Double, _ size: Double) -> [(Double, Double)] {
        [(x, y), (x + size, y), (x + size, y + size), (x, y + size)]
    }

    func testCheckerboardOfHolesTouchingAtCorners() {
        // A 6 × 6 board inside a 8 × 8 square: the holes are the "black" cells, each touching its
        // diagonal neighbours at a corner.
        var rings = [Self.square(0, 0, 8)]
        for i in 1...6 { for j in 1...6 where (i + j) % 2 == 0 { rings.append(Self.square(Double(i), Double(j), 1)) } }
        assertValid("checkerboard", rings)
    }

    func testHolesTouchingTheOuterRingAndEachOther() {
        // Triangular holes fanned around a point on the outer ring's bottom edge vertex.
        var rings: [[(Double, Double)]] = [[(0, 0), (5, 0), (10, 0), (10, 10), (0, 10)]]
        rings.append([(5, 0), (7, 3), (6, 4)])
        rings.append([(5, 0), (5, 5), (4, 4)])
        rings.append([(5, 0), (3, 2), (2, 1)])
        // A hole touching the first one at its apex, and one touching the outer ring's corner.
        rings.append([(7, 3), (9, 5), (8, 6)])
        rings.append([(10, 10), (8, 9), (9, 8)])
        assertValid("touching holes", rings)
    }

    func testSpiral() {
        // A thick square spiral: 12 turns, every segment a corridor of width 1.
        var inner: [(Double, Double)] = [], outer: [(Double, Double)] = []
        var x = 0.0, y = 0.0
        var length = 2.0
        let dirs: [(Double, Double)] = [(1, 0), (0, 1), (-1, 0), (0, -1)]
        var path: [(Double, Double)] = [(0, 0)]
        for k in 0..<24 {
            let d = dirs[k % 4]
            x += d.0 * length
            y += d.1 * length
            path.append((x, y))
            if k % 2 == 1 { length += 2 }
        }
        // Offset the centre line by ±0.5 on the left and right to get the corridor's two walls.
        for k in 0..<path.count {
            let prev = path[max(0, k - 1)], next = path[min(path.count - 1, k + 1)]
            let dx = next.0 - prev.0, dy = next.1 - prev.1
            let n = (dx * dx + dy * dy).squareRoot()
            // Corners offset along the bisector so the walls stay parallel to the centre line.
            let (lx, ly) = (-dy / n, dx / n)
            let scale = (k == 0 || k == path.count - 1) ? 0.5 : 0.5 * 2.0.squareRoot()
            inner.append((path[k].0 + lx * scale, path[k].1 + ly * scale))
            outer.append((path[k].0 - lx * scale, path[k].1 - ly * scale))
        }
        assertValid("spiral", [outer + inner.reversed()])
    }

    func testCombsWithCollinearRunsAndDuplicates() {
        // Teeth up and down, every straight edge cut into collinear pieces, some points doubled.
        var ring: [(Double, Double)] = []
        for k in 0..<20 {
            let x = Double(k) * 2
            ring += [(x, 0), (x + 0.5, 0), (x + 0.5, 0), (x + 1, 0), (x + 1, -5), (x + 1.5, -5), (x + 1.5, 0)]
        }
        ring.append((40, 0))
        for step in 1...4 { ring.append((40, Double(step))) }
        for k in stride(from: 19, through: 0, by: -1) {
            let x = Double(k) * 2
            ring += [(x + 2, 4), (x + 1.5, 4), (x + 1.5, 9), (x + 1, 9), (x + 1, 4), (x + 1, 4)]
        }
        ring += [(0, 4), (0, 2)]
        assertValid("double comb", [ring])
    }

    func testAHugeRing() {
        // 20,000 vertices on a wobbly circle with a ring of 30 square holes near its rim.
        let n = 20_000
        var outer: [(Double, Double)] = []
        for k in 0..<n {
            let t = 2 * Double.pi * Double(k) / Double(n)
            let r = 100 + 3 * sin(37 * t) + (k % 2 == 0 ? 0.5 : 0)
            outer.append((r * cos(t), r * sin(t)))
        }
        var rings = [outer]
        for k in 0..<30 {
            let t = 2 * Double.pi * Double(k) / 30
            rings.append(Self.square(80 * cos(t), 80 * sin(t), 4))
        }
        let polygon = EarcutFixtureTests.rotate(rings, degrees: 33.3)
        let s = EarcutFixtureTests.score(polygon, samples: 50, seed: 5)
        XCTAssertEqual(s.triangles, s.countFormula)
        XCTAssertLessThanOrEqual(s.deviation, 1e-9)
        XCTAssertTrue(s.coverageErrors.isEmpty)
    }
}
