import XCTest
@testable import PuttingCore

final class GeneratorTests: XCTestCase {
    func testProceduralGreensAreSeededAndSmooth() throws {
        let a = try GreenGenerator.procedural(seed: 42, sizeFt: 60)
        let b = try GreenGenerator.procedural(seed: 42, sizeFt: 60)
        let c = try GreenGenerator.procedural(seed: 43, sizeFt: 60)
        XCTAssertEqual(a.heightfield.contentHash, b.heightfield.contentHash)
        XCTAssertEqual(a.hole, b.hole)
        XCTAssertNotEqual(a.heightfield.contentHash, c.heightfield.contentHash)
        let hf = a.heightfield
        XCTAssertEqual(hf.heightRange.lowerBound, 0)
        // Inside the boundary heights follow the surface; outside they are 0.
        var inside = 0
        for row in 0..<hf.nz {
            for column in 0..<hf.nx {
                let p = PointFt(x: hf.xFt(column: column), z: hf.zFt(row: row))
                if a.boundary.contains(p) { inside += 1 } else { XCTAssertEqual(hf[column, row], 0) }
            }
        }
        XCTAssertGreaterThan(inside, hf.nx * hf.nz / 4)
        // Smooth: slopes of a real green (under 10 %) between neighbouring green cells.
        let surface = GreenSurface(hf)
        var steepest = 0.0
        for row in 1..<(hf.nz - 1) {
            for column in 1..<(hf.nx - 1) where hf.isGreen(column: column, row: row) && hf.isGreen(column: column + 1, row: row) {
                steepest = max(steepest, abs(Double(hf[column + 1, row] - hf[column, row])) / hf.resolutionFt)
            }
        }
        XCTAssertLessThan(steepest, 0.1)
        XCTAssertTrue(a.boundary.contains(a.hole))
        XCTAssertEqual(a.balls.count, 3)
        for ball in a.balls {
            XCTAssertTrue(surface.isOnGreen(xFt: ball.x, zFt: ball.z))
            XCTAssertGreaterThan(ball.distance(to: a.hole), 8)
        }
        XCTAssertFalse(a.contours.isEmpty)
    }

    func testSurfaceReproducesPlanesAndFillsTheEdge() throws {
        let plane = try GreenGenerator.plane(widthFt: 10, depthFt: 6, baseFt: 2, slopeX: 0.03, slopeZ: -0.02)
        let surface = GreenSurface(plane)
        for (x, z) in [(0.0, 0.0), (-5.0, -3.0), (4.9, 2.7), (1.234, -0.5)] {
            let s = surface.sample(xFt: x, zFt: z)
            XCTAssertEqual(s.height, 2 + 0.03 * x - 0.02 * z, accuracy: 1e-5)
            XCTAssertEqual(s.slopeX, 0.03, accuracy: 1e-5)
            XCTAssertEqual(s.slopeZ, -0.02, accuracy: 1e-5)
        }
        XCTAssertEqual(surface.maximumSlope, (0.03 * 0.03 + 0.02 * 0.02).squareRoot(), accuracy: 1e-5)
        // The lowest cell (0 after the shift) stays green in the physics mask, not in the compat one.
        var heights = [Float](repeating: 1, count: 25)
        heights[12] = 0
        let dip = try Heightfield(nx: 5, nz: 5, resolutionFt: 1, xMinFt: -2, zMinFt: -2, heights: heights)
        XCTAssertTrue(GreenSurface(dip).isOnGreen(xFt: 0, zFt: 0))
        XCTAssertFalse(CompatGreen(dip).isOnGreen(xFt: 0.5, zFt: 0.5))
    }

    func testCompatNearestCellRuleIsStrictlyBelow() throws {
        let hf = try Heightfield(nx: 4, nz: 3, resolutionFt: 0.5, xMinFt: -1, zMinFt: 0, heights: (0..<12).map { Float($0 + 1) })
        let green = CompatGreen(hf)
        // Axis x: -1, -0.5, 0, 0.5. A value equal to an axis value belongs to the cell below it.
        XCTAssertEqual(green.height(xFt: 0, zFt: 0.2), Double(hf[1, 0]))
        XCTAssertEqual(green.height(xFt: 0.0001, zFt: 0.2), Double(hf[2, 0]))
        XCTAssertEqual(green.height(xFt: -7, zFt: 0.2), Double(hf[0, 0]), "clamped below")
        XCTAssertEqual(green.height(xFt: 9, zFt: 9), Double(hf[3, 2]), "clamped above")
        XCTAssertEqual(green.height(xFt: -0.75, zFt: 0.5), Double(hf[0, 0]), "z equal to row 1's value → row 0")
        XCTAssertEqual(numpyArange(29.0, 31.000000001, 0.2).count, 11)
        // Hole 1's winning offset: the last element of stage 3 around 29°.
        XCTAssertEqual(numpyArange(28.0, 30.000000001, 0.2)[10], 29.999999999999993)
        XCTAssertEqual(numpyArange(2, 16.000000001, 1).count, 15)
    }
}
