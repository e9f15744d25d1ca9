import XCTest
@testable import PuttingCore

final class HeightfieldTests: XCTestCase {
    private func grid(_ nx: Int = 3, _ nz: Int = 2, res: Double = 0.5) throws -> Heightfield {
        try Heightfield(nx: nx, nz: nz, resolutionFt: res, xMinFt: -1, zMinFt: -0.5,
                        heights: (0..<(nx * nz)).map { Float($0) })
    }

    func testCellCentresAndRowMajorLayout() throws {
        let hf = try grid()
        XCTAssertEqual(hf.xFt(column: 2), 0.0)
        XCTAssertEqual(hf.zFt(row: 1), 0.0)
        XCTAssertEqual(hf[2, 0], 2)   // row 0 = z index 0
        XCTAssertEqual(hf[0, 1], 3)   // row 1 starts at index nx
        XCTAssertEqual(hf.bilinearHeight(xFt: -0.75, zFt: -0.25), 2.0, accuracy: 1e-12)
    }

    func testReadsHole1FromSharedData() throws {
        let hf = try SharedData.hole1Heightfield()
        XCTAssertEqual(hf.nx, 206)
        XCTAssertEqual(hf.nz, 169)
        XCTAssertEqual(hf.resolutionFt, 0.5)
        XCTAssertEqual(hf.xMinFt, -51.22300298914547)
        XCTAssertEqual(hf.heightRange.lowerBound, 0)
        XCTAssertGreaterThan(hf.heightRange.upperBound, 1)
    }

    func testRoundTripThroughFilesKeepsContentHash() throws {
        let dir = try temporaryDirectory(self)
        let hf = try grid(4, 3)
        try hf.write(jsonPath: dir + "/g.json")
        let back = try Heightfield.read(jsonPath: dir + "/g.json")
        XCTAssertEqual(back, hf)
        XCTAssertEqual(back.contentHash, hf.contentHash)
        XCTAssertEqual(hf.contentHash.count, 64)
        var other = hf.heights
        other[5] += 0.25
        let changed = try Heightfield(nx: 4, nz: 3, resolutionFt: 0.5, xMinFt: -1, zMinFt: -0.5, heights: other)
        XCTAssertNotEqual(changed.contentHash, hf.contentHash)
    }

    func testBinarySizeMustBeFourTimesCells() throws {
        let dir = try temporaryDirectory(self)
        let hf = try grid(4, 3)
        try hf.write(jsonPath: dir + "/g.json")
        try write(Array(hf.binaryData().dropLast(2)), to: dir + "/g.bin")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/g.json") },
                       "\(dir)/g.bin: size is 46 bytes but a 4×3 grid needs 4·nx·nz = 48 bytes: the .bin does not match its .json")
    }

    func testMissingBinary() throws {
        let dir = try temporaryDirectory(self)
        try write(try grid().metadataJSON(), to: dir + "/g.json")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/g.json") },
                       "\(dir)/g.bin: heightfield data file is missing: put the .bin (nz×nx little-endian float32) beside the .json")
    }

    func testMissingJSON() throws {
        let dir = try temporaryDirectory(self)
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/none.json") },
                       "\(dir)/none.json: cannot read (no such file): check the path and permissions")
    }

    func testNaNHeightIsRefusedWithItsCell() throws {
        let dir = try temporaryDirectory(self)
        let hf = try grid(3, 2)
        try hf.write(jsonPath: dir + "/g.json")
        var bytes = hf.binaryData()
        let nan = Float.nan.bitPattern.littleEndian
        for k in 0..<4 { bytes[4 * 4 + k] = UInt8(truncatingIfNeeded: nan >> UInt32(8 * k)) }
        try write(bytes, to: dir + "/g.bin")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/g.json") },
                       "\(dir)/g.bin: heightfield height at column 1, row 1 is nan: every height must be a finite number of feet within ±100000 (use 0 outside the green)")
    }

    func testResolutionMustBePositive() throws {
        let dir = try temporaryDirectory(self)
        try write("""
        {"grid": {"nx": 2, "nz": 2, "resolution_ft": 0, "x_min_ft": 0, "z_min_ft": 0}}
        """, to: dir + "/g.json")
        try write([UInt8](repeating: 0, count: 16), to: dir + "/g.bin")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/g.json") },
                       "\(dir)/g.json:1:46: grid.resolution_ft is 0.0: it must be greater than 0")
        XCTAssertEqual(errorMessage { try Heightfield(nx: 2, nz: 2, resolutionFt: -1, xMinFt: 0, zMinFt: 0, heights: [0, 0, 0, 0]) },
                       "heightfield resolution_ft is -1.0: it must be a finite number greater than 0")
    }

    func testMetadataErrorsPointAtTheField() throws {
        let dir = try temporaryDirectory(self)
        try write("{\n  \"grid\": {\n    \"nx\": \"206\",\n    \"nz\": 2\n  }\n}", to: dir + "/a.json")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/a.json") },
                       "\(dir)/a.json:3:11: grid.nx must be an integer, found a string")
        try write("{\"grid\": {\"nx\": 2, \"nz\": 2, \"resolution_ft\": 0.5, \"x_min_ft\": 0}}", to: dir + "/b.json")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/b.json") },
                       "\(dir)/b.json:1:10: grid.z_min_ft is missing: add it")
        try write("{\"grid\": [1,}", to: dir + "/c.json")
        XCTAssertTrue(errorMessage { try Heightfield.read(jsonPath: dir + "/c.json") }.hasPrefix("\(dir)/c.json:1:13: invalid JSON: "))
        try write("{\"units\": {\"x\": \"m\"}, \"grid\": {}}", to: dir + "/d.json")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/d.json") },
                       "\(dir)/d.json:1:17: units.x must be \"ft\" (heights and positions are in feet), found \"m\"")
        try write("{\"grid\": {\"nx\": 1, \"nz\": 2, \"resolution_ft\": 0.5, \"x_min_ft\": 0, \"z_min_ft\": 0}}", to: dir + "/e.json")
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/e.json") },
                       "\(dir)/e.json:1:17: grid.nx is 1: it must be at least 2")
    }

    func testInMemoryGridErrors() throws {
        XCTAssertEqual(errorMessage { try Heightfield(nx: 1, nz: 5, resolutionFt: 1, xMinFt: 0, zMinFt: 0, heights: [0, 0, 0, 0, 0]) },
                       "heightfield grid 1×5 is too small: nx and nz must both be at least 2")
        XCTAssertEqual(errorMessage { try Heightfield(nx: 1 << 14, nz: 1 << 13, resolutionFt: 1, xMinFt: 0, zMinFt: 0, heights: []) },
                       "heightfield grid 16384×8192 is too large (more than 67108864 cells): use a coarser resolution")
        XCTAssertEqual(errorMessage { try Heightfield(nx: 2, nz: 2, resolutionFt: 1, xMinFt: .nan, zMinFt: 0, heights: [0, 0, 0, 0]) },
                       "heightfield origin (x_min_ft nan, z_min_ft 0.0) is not finite: give finite numbers")
        XCTAssertEqual(errorMessage { try Heightfield(nx: 2, nz: 2, resolutionFt: 1, xMinFt: 0, zMinFt: 0, heights: [0, 0, 0]) },
                       "heightfield has 3 heights but its grid needs nx·nz = 4: give one height per cell")
        let dir = try temporaryDirectory(self)
        XCTAssertTrue(errorMessage { try self.grid().write(jsonPath: dir + "/missing/folder/g.json") }
            .hasPrefix("\(dir)/missing/folder/g.json: cannot write ("))
        XCTAssertTrue(errorMessage { try self.grid().write(jsonPath: dir + "/missing/folder/g.json") }
            .hasSuffix("): check the directory exists and is writable"))
        try FileManager.default.createDirectory(atPath: dir + "/d.json", withIntermediateDirectories: true)
        XCTAssertEqual(errorMessage { try Heightfield.read(jsonPath: dir + "/d.json") },
                       "\(dir)/d.json: cannot read (it is a directory): check the path and permissions")
    }

}
