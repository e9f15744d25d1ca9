// The original apps against a club's host: every request shared/domain/front-door.md documents for
// GreenReader's REST API (courses, a course, a hole, a best line answered as a job and polled, then
// cached) and for voyage's daily-challenge reads (the dates, the challenge of a date, PostgREST's shape),
// replayed through the site's mounts with a token, each documented field checked for its type.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPCompatibilityMountTests: XCTestCase {
    func testGreenReadersDocumentedRequests() throws {
        let presidio = try Products.sharedData("putting/presidio")
        let access = TestAccess()
        access.addToken("gr-token", name: "GreenReader on Ann's phone", scopes: ["putting:*"])
        let server = try InProcessHTTPServer(plugins: ["putting": "PuttingPlugin"], siteHTTP: #"{"mount": {"putting": "/"}}"#, access: access)
        defer { server.stop() }
        XCTAssertEqual(server.run("putting", ["course", "import", presidio, "--id", "presidio", "--name", "Presidio", "--city", "San Francisco", "--state", "CA"]).status, .ok)
        let auth = [("Authorization", "Bearer gr-token")]
        let c = try RawHTTPConnection(port: server.port)

        // Without the token: 401, as JSON.
        let refused = try c.request("GET", "/courses")
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(try refused.json()["error"]?["status"], "unauthenticated")

        // GET /courses → {courses: [{id, name, city, state, numHoles}]}
        let courses = try c.request("GET", "/courses", headers: auth)
        XCTAssertEqual(courses.status, 200)
        XCTAssertEqual(courses.header("content-type"), "application/json; charset=utf-8")
        let course = try XCTUnwrap(try courses.json()["courses"]?.arrayValue?.first)
        XCTAssertEqual(course["id"], "presidio")
        XCTAssertEqual(course["name"], "Presidio")
        XCTAssertEqual(course["city"], "San Francisco")
        XCTAssertEqual(course["state"], "CA")
        XCTAssertEqual(course["numHoles"], 9)

        // GET /courses/{courseId} → {course: {id, name, numHoles, holes: [...]}} (holes: number, dimensions, status)
        let one = try c.request("GET", "/courses/presidio", headers: auth)
        XCTAssertEqual(one.status, 200)
        let detail = try XCTUnwrap(try one.json()["course"])
        XCTAssertEqual(detail["id"], "presidio")
        XCTAssertEqual(detail["name"], "Presidio")
        XCTAssertEqual(detail["numHoles"], 9)
        let holes = try XCTUnwrap(detail["holes"]?.arrayValue)
        XCTAssertEqual(holes.count, 9)
        XCTAssertEqual(holes[0]["holeNum"], 1)
        XCTAssertNotNil(holes[0]["greenWidthFt"]?.doubleValue)
        XCTAssertNotNil(holes[0]["greenHeightFt"]?.doubleValue)
        XCTAssertNotNil(holes[0]["status"]?.stringValue)

        // GET /courses/{courseId}/holes/{holeNum} → {hole: {courseId, holeNum, greenWidthFt, greenHeightFt, sourceUrls, processedUrls}}
        let holeResponse = try c.request("GET", "/courses/presidio/holes/1", headers: auth)
        XCTAssertEqual(holeResponse.status, 200)
        let hole = try XCTUnwrap(try holeResponse.json()["hole"])
        XCTAssertEqual(hole["courseId"], "presidio")
        XCTAssertEqual(hole["holeNum"], 1)
        XCTAssertEqual(try XCTUnwrap(hole["greenWidthFt"]?.doubleValue), 102.446, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(hole["greenHeightFt"]?.doubleValue), 83.705, accuracy: 0.001)
        let sources = try XCTUnwrap(hole["sourceUrls"]?.objectValue)
        XCTAssertEqual(sources.keys.sorted(), ["boundary.json", "contour.png", "contours.json", "map.png"])
        let processed = try XCTUnwrap(hole["processedUrls"]?.objectValue)
        XCTAssertEqual(processed.keys.sorted(), ["heightfield.bin", "heightfield.json"])
        // The links work, and give the original files' bytes.
        let bin = try c.request("GET", try XCTUnwrap(processed["heightfield.bin"]?.stringValue), headers: auth)
        XCTAssertEqual(bin.status, 200)
        XCTAssertEqual(bin.header("content-type"), "application/octet-stream")
        XCTAssertEqual(bin.body.count, 139_256)
        let boundary = try c.request("GET", try XCTUnwrap(sources["boundary.json"]?.stringValue), headers: auth)
        XCTAssertEqual(boundary.body, Array(try Data(contentsOf: URL(fileURLWithPath: presidio + "/hole_1/Hole_1_boundary.json"))))

        // POST …/bestline {ballXFt, ballZFt, holeXFt, holeZFt, stimpFt} → a job {jobId, status: "queued"} …
        let putt = Array(#"{"ballXFt": -10, "ballZFt": 5, "holeXFt": 0, "holeZFt": 0, "stimpFt": 10}"#.utf8)
        let submitted = try c.request("POST", "/courses/presidio/holes/1/bestline", headers: auth + [("Content-Type", "application/json")], body: putt)
        XCTAssertEqual(submitted.status, 202, submitted.text)
        let job = try submitted.json()
        let jobID = try XCTUnwrap(job["jobId"]?.stringValue)
        XCTAssertEqual(job["status"], "queued")
        // … polled at GET …/bestline/{jobId}: {jobId, status} while it runs, {bestLine} once done.
        var line: JSONValue?
        let deadline = Date().addingTimeInterval(120)
        while line == nil && Date() < deadline {
            let poll = try c.request("GET", "/courses/presidio/holes/1/bestline/\(jobID)", headers: auth)
            XCTAssertEqual(poll.status, 200, poll.text)
            let value = try poll.json()
            if let done = value["bestLine"] {
                line = done
            } else {
                XCTAssertEqual(value["jobId"]?.stringValue, jobID)
                XCTAssertTrue(["queued", "running"].contains(value["status"]?.stringValue ?? ""), poll.text)
                usleep(200_000)
            }
        }
        let bestLine = try XCTUnwrap(line, "the job did not finish within 120 s")
        for field in ["aimOffsetDeg", "speedFps", "missFt"] { XCTAssertNotNil(bestLine[field]?.doubleValue, field) }
        XCTAssertNotNil(bestLine["holed"]?.boolValue)
        for field in ["pathXFt", "pathZFt", "pathYFt"] {
            XCTAssertGreaterThan(bestLine[field]?.arrayValue?.count ?? 0, 10, field)
            XCTAssertNotNil(bestLine[field]?.arrayValue?.first?.doubleValue, field)
        }
        XCTAssertEqual(bestLine["ballXFt"]?.doubleValue, -10)
        XCTAssertEqual(bestLine["stimpFt"]?.doubleValue, 10)
        // The same putt again: the cached result at once.
        let cached = try c.request("POST", "/courses/presidio/holes/1/bestline", headers: auth, body: putt)
        XCTAssertEqual(cached.status, 200)
        XCTAssertEqual(try cached.json()["bestLine"]?["aimOffsetDeg"], bestLine["aimOffsetDeg"])

        // What is not there is 404; a putt off the green is 400: both as JSON errors.
        let missing = try c.request("GET", "/courses/augusta", headers: auth)
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try missing.json()["error"]?["status"], "not-found")
        XCTAssertEqual(try c.request("GET", "/courses/presidio/holes/1/bestline/j0000000000000000", headers: auth).status, 404)
        let off = try c.request("POST", "/courses/presidio/holes/1/bestline", headers: auth,
                                body: Array(#"{"ballXFt": 900, "ballZFt": 5, "holeXFt": 0, "holeZFt": 0, "stimpFt": 10}"#.utf8))
        XCTAssertEqual(off.status, 400, off.text)
    }

    func testVoyagesDailyChallengeReadsInPostgRESTsShape() throws {
        let access = TestAccess()
        access.addToken("sb_publishable_club", name: "voyage app", scopes: ["globe:read"])
        let server = try InProcessHTTPServer(plugins: ["globe": "GlobePlugin"], siteHTTP: #"{"mount": {"globe": "/"}}"#, access: access)
        defer { server.stop() }
        let c = try RawHTTPConnection(port: server.port)
        XCTAssertEqual(try c.request("GET", "/rest/v1/daily_challenges?select=date").status, 401)

        // The dates (the publishable key as `apikey`, as supabase-js sends it).
        let dates = try c.request("GET", "/rest/v1/daily_challenges?select=date&order=date.asc", headers: [("apikey", "sb_publishable_club")])
        XCTAssertEqual(dates.status, 200, dates.text)
        let rows = try XCTUnwrap(try dates.json().arrayValue)
        XCTAssertFalse(rows.isEmpty)
        XCTAssertTrue(rows.allSatisfy { $0.objectValue?.keys == ["date"] })
        let days = rows.compactMap { $0["date"]?.stringValue }
        XCTAssertEqual(days, days.sorted())
        let today = try XCTUnwrap(days.last)

        // The challenge of a date: select=*&date=eq.YYYY-MM-DD → an array of one row of the table.
        for headers in [[("apikey", "sb_publishable_club")], [("Authorization", "Bearer sb_publishable_club")],
                        [("apikey", "sb_publishable_club"), ("Authorization", "Bearer sb_publishable_club")]] {
            let response = try c.request("GET", "/rest/v1/daily_challenges?select=*&date=eq.\(today)", headers: headers)
            XCTAssertEqual(response.status, 200, response.text)
            let table = try XCTUnwrap(try response.json().arrayValue)
            XCTAssertEqual(table.count, 1)
            let row = try XCTUnwrap(table.first?.objectValue)
            XCTAssertEqual(row.keys, ["id", "date", "is_guess_country", "is_guess_capital", "is_guess_flag", "answer", "created_at", "updated_at"])
            let id = try XCTUnwrap(row["id"]?.stringValue)
            XCTAssertEqual(id.split(separator: "-").map(\.count), [8, 4, 4, 4, 12], id)
            XCTAssertEqual(row["date"]?.stringValue, today)
            let flags = ["is_guess_country", "is_guess_capital", "is_guess_flag"].compactMap { row[$0]?.boolValue }
            XCTAssertEqual(flags.count, 3)
            XCTAssertEqual(flags.filter { $0 }.count, 1, "exactly one kind of guess")
            let answer = try XCTUnwrap(row["answer"]?.stringValue)
            XCTAssertEqual(answer.count, 2)
            XCTAssertEqual(answer, answer.uppercased())
            XCTAssertEqual(row["created_at"]?.stringValue, "\(today)T00:00:00+00:00")
            XCTAssertNotNil(row["updated_at"]?.stringValue)
        }
        // The same id every time; a future date is no row (its challenge stays locked); a bad filter is 400.
        let again = try c.request("GET", "/rest/v1/daily_challenges?select=id&date=eq.\(today)", headers: [("apikey", "sb_publishable_club")])
        XCTAssertEqual(try again.json().arrayValue?.count, 1)
        let future = try c.request("GET", "/rest/v1/daily_challenges?select=*&date=eq.2099-01-01", headers: [("apikey", "sb_publishable_club")])
        XCTAssertEqual(future.status, 200)
        XCTAssertEqual(try future.json(), .array([]))
        let bad = try c.request("GET", "/rest/v1/daily_challenges?select=*&date=is.today", headers: [("apikey", "sb_publishable_club")])
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(try bad.json()["error"]?["status"], "invalid-argument")
        // The token reads; it does not write.
        let write = try c.request("POST", "/api/globe/visits", headers: [("apikey", "sb_publishable_club")], body: Array(#"{"country": "FR"}"#.utf8))
        XCTAssertEqual(write.status, 403)
    }
}
