import Foundation
import XCTest
@testable import PuttingCore

/// Runs the schema and every statement through the sqlite3 shell (skipped when it is not installed),
/// binding named parameters with `.parameter set`.
final class SchemaTests: XCTestCase {
    private func sqlite(_ script: String) throws -> (output: String, errors: String) {
        let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            let reason = "sqlite3 shell not installed: the schema test is skipped"
            print(reason)
            throw XCTSkip(reason)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-bail", ":memory:"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus == 0 ? "" : "sqlite3 exited with \(process.terminationStatus)\n"
        return (String(decoding: out, as: UTF8.self), status + String(decoding: err, as: UTF8.self))
    }

    private func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
    private func hex(_ bytes: [UInt8]) -> String { "X'" + bytes.map { String(format: "%02x", $0) }.joined() + "'" }

    /// The statement with each `:name` replaced by its SQL literal (every parameter must be given).
    private func run(_ sql: String, _ parameters: [String: String]) -> String {
        var out = ""
        var i = sql.startIndex
        while i < sql.endIndex {
            if sql[i] == ":", let next = sql.index(i, offsetBy: 1, limitedBy: sql.endIndex), next < sql.endIndex,
               sql[next].isLetter || sql[next] == "_" {
                var end = next
                while end < sql.endIndex, sql[end].isLetter || sql[end].isNumber || sql[end] == "_" { end = sql.index(after: end) }
                let name = String(sql[next..<end])
                if let value = parameters[name] { out += value } else { XCTFail("parameter :\(name) not bound"); out += "NULL" }
                i = end
            } else {
                out.append(sql[i])
                i = sql.index(after: i)
            }
        }
        return out + ";\n"
    }

    func testMigrationsAndStatementsRunOnSQLite() throws {
        let hf = try GreenGenerator.plane(widthFt: 2, depthFt: 1, baseFt: 1)
        let hole = Hole(courseID: "c1", number: 3, greenWidthFt: 2, greenHeightFt: 1, holePosition: PointFt(x: 0.5, z: 0),
                        heightfield: hf, boundary: PolygonFt(points: [PointFt(x: 0, z: 0), PointFt(x: 1, z: 0), PointFt(x: 0, z: 1)]),
                        contours: [ContourLine(heightFt: 1, points: [PointFt(x: 0, z: 0)])], source: "it's here")
        let request = BestLineRequest(course: "c1", hole: 3, ball: PointFt(x: -0.5, z: 0), flag: PointFt(x: 0.5, z: 0))
        let hash = try XCTUnwrap(hole.heightfieldHash)
        let key = request.contentKey(heightfieldHash: hash)
        var script = ".mode list\n.separator |\nPRAGMA foreign_keys = ON;\n"
        for m in PuttingSchema.migrations { script += "BEGIN;\n\(m.sql)\nCOMMIT;\n" }
        typealias S = PuttingSchema.Statement
        script += run(S.upsertCourse, ["id": quote("c1"), "name": quote("Course One"), "city": "NULL", "state": quote("CA")])
        script += run(S.upsertCourse, ["id": quote("c1"), "name": quote("Course 1"), "city": quote("SF"), "state": quote("CA")])
        script += run(S.insertHeightfield, ["hash": quote(hash), "nx": "\(hf.nx)", "nz": "\(hf.nz)",
                                            "resolution_ft": "\(hf.resolutionFt)", "x_min_ft": "\(hf.xMinFt)", "z_min_ft": "\(hf.zMinFt)",
                                            "heights": hex(hf.binaryData())])
        script += run(S.upsertHole, ["course_id": quote("c1"), "number": "3", "green_width_ft": "2", "green_height_ft": "1",
                                     "hole_x_ft": "0.5", "hole_z_ft": "0", "heightfield_hash": quote(hash), "heightfield_origin": quote("imported"),
                                     "boundary_json": quote(hole.boundaryText ?? ""), "contours_json": quote(hole.contoursText),
                                     "contour_interval_ft": "NULL", "image_w_px": "NULL", "image_h_px": "NULL", "source": quote(hole.source),
                                     "traced_boundary_file": "NULL", "traced_boundary": "NULL", "traced_contours_file": "NULL",
                                     "traced_contours": "NULL"])
        script += run(S.selectCourses, [:])
        script += run(S.selectHoleSummaries, ["course_id": quote("c1")])
        script += run("SELECT length(heights), hex(substr(heights, 1, 4)) FROM heightfields", [:])
        script += run(S.upsertResult, ["key": quote(key), "result_json": quote("{\"bestLine\":{}}"), "created_at": quote("2024-01-01T00:00:00Z")])
        script += run(S.selectResult, ["key": quote(key)])
        for (id, state) in [("j1", "queued"), ("j2", "queued"), ("j1", "running")] {
            script += run(S.upsertJob, ["id": quote(id), "key": quote(key), "kind": quote("bestline"), "state": quote(state),
                                        "request_json": quote(JobRecord(id: id, key: key, state: .queued, request: request,
                                                                        createdAt: "t", updatedAt: "t").requestText),
                                        "error": "NULL", "progress": "0.5", "attempts": "1", "created_at": quote("t0"), "updated_at": quote("t1")])
        }
        script += run(S.selectJobsByKey, ["key": quote(key)])
        script += run(S.selectJobsByState, ["state": quote("queued")])
        script += run(S.selectJob, ["id": quote("j1")])
        script += run(S.deleteCourseHoles, ["course_id": quote("c1")])
        script += run(S.deleteUnusedHeightfields, [:])
        script += run("SELECT count(*) FROM heightfields", [:])
        let (out, err) = try sqlite(script)
        XCTAssertEqual(err, "")
        let lines = out.split(separator: "\n").map(String.init)
        guard lines.count == 9 else { return XCTFail("unexpected output:\n\(out)") }
        XCTAssertEqual(lines[0], "c1|Course 1|SF|CA")
        XCTAssertEqual(lines[1], "3|2.0|1.0|0.5|0.0|\(hash)|\(hf.nx)|\(hf.nz)|0.5|1|1|it's here|imported|0")
        XCTAssertEqual(lines[2], "\(4 * hf.nx * hf.nz)|\(String(format: "%08X", UInt32(bigEndian: hf.heights[0].bitPattern.littleEndian)))")
        XCTAssertEqual(lines[3], "{\"bestLine\":{}}")
        XCTAssertEqual(lines[4].split(separator: "|").first, "j1", "by key, in submission order")
        XCTAssertEqual(lines[5].split(separator: "|").first, "j2")
        XCTAssertEqual(lines[6].split(separator: "|").first, "j2", "j1 is running now; j2 is the only queued one")
        let j1 = lines[7].split(separator: "|", omittingEmptySubsequences: false)
        XCTAssertEqual(j1[2], "bestline")
        XCTAssertEqual(j1[3], "running")
        XCTAssertEqual(try JobRecord.request(fromText: String(j1[4])), request)
        XCTAssertEqual(lines.last, "0")
    }

    /// Migration 2 on a database made by migration 1: existing holes keep their (imported)
    /// heightfield; holes with only traced files can then be stored, and must have one or the other.
    func testMigrationTwoKeepsExistingHolesAndAcceptsSourceOnlyHoles() throws {
        typealias S = PuttingSchema.Statement
        let used = String(repeating: "a", count: 64), unused = String(repeating: "b", count: 64)
        var setup = "PRAGMA foreign_keys = ON;\nBEGIN;\n\(PuttingSchema.migrations[0].sql)\nCOMMIT;\n"
        setup += "INSERT INTO courses (id, name) VALUES ('c', 'C');\n"
        for hash in [used, unused] {
            setup += "INSERT INTO heightfields (hash, nx, nz, resolution_ft, x_min_ft, z_min_ft, heights) VALUES ('\(hash)', 2, 2, 0.5, 0, 0, zeroblob(16));\n"
        }
        setup += "INSERT INTO holes (course_id, number, green_width_ft, green_height_ft, heightfield_hash, source) VALUES ('c', 1, 2, 1, '\(used)', 'old');\n"
        for m in PuttingSchema.migrations.dropFirst() { setup += "BEGIN;\n\(m.sql)\nCOMMIT;\n" }
        func hole(_ number: Int, hash: String?, traced: Bool) -> String {
            run(S.upsertHole, ["course_id": quote("c"), "number": "\(number)", "green_width_ft": "20", "green_height_ft": "16",
                               "hole_x_ft": "NULL", "hole_z_ft": "NULL", "heightfield_hash": hash.map(quote) ?? "NULL",
                               "heightfield_origin": hash == nil ? "NULL" : quote("processed"), "boundary_json": "NULL",
                               "contours_json": quote("[]"), "contour_interval_ft": "NULL", "image_w_px": "NULL", "image_h_px": "NULL",
                               "source": quote("new"), "traced_boundary_file": traced ? quote("b.json") : "NULL",
                               "traced_boundary": traced ? quote("{}") : "NULL", "traced_contours_file": traced ? quote("c.json") : "NULL",
                               "traced_contours": traced ? quote("{}") : "NULL"])
        }
        var script = ".mode list\n.separator |\n" + setup + "PRAGMA foreign_key_check;\n"
        script += hole(2, hash: nil, traced: true)
        script += run(S.selectHoleSummaries, ["course_id": quote("c")])
        script += run(S.deleteUnusedHeightfields, [:])
        script += "SELECT hash = '\(used)' FROM heightfields;\n"
        script += run(S.selectHole, ["course_id": quote("c"), "number": "2"])
        let (out, err) = try sqlite(script)
        XCTAssertEqual(err, "")
        let lines = out.split(separator: "\n").map(String.init)
        guard lines.count == 4 else { return XCTFail("unexpected output:\n\(out)") }
        XCTAssertEqual(lines[0], "1|2.0|1.0|||\(used)|2|2|0.5|0|0|old|imported|0")
        XCTAssertEqual(lines[1], "2|20.0|16.0|||||||0|0|new||1")
        XCTAssertEqual(lines[2], "1", "the unused heightfield is deleted, the used one kept (a NULL hash does not block NOT IN)")
        XCTAssertEqual(lines[3], "20.0|16.0|||||[]||||new||||||||b.json|{}|c.json|{}")

        // A hole with neither a heightfield nor traced files, or a hash without an origin, is refused.
        for bad in [hole(3, hash: nil, traced: false),
                    hole(3, hash: used, traced: false).replacingOccurrences(of: "'processed'", with: "NULL")] {
            let (_, refused) = try sqlite(setup + bad)
            XCTAssertTrue(refused.contains("CHECK constraint failed"), refused)
        }
    }

    /// Migration 3 on a database with a best-line job: the job is a `bestline` one; book positions are
    /// stored by key and place (a second write of a place replaces it) and read back by key; a book job
    /// keeps its request and kind.
    func testMigrationThreeKeepsJobsAndStoresBookPositions() throws {
        typealias S = PuttingSchema.Statement
        let key = String(repeating: "k", count: 64), other = String(repeating: "o", count: 64)
        var script = ".mode list\n.separator |\n"
        for m in PuttingSchema.migrations.prefix(2) { script += "BEGIN;\n\(m.sql)\nCOMMIT;\n" }
        script += "INSERT INTO jobs (id, key, state, request_json, created_at, updated_at, seq) VALUES ('old', '\(key)', 'queued', '{}', 't', 't', 1);\n"
        for m in PuttingSchema.migrations.dropFirst(2) { script += "BEGIN;\n\(m.sql)\nCOMMIT;\n" }
        script += run(S.selectJob, ["id": quote("old")])
        let request = BookRequest(course: "c", hole: 2, flag: PointFt(x: 1.5, z: -2), spacingFt: 4)
        let job = JobRecord(id: "b1", key: key, state: .queued, work: .book(request), createdAt: "t0", updatedAt: "t0")
        script += run(S.upsertJob, ["id": quote("b1"), "key": quote(key), "kind": quote(job.work.kind), "state": quote("queued"),
                                    "request_json": quote(job.requestText), "error": "NULL", "progress": "0", "attempts": "0",
                                    "created_at": quote("t0"), "updated_at": quote("t0")])
        for (k, x, json) in [(key, "1.5", "a"), (key, "-0.5", "b"), (key, "1.5", "c"), (other, "1.5", "d")] {
            script += run(S.upsertBookPosition, ["book_key": quote(k), "x_ft": x, "z_ft": "2.0", "entry_json": quote(json), "created_at": quote("t")])
        }
        script += run(S.selectBookPositions + " ORDER BY x_ft", ["book_key": quote(key)])
        script += run(S.selectJob, ["id": quote("b1")])
        let (out, err) = try sqlite(script)
        XCTAssertEqual(err, "")
        let lines = out.split(separator: "\n").map(String.init)
        guard lines.count == 4 else { return XCTFail("unexpected output:\n\(out)") }
        XCTAssertEqual(lines[0].split(separator: "|", omittingEmptySubsequences: false)[2], "bestline", "jobs made before are best-line jobs")
        XCTAssertEqual(lines[1], "-0.5|2.0|b")
        XCTAssertEqual(lines[2], "1.5|2.0|c", "a place written again is replaced")
        let b1 = lines[3].split(separator: "|", omittingEmptySubsequences: false)
        XCTAssertEqual(b1[2], "book")
        XCTAssertEqual(try JobRecord.work(kind: String(b1[2]), fromText: String(b1[4])), .book(request))
        XCTAssertEqual(errorMessage { try JobRecord.work(kind: "golf", fromText: "{}") }, "putting storage: a stored job has an unknown kind 'golf'")
        // A kind the schema does not know, or a key that is not a hash, is refused.
        var bad = ""
        for m in PuttingSchema.migrations { bad += m.sql + "\n" }
        let (_, refusedKind) = try sqlite(bad + "INSERT INTO jobs (id, key, kind, state, request_json, created_at, updated_at, seq) VALUES ('x', 'k', 'golf', 'queued', '{}', 't', 't', 1);")
        XCTAssertTrue(refusedKind.contains("CHECK constraint failed"), refusedKind)
        let (_, refusedKey) = try sqlite(bad + "INSERT INTO book_positions (book_key, x_ft, z_ft, entry_json, created_at) VALUES ('short', 1, 2, '{}', 't');")
        XCTAssertTrue(refusedKey.contains("CHECK constraint failed"), refusedKey)
    }

    func testTheSchemaRefusesInconsistentRows() throws {
        var script = ""
        for m in PuttingSchema.migrations { script += m.sql + "\n" }
        script += run("INSERT INTO heightfields (hash, nx, nz, resolution_ft, x_min_ft, z_min_ft, heights) VALUES (:h, 2, 2, 0.5, 0, 0, X'00')",
                      ["h": quote(String(repeating: "a", count: 64))])
        let (_, err) = try sqlite(script)
        XCTAssertTrue(err.contains("CHECK constraint failed"), err)
    }

    func testStoredTextFormsRoundTrip() throws {
        let hole = Hole(courseID: "c", number: 1, greenWidthFt: 1, greenHeightFt: 1,
                        heightfield: try GreenGenerator.plane(widthFt: 1, depthFt: 1),
                        boundary: PolygonFt(points: [PointFt(x: 0.1, z: -2), PointFt(x: 3, z: 4), PointFt(x: -1, z: 0)]),
                        contours: [ContourLine(heightFt: 0.25, points: [PointFt(x: 1, z: 2), PointFt(x: 3, z: 4)])])
        XCTAssertEqual(try ContourLine.lines(fromText: hole.contoursText), hole.contours)
        XCTAssertEqual(PolygonFt(json: try JSONParserShim.parse(hole.boundaryText ?? "")), hole.boundary)
        XCTAssertEqual(errorMessage { try ContourLine.lines(fromText: "{") }, "putting storage: stored contours are not a JSON list")
    }
}

import ClubhouseJSON
enum JSONParserShim {
    static func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }
}
