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

    private func course(_ row: Row) -> Course {
        Course(id: row["id"].string ?? "", name: row["name"].string ?? "", city: row["city"].string, state: row["state"].string)
    }

    func course(id: String) throws(PuttingError) -> Course? {
        try guarded { try storage.queryOne(S.selectCourse, ["id": .text(id)]).map(course) }
    }

    func courses() throws(PuttingError) -> [Course] {
        try guarded { try storage.query(S.selectCourses).map(course) }
    }

    func holeSummaries(courseID: String) throws(PuttingError) -> [HoleSummary] {
        let rows = try guarded {
            try storage.query(S.selectHoleSummaries, ["course_id": .text(courseID)])
        }
        var summaries: [HoleSummary] = []
        for row in rows {
            let number = row["number"].int ?? 0
            let position: PointFt? = row["hole_x_ft"].double.flatMap { x in row["hole_z_ft"].double.map { PointFt(x: x, z: $0) } }
            let hash = row["heightfield_hash"].string
            let status: HoleStatus
            switch (hash, row["heightfield_origin"].string.flatMap(HeightfieldOrigin.init(rawValue:))) {
            case (nil, _): status = .sourceOnly
            case (_?, .processed?): status = .processed
            case (_?, .imported?): status = .imported
            case (_?, nil): throw .storage("\(courseID) hole \(number) has a heightfield of unknown origin: re-import the hole")
            }
            summaries.append(HoleSummary(courseID: courseID, number: number, greenWidthFt: row["green_width_ft"].double ?? 0,
                                         greenHeightFt: row["green_height_ft"].double ?? 0, holePosition: position,
                                         nx: row["nx"].int, nz: row["nz"].int,
                                         resolutionFt: row["resolution_ft"].double, heightfieldHash: hash, status: status,
                                         hasBoundary: (row["has_boundary"].int ?? 0) != 0, contourCount: row["contour_count"].int ?? 0,
                                         traced: (row["has_traced"].int ?? 0) != 0, source: row["source"].string ?? ""))
        }
        return summaries
    }

    func hole(courseID: String, number: Int) throws(PuttingError) -> Hole? {
        let found = try guarded {
            try storage.queryOne(S.selectHole, ["course_id": .text(courseID), "number": SQLValue(number)])
        }
        guard let row = found else { return nil }
        var boundary: PolygonFt?
        if let text = row["boundary_json"].string {
            guard let value = try? JSONParser.parse(text), let polygon = PolygonFt(json: value) else {
                throw .storage("the stored boundary of \(courseID) hole \(number) is damaged: re-import the hole")
            }
            boundary = polygon
        }
        var traced: TracedSourceFiles?
        if let boundaryFile = row["traced_boundary_file"].string, let boundaryText = row["traced_boundary"].string,
           let contoursFile = row["traced_contours_file"].string, let contoursText = row["traced_contours"].string
        {
            traced = TracedSourceFiles(boundaryFile: boundaryFile, boundaryText: boundaryText, contoursFile: contoursFile,
                                       contoursText: contoursText)
        }
        let position: PointFt? = row["hole_x_ft"].double.flatMap { x in row["hole_z_ft"].double.map { PointFt(x: x, z: $0) } }
        var hole = Hole(courseID: courseID, number: number, greenWidthFt: row["green_width_ft"].double ?? 0,
                        greenHeightFt: row["green_height_ft"].double ?? 0, holePosition: position, boundary: boundary,
                        contours: try ContourLine.lines(fromText: row["contours_json"].string ?? "[]"),
                        contourIntervalFt: row["contour_interval_ft"].double, traced: traced, imageWidthPx: row["image_w_px"].int,
                        imageHeightPx: row["image_h_px"].int, source: row["source"].string ?? "")
        if let hash = row["heightfield_hash"].string {
            let grid = Heightfield.Grid(nx: row["nx"].int ?? 0, nz: row["nz"].int ?? 0, resolutionFt: row["resolution_ft"].double ?? 0,
                                        xMinFt: row["x_min_ft"].double ?? 0, zMinFt: row["z_min_ft"].double ?? 0)
            let heightfield: Heightfield
            do {
                heightfield = try Heightfield(grid: grid, binary: row["heights"].bytes ?? [], binaryName: "stored heightfield of \(courseID) hole \(number)")
            } catch {
                throw .heightfield(error)
            }
            guard let origin = row["heightfield_origin"].string.flatMap(HeightfieldOrigin.init(rawValue:)) else {
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
        let rows = try guarded { try storage.query(S.selectBookPositions, ["book_key": .text(bookKey)]) }
        var out: [StoredBookPosition] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            guard let x = row["x_ft"].double, let z = row["z_ft"].double, let json = row["entry_json"].string else {
                throw .storage("a stored book position of \(bookKey.prefix(12)) is damaged")
            }
            out.append(StoredBookPosition(xFt: x, zFt: z, json: json))
        }
        return out
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

    private func job(_ row: Row) throws(PuttingError) -> JobRecord {
        guard let state = row["state"].string.flatMap(JobState.init(rawValue:)) else {
            throw .storage("job \(row["id"].string ?? "?") has an unknown state")
        }
        let work = try JobRecord.work(kind: row["kind"].string ?? "bestline", fromText: row["request_json"].string ?? "")
        return JobRecord(id: row["id"].string ?? "", key: row["key"].string ?? "", state: state,
                         work: work, error: row["error"].string,
                         progress: row["progress"].double ?? 0, createdAt: row["created_at"].string ?? "",
                         updatedAt: row["updated_at"].string ?? "", attempts: row["attempts"].int ?? 0)
    }

    func job(id: String) throws(PuttingError) -> JobRecord? {
        guard let row = try guarded({ try storage.queryOne(S.selectJob, ["id": .text(id)]) }) else { return nil }
        return try job(row)
    }

    func jobs(states: [JobState]) throws(PuttingError) -> [JobRecord] {
        var out: [JobRecord] = []
        for state in states {
            for row in try guarded({ try storage.query(S.selectJobsByState, ["state": .text(state.rawValue)]) }) {
                out.append(try job(row))
            }
        }
        return out
    }

    func jobs(key: String) throws(PuttingError) -> [JobRecord] {
        var out: [JobRecord] = []
        for row in try guarded({ try storage.query(S.selectJobsByKey, ["key": .text(key)]) }) {
            out.append(try job(row))
        }
        return out
    }
}
