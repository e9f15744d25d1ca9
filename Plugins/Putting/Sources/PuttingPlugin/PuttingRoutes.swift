// The putting plugin's HTTP routes (under /api/putting/ on `clubhouse serve --http`), and GreenReader's
// REST API as a compatibility mount (`"http": {"mount": {"putting": "/"}}` in plugins.json): the
// original app's paths, field names and job poll, answered by the `greenreader …` commands below from
// the same PuttingService the CLI uses. Field by field: shared/domain/front-door.md, Host/HTTP.md.

import ClubhouseJSON
import PluginKit
import PuttingCore

extension Putting {
    static let routes: [Route] = [
        .get("/courses", command: "courses"),
        .get("/courses/{course}/holes", command: "holes"),
        .post("/courses/{course}/holes/{hole}/bestline", command: "bestline", acceptedIf: "job"),
        .post("/courses/{course}/holes/{hole}/roll", command: "roll"),
        .get("/courses/{course}/holes/{hole}/green.svg", command: "render", output: .file("svg", type: "image/svg+xml")),
        .get("/courses/{course}/holes/{hole}/green.gltf", command: "mesh", output: .file("out", type: "model/gltf+json")),
        .post("/courses/{course}/holes/{hole}/book", command: "book", acceptedIf: "job"),
        .get("/jobs/{id}", command: "job"),
        // The panel draws the green from its heightfield (GreenReader's files, under the plugin's prefix).
        Route(.get, "/courses/{courseId}/holes/{holeNum}/heightfield.json", command: "greenreader file",
              output: .file("out", type: "application/json"), access: .read),
        Route(.get, "/courses/{courseId}/holes/{holeNum}/heightfield.bin", command: "greenreader file",
              output: .file("out", type: "application/octet-stream"), access: .read),

        // GreenReader's API, where the site mounts it.
        .get("/courses", command: "greenreader courses", mount: true),
        .get("/courses/{courseId}", command: "greenreader course", mount: true),
        Route(.get, "/courses/{courseId}/holes/{holeNum}", command: "greenreader hole", mount: true, prefixArgument: "base"),
        Route(.get, "/courses/{courseId}/holes/{holeNum}/boundary.json", command: "greenreader file",
              output: .file("out", type: "application/json"), mount: true, access: .read),
        Route(.get, "/courses/{courseId}/holes/{holeNum}/contours.json", command: "greenreader file",
              output: .file("out", type: "application/json"), mount: true, access: .read),
        Route(.get, "/courses/{courseId}/holes/{holeNum}/heightfield.json", command: "greenreader file",
              output: .file("out", type: "application/json"), mount: true, access: .read),
        Route(.get, "/courses/{courseId}/holes/{holeNum}/heightfield.bin", command: "greenreader file",
              output: .file("out", type: "application/octet-stream"), mount: true, access: .read),
        .post("/courses/{courseId}/holes/{holeNum}/bestline", command: "greenreader bestline", acceptedIf: "jobId", mount: true),
        .get("/courses/{courseId}/holes/{holeNum}/bestline/{jobId}", command: "greenreader job", mount: true),
    ].map(GreenReaderAPI.fixFileName)

    static let greenReaderCommands: [Command<Putting>] = [
        Command("greenreader courses", summary: "GreenReader's course list: {courses: [{id, name, city, state, numHoles}]}",
                reply: "{courses: [{id, name, city, state, numHoles}]}") { plugin, _ in
            Reply(data: try GreenReaderAPI.courses(plugin.service.courses()))
        },
        Command("greenreader course", summary: "GreenReader's course: {course: {id, name, numHoles, holes: [{holeNum, greenWidthFt, greenHeightFt, status}]}}",
                arguments: GreenReaderCourseArguments.self,
                reply: "{course: {id, name, city, state, numHoles, holes: [{holeNum, greenWidthFt, greenHeightFt, status, processed}]}}") { plugin, a, _ in
            Reply(data: GreenReaderAPI.course(try plugin.service.holes(course: a.courseId)))
        },
        Command("greenreader hole", summary: "GreenReader's hole: {hole: {courseId, holeNum, greenWidthFt, greenHeightFt, sourceUrls, processedUrls}}",
                arguments: GreenReaderHoleArguments.self,
                reply: "{hole: {courseId, holeNum, greenWidthFt, greenHeightFt, holeXFt, holeZFt, status, sourceUrls: {map.png, contour.png, boundary.json, contours.json}, processedUrls: {heightfield.json, heightfield.bin}}}") { plugin, a, _ in
            let hole = try plugin.service.hole(course: a.courseId, number: a.holeNum)
            return Reply(data: GreenReaderAPI.hole(hole, base: a.base))
        },
        Command("greenreader file", summary: "One of a hole's GreenReader files (boundary.json, contours.json, heightfield.json, heightfield.bin)",
                arguments: GreenReaderFileArguments.self, reply: "{name, bytes}") { plugin, a, _ in
            let bytes = try GreenReaderAPI.file(a.name.rawValue, course: a.courseId, hole: a.holeNum, service: plugin.service)
            try Files.write(a.out, bytes)
            return Reply(data: ["name": .string(a.name.rawValue), "bytes": .int(bytes.count)])
        },
        Command("greenreader bestline", summary: "GreenReader's best line: the cached {bestLine} at once, or a job {jobId, status: \"queued\"} to poll",
                arguments: GreenReaderBestLineArguments.self,
                reply: "{bestLine: {ballXFt, ballZFt, holeXFt, holeZFt, stimpFt, aimOffsetDeg, speedFps, v0XFps, v0ZFps, holed, missFt, tEndS, pathXFt, pathZFt, pathYFt, …}} or {jobId, status}") { plugin, a, _ in
            var request = BestLineRequest(course: a.courseId, hole: a.holeNum, ball: PointFt(x: a.ballXFt, z: a.ballZFt),
                                          flag: PointFt(x: a.holeXFt, z: a.holeZFt), stimpFt: a.stimpFt ?? plugin.defaultStimp,
                                          model: plugin.defaultModel)
            request.finishPastFt = plugin.defaultPastInches / 12
            request.errors = plugin.strokeErrors
            let outcome = try plugin.storage.transaction {
                try plugin.service.bestLine(request, options: BestLineOptions(async: true, useCache: true))
            }
            switch outcome {
            case .result(let result, _):
                return Reply(data: ["bestLine": result.json["bestLine"] ?? .null])
            case .submitted(let id, let state, _):
                let reply = Reply(data: ["jobId": .string(id), "status": .string(state.rawValue)])
                return state == .queued ? reply.continuing(with: "job run", arguments: ["id": .string(id)]) : reply
            }
        },
        Command("greenreader job", summary: "GreenReader's job poll: {jobId, status} while it runs, {bestLine} once done",
                arguments: GreenReaderJobArguments.self, reply: "{jobId, status: queued|running|failed, error?} or {bestLine: {…}}") { plugin, a, _ in
            let id = a.jobId, course = a.courseId, hole = a.holeNum
            // A finished job's answer is its cached result as stored ({"bestLine": …}): sent as it is.
            if let stored = try GreenReaderAPI.storedAnswer(job: id, course: course, hole: hole, store: plugin.service.store) {
                return Reply(rawData: stored)
            }
            return Reply(data: try GreenReaderAPI.job(plugin.service.job(id: id), course: course, hole: hole))
        }
        // Its reply is the job's row and stored result in the plugin's database, nothing else (no clock, no
        // config): `serve --http` may answer a poll again from the reply it kept until the database or another
        // command of the plugin changes anything (ABI 1.7 "cache").
        .cached(maxAgeMilliseconds: 60_000),
    ]
}

/// GreenReader's JSON shapes over PuttingCore's results.
enum GreenReaderAPI {
    static let fileNames = ["boundary.json", "contours.json", "heightfield.json", "heightfield.bin"]

    /// The four file routes share one command: each fixes `name` to its path's last segment.
    static func fixFileName(_ route: Route) -> Route {
        guard route.command == "greenreader file", let last = route.path.split(separator: "/").last else { return route }
        var fixed = route
        fixed.set = ["name": .string(String(last))]
        return fixed
    }

    static func courses(_ listing: CourseListing) throws -> JSONValue {
        ["courses": .array(listing.courses.map { c in
            ["id": .string(c.course.id), "name": .string(c.course.name),
             "city": c.course.city.map(JSONValue.string) ?? .null, "state": c.course.state.map(JSONValue.string) ?? .null,
             "numHoles": .int(c.holes)]
        })]
    }

    static func course(_ listing: HoleListing) -> JSONValue {
        let c = listing.course
        let holes: [JSONValue] = listing.holes.map { h in
            ["holeNum": .int(h.number), "greenWidthFt": .double(h.greenWidthFt), "greenHeightFt": .double(h.greenHeightFt),
             "status": .string(h.status.rawValue), "processed": .bool(h.status != .sourceOnly)]
        }
        return ["course": ["id": .string(c.id), "name": .string(c.name), "city": c.city.map(JSONValue.string) ?? .null,
                           "state": c.state.map(JSONValue.string) ?? .null, "numHoles": .int(listing.holes.count),
                           "holes": .array(holes)]]
    }

    static func hole(_ hole: Hole, base: String) -> JSONValue {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        let prefix = "\(root)/courses/\(hole.courseID)/holes/\(hole.number)/"
        let traced = hole.traced != nil
        let processed = hole.heightfield != nil
        func link(_ name: String, _ present: Bool) -> JSONValue { present ? .string(prefix + name) : .null }
        var o = JSONObject()
        o["courseId"] = .string(hole.courseID)
        o["holeNum"] = .int(hole.number)
        o["greenWidthFt"] = .double(hole.greenWidthFt)
        o["greenHeightFt"] = .double(hole.greenHeightFt)
        o["holeXFt"] = hole.holePosition.map { .double($0.x) } ?? .null
        o["holeZFt"] = hole.holePosition.map { .double($0.z) } ?? .null
        o["status"] = .string(hole.summary.status.rawValue)
        // The map and contour images are not kept (the plugin draws the green as SVG: /api/putting/…/green.svg).
        o["sourceUrls"] = ["map.png": .null, "contour.png": .null,
                           "boundary.json": link("boundary.json", traced), "contours.json": link("contours.json", traced)]
        o["processedUrls"] = ["heightfield.json": link("heightfield.json", processed), "heightfield.bin": link("heightfield.bin", processed)]
        return ["hole": .object(o)]
    }

    static func file(_ name: String, course: String, hole number: Int, service: PuttingService) throws -> [UInt8] {
        let hole = try service.hole(course: course, number: number)
        switch name {
        case "boundary.json", "contours.json":
            guard let traced = hole.traced else {
                throw PluginError.notFound("hole \(number) of \(course) keeps no traced \(name) (it was imported from a heightfield alone)")
            }
            return Array((name == "boundary.json" ? traced.boundaryText : traced.contoursText).utf8)
        default:
            let export = try service.exportHole(course: course, number: number)
            let wanted = name.hasSuffix(".bin") ? ".bin" : ".json"
            guard let file = export.files.first(where: { $0.name.hasSuffix(wanted) }) else {
                throw PluginError.notFound("hole \(number) of \(course) has no \(name)")
            }
            return file.bytes
        }
    }

    /// The cached result of a completed best-line job for this hole, as the store holds it (the text
    /// `{"bestLine": {…}}` the service wrote), or nil when the job is anything else.
    static func storedAnswer(job id: String, course: String, hole: Int, store: any PuttingStore) throws -> [UInt8]? {
        guard let job = try store.job(id: id), job.state == .completed, case .bestLine(let request) = job.work,
              request.course == course, request.hole == hole, let text = try store.result(key: job.key),
              text.hasPrefix("{\"bestLine\":") else { return nil }
        return Array(text.utf8)
    }

    static func job(_ status: JobStatus, course: String, hole: Int) throws -> JSONValue {
        guard case .bestLine(let request) = status.job.work, request.course == course, request.hole == hole else {
            throw PluginError.notFound("no best-line job \(status.job.id) for hole \(hole) of \(course)")
        }
        switch status.job.state {
        case .completed:
            guard let line = status.result?.json["bestLine"] else {
                throw PluginError.notFound("job \(status.job.id) is done, but its result is no longer cached: ask for the best line again")
            }
            return ["bestLine": line]
        case .failed:
            return ["jobId": .string(status.job.id), "status": "failed", "error": status.job.error.map(JSONValue.string) ?? .null]
        case .queued, .running:
            return ["jobId": .string(status.job.id), "status": .string(status.job.state.rawValue)]
        }
    }
}
