// PuttingStore on the plugin's SQLite database (PluginKit Storage), with the statements of
// PuttingSchema: parameters bound by name (the storage service looks them up), rows read by
// column name, statements from PluginKit's cache.

import ClubhouseJSON
import PluginKit
import PuttingCore

final class SQLPuttingStore: PuttingStore {
    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    private typealias S = PuttingSchema.Statement

    // Rows as records (PluginKit StoredRecords): a NULL or text where a number belongs is refused naming
    // the table and column (a storage error), never read as 0 or "".

    private struct CourseRecord: Decodable {
        var id: String, name: String, city: String?, state: String?
    }

    private struct HoleSummaryRecord: Decodable {
        var number: Int, green_width_ft: Double, green_height_ft: Double, hole_x_ft: Double?, hole_z_ft: Double?
        var heightfield_hash: String?, nx: Int?, nz: Int?, resolution_ft: Double?, has_boundary: Bool
        var contour_count: Int, source: String, heightfield_origin: String?, has_traced: Bool
    }

    private struct HoleRecord: Decodable {
        var green_width_ft: Double, green_height_ft: Double, hole_x_ft: Double?, hole_z_ft: Double?, heightfield_hash: String?
        var boundary_json: String?, contours_json: String, contour_interval_ft: Double?, image_w_px: Int?, image_h_px: Int?
        var source: String, heightfield_origin: String?
        var traced_boundary_file: String?, traced_boundary: String?, traced_contours_file: String?, traced_contours: String?
    }

    /// The grid of a hole's heightfield (NULL columns when the hole has none: read only when it has one).
    private struct GridRecord: Decodable {
        var nx: Int, nz: Int, resolution_ft: Double, x_min_ft: Double, z_min_ft: Double, heights: [UInt8]
    }

    private struct JobRow: Decodable {
        var id: String, key: String, kind: String, state: String, request_json: String, error: String?
        var progress: Double, attempts: Int, created_at: String, updated_at: String
    }

    private struct BookPositionRecord: Decodable {
        var x_ft: Double, z_ft: Double, entry_json: String
    }

    private func records<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [String: SQLValue] = [:], of table: String) throws -> [T] {
        try storage.query(sql, parameters).map { try $0.record(T.self, of: table, in: "putting") }
    }

    private func record<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [String: SQLValue], of table: String) throws -> T? {
        try storage.queryOne(sql, parameters).map { try $0.record(T.self, of: table, in: "putting") }
    }

    private func guarded<T>(_ body: () throws -> T) throws(PuttingError) -> T {
        do {
            return try body()
        } catch let error as PuttingError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    func replaceCourse(_ course: Course, holes: [Hole]) throws(PuttingError) {
        try guarded {
            try storage.transaction {
                try storage.run(S.upsertCourse, [
                    "id": .text(course.id), "name": .text(course.name), "city": SQLValue(course.city), "state": SQLValue(course.state),
                ])
                try storage.run(S.deleteCourseHoles, ["course_id": .text(course.id)])
                for hole in holes { try insert(hole) }
                try storage.run(S.deleteUnusedHeightfields)
            }
        }
    }

    func putHole(_ hole: Hole) throws(PuttingError) {
        try putHoles([hole])
    }

    func putHoles(_ holes: [Hole]) throws(PuttingError) {
        for id in Set(holes.map(\.courseID)) where try course(id: id) == nil { throw .unknownCourse(id) }
        try guarded {
            try storage.transaction {
                for hole in holes { try insert(hole) }
                try storage.run(S.deleteUnusedHeightfields)
            }
        }
    }

    private func insert(_ hole: Hole) throws {
        if let hf = hole.heightfield, let hash = hole.heightfieldHash {
            try storage.run(S.insertHeightfield, [
                "hash": .text(hash), "nx": SQLValue(hf.nx), "nz": SQLValue(hf.nz),
                "resolution_ft": .real(hf.resolutionFt), "x_min_ft": .real(hf.xMinFt), "z_min_ft": .real(hf.zMinFt),
                "heights": .blob(hf.binaryData()),
            ])
        }
        let hasHeightfield = hole.heightfield != nil
        try storage.run(S.upsertHole, [
            "course_id": .text(hole.courseID), "number": SQLValue(hole.number),
            "green_width_ft": .real(hole.greenWidthFt), "green_height_ft": .real(hole.greenHeightFt),
            "hole_x_ft": SQLValue(hole.holePosition?.x), "hole_z_ft": SQLValue(hole.holePosition?.z),
            "heightfield_hash": SQLValue(hasHeightfield ? hole.heightfieldHash : nil),
            "heightfield_origin": SQLValue(hasHeightfield ? hole.heightfieldOrigin?.rawValue : nil),
            "boundary_json": SQLValue(hole.boundaryText),
            "contours_json": .text(hole.contoursText), "contour_interval_ft": SQLValue(hole.contourIntervalFt),
            "image_w_px": SQLValue(hole.imageWidthPx), "image_h_px": SQLValue(hole.imageHeightPx), "source": .text(hole.source),
            "traced_boundary_file": SQLValue(hole.traced?.boundaryFile), "traced_boundary": SQLValue(hole.traced?.boundaryText),
            "traced_contours_file": SQLValue(hole.traced?.contoursFile), "traced_contours": SQLValue(hole.traced?.contoursText),
        ])
    }

    private func course(_ row: CourseRecord) -> Course {
        Course(id: row.id, name: row.name, city: row.city, state: row.state)
    }

    func course(id: String) throws(PuttingError) -> Course? {
        try guarded { try record(CourseRecord.self, S.selectCourse, ["id": .text(id)], of: "courses").map(course) }
    }

    func courses() throws(PuttingError) -> [Course] {
        try guarded { try records(CourseRecord.self, S.selectCourses, of: "courses").map(course) }
    }

    func holeSummaries(courseID: String) throws(PuttingError) -> [HoleSummary] {
        let rows = try guarded {
            try records(HoleSummaryRecord.self, S.selectHoleSummaries, ["course_id": .text(courseID)], of: "holes")
        }
        var summaries: [HoleSummary] = []
        for row in rows {
            let number = row.number
            let position: PointFt? = row.hole_x_ft.flatMap { x in row.hole_z_ft.map { PointFt(x: x, z: $0) } }
            let hash = row.heightfield_hash
            let status: HoleStatus
            switch (hash, row.heightfield_origin.flatMap(HeightfieldOrigin.init(rawValue:))) {
            case (nil, _): status = .sourceOnly
            case (_?, .processed?): status = .processed
            case (_?, .imported?): status = .imported
            case (_?, nil): throw .storage("\(courseID) hole \(number) has a heightfield of unknown origin: re-import the hole")
            }
            summaries.append(HoleSummary(courseID: courseID, number: number, greenWidthFt: row.green_width_ft,
                                         greenHeightFt: row.green_height_ft, holePosition: position, nx: row.nx, nz: row.nz,
                                         resolutionFt: row.resolution_ft, heightfieldHash: hash, status: status,
                                         hasBoundary: row.has_boundary, contourCount: row.contour_count,
                                         traced: row.has_traced, source: row.source))
        }
        return summaries
    }

    func hole(courseID: String, number: Int) throws(PuttingError) -> Hole? {
        let found = try guarded { () -> (HoleRecord, Row)? in
            guard let row = try storage.queryOne(S.selectHole, ["course_id": .text(courseID), "number": SQLValue(number)]) else { return nil }
            return (try row.record(HoleRecord.self, of: "holes", in: "putting"), row)
        }
        guard let (h, row) = found else { return nil }
        var boundary: PolygonFt?
        if let text = h.boundary_json {
            guard let value = try? JSONParser.parse(text), let polygon = PolygonFt(json: value) else {
                throw .storage("the stored boundary of \(courseID) hole \(number) is damaged: re-import the hole")
            }
            boundary = polygon
        }
        var traced: TracedSourceFiles?
        if let boundaryFile = h.traced_boundary_file, let boundaryText = h.traced_boundary,
           let contoursFile = h.traced_contours_file, let contoursText = h.traced_contours
        {
            traced = TracedSourceFiles(boundaryFile: boundaryFile, boundaryText: boundaryText, contoursFile: contoursFile,
                                       contoursText: contoursText)
        }
        let position: PointFt? = h.hole_x_ft.flatMap { x in h.hole_z_ft.map { PointFt(x: x, z: $0) } }
        var hole = Hole(courseID: courseID, number: number, greenWidthFt: h.green_width_ft,
                        greenHeightFt: h.green_height_ft, holePosition: position, boundary: boundary,
                        contours: try ContourLine.lines(fromText: h.contours_json),
                        contourIntervalFt: h.contour_interval_ft, traced: traced, imageWidthPx: h.image_w_px,
                        imageHeightPx: h.image_h_px, source: h.source)
        if let hash = h.heightfield_hash {
            // A hole whose heightfield row is missing (the LEFT JOIN gave NULLs) does not fit either.
            let g = try guarded { try row.record(GridRecord.self, of: "heightfields", in: "putting") }
            let grid = Heightfield.Grid(nx: g.nx, nz: g.nz, resolutionFt: g.resolution_ft, xMinFt: g.x_min_ft, zMinFt: g.z_min_ft)
            let heightfield: Heightfield
            do {
                heightfield = try Heightfield(grid: grid, binary: g.heights, binaryName: "stored heightfield of \(courseID) hole \(number)")
            } catch {
                throw .heightfield(error)
            }
            guard let origin = h.heightfield_origin.flatMap(HeightfieldOrigin.init(rawValue:)) else {
                throw .storage("\(courseID) hole \(number) has a heightfield of unknown origin: re-import the hole")
            }
            hole.setHeightfield(heightfield, origin: origin)
            // Keep the recorded hash: a mismatch with the heights is reported when the hole is used.
            hole.heightfieldHash = hash
        }
        return hole
    }

    func result(key: String) throws(PuttingError) -> String? {
        try guarded { try storage.queryOne(S.selectResult, ["key": .text(key)])?["result_json"].string }
    }

    func putResult(key: String, json: String) throws(PuttingError) {
        try guarded {
            try storage.run(S.upsertResult, ["key": .text(key), "result_json": .text(json), "created_at": .text(UTCClock.iso8601Now())])
        }
    }

    func putJob(_ job: JobRecord) throws(PuttingError) {
        try guarded { try write(job) }
    }

    private func write(_ job: JobRecord) throws {
        try storage.run(S.upsertJob, [
            "id": .text(job.id), "key": .text(job.key), "kind": .text(job.work.kind), "state": .text(job.state.rawValue),
            "request_json": .text(job.requestText), "error": SQLValue(job.error), "progress": .real(job.progress),
            "attempts": SQLValue(job.attempts), "created_at": .text(job.createdAt), "updated_at": .text(job.updatedAt),
        ])
    }

    func bookPositions(bookKey: String) throws(PuttingError) -> [StoredBookPosition] {
        try guarded {
            try records(BookPositionRecord.self, S.selectBookPositions, ["book_key": .text(bookKey)], of: "book_positions").map {
                StoredBookPosition(xFt: $0.x_ft, zFt: $0.z_ft, json: $0.entry_json)
            }
        }
    }

    func putBookPositions(bookKey: String, _ positions: [StoredBookPosition], job: JobRecord?) throws(PuttingError) {
        let now = UTCClock.iso8601Now()
        try guarded {
            try storage.transaction {
                for p in positions {
                    try storage.run(S.upsertBookPosition, ["book_key": .text(bookKey), "x_ft": .real(p.xFt), "z_ft": .real(p.zFt),
                                                           "entry_json": .text(p.json), "created_at": .text(now)])
                }
                if let job { try write(job) }
            }
        }
    }

    private func job(_ row: JobRow) throws(PuttingError) -> JobRecord {
        guard let state = JobState(rawValue: row.state) else {
            throw .storage("job \(row.id) has an unknown state")
        }
        let work = try JobRecord.work(kind: row.kind, fromText: row.request_json)
        return JobRecord(id: row.id, key: row.key, state: state, work: work, error: row.error, progress: row.progress,
                         createdAt: row.created_at, updatedAt: row.updated_at, attempts: row.attempts)
    }

    func job(id: String) throws(PuttingError) -> JobRecord? {
        guard let row = try guarded({ try record(JobRow.self, S.selectJob, ["id": .text(id)], of: "jobs") }) else { return nil }
        return try job(row)
    }

    func jobs(states: [JobState]) throws(PuttingError) -> [JobRecord] {
        var out: [JobRecord] = []
        for state in states {
            for row in try guarded({ try records(JobRow.self, S.selectJobsByState, ["state": .text(state.rawValue)], of: "jobs") }) {
                out.append(try job(row))
            }
        }
        return out
    }

    func jobs(key: String) throws(PuttingError) -> [JobRecord] {
        var out: [JobRecord] = []
        for row in try guarded({ try records(JobRow.self, S.selectJobsByKey, ["key": .text(key)], of: "jobs") }) {
            out.append(try job(row))
        }
        return out
    }
}
