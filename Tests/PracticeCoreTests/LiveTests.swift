import ClubhouseJSON
import Foundation
import XCTest
@testable import PracticeCore
#if canImport(Glibc)
import Glibc
#endif

final class OpenConnectTests: XCTestCase {
    static let shot3 = #"{"DeviceID":"MLM2PRO","Units":"Yards","ShotNumber":3,"APIversion":"1","BallData":{"Speed":108.4,"SpinAxis":-4.1,"TotalSpin":4987,"BackSpin":4974,"SideSpin":-357,"HLA":-2.7,"VLA":20.1,"CarryDistance":156.4},"ClubData":{"Speed":83.5},"ShotDataOptions":{"ContainsBallData":true,"ContainsClubData":true,"IsHeartBeat":false}}"#

    func message(_ n: Int, speed: String = "100.0", extra: String = "") -> String {
        #"{"DeviceID":"X","Units":"Yards","ShotNumber":\#(n),"APIversion":"1","BallData":{"Speed":\#(speed),"VLA":20,"HLA":1,"TotalSpin":5000,"SpinAxis":2,"CarryDistance":150}\#(extra),"ShotDataOptions":{"ContainsBallData":true,"IsHeartBeat":false}}"#
    }

    func testAShotMessageMapsToTheKernelsMeasurements() throws {
        let m = try OpenConnectStream.parse(Array(Self.shot3.utf8))
        XCTAssertTrue(m.isShot)
        XCTAssertEqual(m.shotNumber, 3)
        XCTAssertEqual(m.deviceID, "MLM2PRO")
        XCTAssertEqual(m.measurements[.ballSpeed], 108.4)
        XCTAssertEqual(m.measurements[.launchAngle], 20.1)
        XCTAssertEqual(m.measurements[.launchDirection], -2.7)
        XCTAssertEqual(m.measurements[.spinRate], 4987)
        XCTAssertEqual(m.measurements[.spinAxis], -4.1)
        XCTAssertEqual(m.measurements[.carry], 156.4)
        XCTAssertEqual(m.measurements[.clubSpeed], 83.5)
        XCTAssertEqual(m.measurements[.smashFactor] ?? 0, 108.4 / 83.5, accuracy: 1e-12)
        XCTAssertNil(m.measurements[.descentAngle])
        XCTAssertEqual(m.raw, Self.shot3)
        // Metres: 50 m/s = 111.847 mph; 140 m = 153.106 yd. Spin from its parts: √(3000² + 4000²) = 5000 rpm.
        let metric = try OpenConnectStream.parse(Array(#"{"DeviceID":"X","Units":"Metres","ShotNumber":1,"APIversion":"1","BallData":{"Speed":50,"BackSpin":3000,"SideSpin":4000,"CarryDistance":140}}"#.utf8))
        XCTAssertEqual(metric.measurements[.ballSpeed] ?? 0, 50 * 3600 / 1609.344, accuracy: 1e-9)
        XCTAssertEqual(metric.measurements[.carry] ?? 0, 140 / 0.9144, accuracy: 1e-9)
        XCTAssertEqual(metric.measurements[.spinRate] ?? 0, 5000, accuracy: 1e-9)
        XCTAssertEqual(metric.measurements[.spinAxis] ?? 0, atan2(4000, 3000) * 180 / .pi, accuracy: 1e-9)
    }

    func testStreamSplitsConcatenatedAndNewlineMessagesAcrossReads() throws {
        var stream = OpenConnectStream()
        let heartbeat = OpenConnectSimulator.heartbeat(shotNumber: 1)
        let text = message(1) + "\n" + heartbeat + message(2, extra: #","Note":"a } in a \" string""#) + "\r\n" + message(3)
        var got: [OpenConnectMessage] = []
        // One byte at a time: every split point inside and between messages.
        for byte in Array(text.utf8) { got += try stream.feed([byte]) }
        XCTAssertEqual(got.map(\.shotNumber), [1, 1, 2, 3])
        XCTAssertEqual(got.map(\.isShot), [true, false, true, true])
        XCTAssertEqual(stream.pendingBytes, 0)
        XCTAssertEqual(try stream.feed(Array(message(4).prefix(30).utf8)).count, 0)
        XCTAssertEqual(stream.pendingBytes, 30)
    }

    func testBadMessagesAreOneLineErrors() {
        func error(_ text: String, after: [String] = []) -> String {
            var stream = OpenConnectStream()
            do {
                for m in after { _ = try stream.feed(Array((m + "\n").utf8)) }
                _ = try stream.feed(Array((text + "\n").utf8))
                return "no error"
            } catch { return "\(error)" }
        }
        XCTAssertEqual(error(message(2), after: [message(1), message(2)]),
                       "message 3: ShotNumber 2 after shot 2 is out of order (shot numbers must increase)")
        XCTAssertEqual(error(message(1), after: [message(5)]), "message 2: ShotNumber 1 after shot 5 is out of order (shot numbers must increase)")
        XCTAssertEqual(error("hello"), "message 1: expected a JSON object starting with '{', got 'hello\n'; is the device speaking GSPro Open Connect?")
        XCTAssertTrue(error(#"{"DeviceID":"X",}"#).hasPrefix("message 1: not valid JSON ("), error(#"{"DeviceID":"X",}"#))
        XCTAssertEqual(error(message(1, speed: "\"fast\"")), "message 1: BallData.Speed is not a number")
        XCTAssertEqual(error(message(1, speed: "0")), "message 1: BallData.Speed is missing or 0 (a shot needs a ball speed)")
        XCTAssertEqual(error(message(1, speed: "900")), "message 1: BallData.Speed = 900.0 is outside 0.0…400.0")
        XCTAssertEqual(error(#"{"Units":"Yards","ShotNumber":1,"APIversion":"1"}"#), "message 1: DeviceID is missing or not a string")
        XCTAssertEqual(error(#"{"DeviceID":"X","ShotNumber":1,"APIversion":"2"}"#), "message 1: APIversion must be \"1\" (found \"2\")")
        XCTAssertEqual(error(#"{"DeviceID":"X","Units":"Feet","ShotNumber":1,"APIversion":"1"}"#),
                       "message 1: Units \"Feet\" is neither \"Yards\" nor \"Metres\"")
        XCTAssertEqual(error(#"{"DeviceID":"X","ShotNumber":1.5,"APIversion":"1"}"#), "message 1: ShotNumber is missing or not a whole number ≥ 0")
        XCTAssertEqual(error(#"{"DeviceID":"X","ShotNumber":1,"APIversion":"1","ShotDataOptions":{"ContainsBallData":true}}"#),
                       "message 1: ContainsBallData is true but BallData is missing")
        XCTAssertEqual(error(#"{"DeviceID":"X","ShotNumber":1,"APIversion":"1","ShotDataOptions":[true]}"#),
                       "message 1: ShotDataOptions is not an object")
        XCTAssertThrowsError(try OpenConnectStream.parse(Array("[1, 2]".utf8), ordinal: 4)) { error in
            XCTAssertEqual("\(error)", "message 4: not a JSON object")
        }
        XCTAssertEqual(error("{" + String(repeating: " ", count: OpenConnectStream.maxMessageBytes + 1)),
                       "message 1: longer than 65536 bytes without ending; is the device speaking GSPro Open Connect?")
    }

    /// Issue 30: a live shot is checked against the same plausible ranges as an imported row.
    func testImplausibleValuesAreRefused() {
        func error(_ text: String) -> String {
            do { _ = try OpenConnectStream.parse(Array(text.utf8)); return "no error" } catch { return "\(error)" }
        }
        // 300 mph passes the message's own 0…400 check but no golf ball flies that fast.
        XCTAssertEqual(error(message(1, speed: "300")), "message 1: Ball Speed is 300.0 mph, outside the plausible 0 to 250 mph")
        // A club speed of 0.5 mph makes a smash factor of 200.
        XCTAssertEqual(error(message(1, extra: #","ClubData":{"Speed":0.5}"#).replacingOccurrences(of: #""ContainsBallData":true,"#,
                                                                                                   with: #""ContainsBallData":true,"ContainsClubData":true,"#)),
                       "message 1: Smash Factor is 200.0, outside the plausible 0 to 2")
        XCTAssertEqual(error(message(1, speed: "1e308")), "message 1: BallData.Speed = 1e+308 is outside 0.0…400.0")
    }

    func testSimulatorReplaysTheSampleAsNumberedShots() throws {
        let sample = try SharedData.bytes(SharedData.practice("sessions/rapsodo_mlm2pro_mixed_club_sample.csv"))
        let messages = try OpenConnectSimulator.messages(sample, sourceName: "sample.csv")
        XCTAssertEqual(messages.count, 15)
        var stream = OpenConnectStream()
        let parsed = try stream.feed(Array(messages.joined().utf8))
        XCTAssertEqual(parsed.map(\.shotNumber), Array(1...15))
        XCTAssertEqual(parsed.first?.club, "7i")
        XCTAssertEqual(parsed.first?.measurements[.ballSpeed], 102.0)
        XCTAssertEqual(parsed.first?.measurements[.carry], 142.2)
        XCTAssertThrowsError(try OpenConnectSimulator.messages(Array("Club Type,Ball Speed,Smash Factor,Spin Rate,Descent Angle\n".utf8),
                                                               sourceName: "empty.csv"))
    }
}

final class LiveSessionTests: StoreTestCase {
    var fixtureA: String { "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698" }

    func sampleMessages() throws -> [String] {
        try OpenConnectSimulator.messages(try sample(), sourceName: "sample.csv")
    }

    /// The sample's shots arrive over a real socket pair, one write per message from another
    /// thread; with fixture_a active for 7i, the live session reaches the kernel's oracle
    /// (7i: 6 shots, A=5 B=0 C=1), each shot stored as it lands.
    func testShotsOverASocketPairAreStoredAndGradedAsTheyArrive() throws {
        guard case .file(let name, let bytes) = try fixture("fixture_a") else { return XCTFail() }
        _ = try library.add(bytes, sourceName: name)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        let messages = try sampleMessages()
        let writeEnd = fds[1]
        let writer = Thread {
            for m in messages {
                let data = Array((m + "\n").utf8)
                _ = data.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress, $0.count) }
                usleep(2000)
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(fds[0]) }
        let recorder = LiveRecorder(library: library, device: "lm", defaultClub: nil)
        try recorder.start()
        var landed: [Int] = []
        var storedAsTheyLand: [Int] = []
        let result = try LiveSessionLoop().run(recorder, read: {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBufferPointer { read(fds[0], $0.baseAddress, $0.count) }
            if n == 0 { return .ended }
            if n < 0 { return .dropped(String(cString: strerror(errno))) }
            return .bytes(Array(buffer[0..<n]))
        }, onShot: { shot in
            landed.append(shot.shotNumber)
            storedAsTheyLand.append((try? self.store.liveShots(liveSessionID: 1).count) ?? -1)
        })
        XCTAssertEqual(landed, Array(1...15))
        XCTAssertEqual(storedAsTheyLand, Array(1...15), "each shot is in the store when it is shown")
        XCTAssertEqual(result.reason, "stream ended")
        let seven = try XCTUnwrap(result.clubs.first { $0.analysis.club == "7i" }?.analysis)
        XCTAssertEqual([seven.shotCount, seven.aCount, seven.bCount, seven.cCount], [6, 5, 0, 1])
        XCTAssertEqual(seven.templateHash, fixtureA)
        let session = try XCTUnwrap(result.session)
        XCTAssertEqual(session.shotCount, 15)
        XCTAssertEqual(try store.shots(sessionID: session.id).map(\.rowIndex), Array(1...15))
        XCTAssertEqual(try store.shots(sessionID: session.id).filter { $0.club == "7i" }.map(\.grade), result.shots.prefix(6).map(\.grade))
        XCTAssertEqual(try store.openLiveSessions(), [])
        XCTAssertEqual(result.latency?.count, 15)
        // The 5i default grades descent angle, which Open Connect does not send: said, not hidden.
        XCTAssertTrue(result.warnings.contains { $0.contains("grades descent_angle") }, "\(result.warnings)")
        XCTAssertTrue(result.text.contains("15 shots stored as session 1"), result.text)
    }

    func run(_ chunks: [LiveRead], club: String? = "7i", loop: LiveSessionLoop = LiveSessionLoop()) -> (LiveSessionResult?, String?) {
        let recorder = LiveRecorder(library: library, device: "lm", defaultClub: club)
        do { try recorder.start() } catch { return (nil, "\(error)") }
        var queue = chunks
        do {
            let result = try loop.run(recorder, read: { queue.isEmpty ? .ended : queue.removeFirst() })
            return (result, nil)
        } catch { return (nil, "\(error)") }
    }

    func testADropMidMessageKeepsTheShotsAndClosesTheSession() throws {
        let m = try sampleMessages()
        let (_, error) = run([.bytes(Array((m[0] + m[1]).utf8)), .bytes(Array(m[2].prefix(40).utf8)), .ended])
        XCTAssertEqual(error, "the connection dropped inside message 3 (40 bytes of it arrived); the live session was closed, 2 shots kept as session 1")
        XCTAssertEqual(try store.session(id: 1)?.shotCount, 2)
        XCTAssertEqual(try store.openLiveSessions(), [])
        let (_, reset) = run([.bytes(Array(m[0].utf8)), .dropped("Connection reset by peer")])
        XCTAssertEqual(reset, "the connection dropped (Connection reset by peer); the live session was closed, 1 shot kept as session 2")
    }

    func testOutOfOrderOrMalformedStopsWithTheShotsBeforeIt() throws {
        let m = try sampleMessages()
        let (_, error) = run([.bytes(Array((m[0] + m[1] + m[1]).utf8))])
        XCTAssertEqual(error, "message 3: ShotNumber 2 after shot 2 is out of order (shot numbers must increase); "
            + "the live session was closed, 2 shots kept as session 1")
        let (_, garbage) = run([.bytes(Array("nonsense".utf8))])
        XCTAssertEqual(garbage, "message 1: expected a JSON object starting with '{', got 'nonsense'; is the device speaking GSPro Open Connect?; "
            + "the live session was closed, no shots to keep")
        XCTAssertEqual(try store.sessions().count, 1)
        XCTAssertEqual(try store.openLiveSessions(), [])
    }

    func testIdleTimeoutMaxShotsAndNoClub() throws {
        let plain = #"{"DeviceID":"X","ShotNumber":1,"APIversion":"1","BallData":{"Speed":101}}"#
        let (idle, _) = run([.bytes(Array(plain.utf8)), .timeout(200), .timeout(200)], loop: LiveSessionLoop(idleTimeoutMilliseconds: 400))
        XCTAssertEqual(idle?.reason, "no message for 0.4 s")
        XCTAssertEqual(idle?.shots.map(\.club), ["7i"])
        let m = try sampleMessages()
        let (capped, _) = run([.bytes(Array(m.joined().utf8))], loop: LiveSessionLoop(maxShots: 4))
        XCTAssertEqual(capped?.shots.count, 4)
        XCTAssertEqual(capped?.reason, "4 shots received")
        let (_, noClub) = run([.bytes(Array(plain.utf8))], club: nil)
        XCTAssertEqual(noClub, "shot 1: Open Connect names no club; give club (e.g. club 7i); the live session was closed, no shots to keep")
        let (empty, _) = run([.ended])
        XCTAssertNil(empty?.session)
        XCTAssertTrue(empty?.text.contains("no shots arrived, nothing stored") ?? false)
    }

    /// A storage failure mid-session: the shots before it stay, the session closes with them.
    func testAStorageFailureKeepsTheShotsBefore() throws {
        let failing = FailingStore()
        failing.liveShotsBeforeFailure = 3
        let lib = TemplateLibrary(store: failing, now: { "2026-03-01T10:00:00Z" })
        let recorder = LiveRecorder(library: lib, device: "lm", defaultClub: nil)
        try recorder.start()
        let all = Array(try sampleMessages().joined().utf8)
        XCTAssertThrowsError(try LiveSessionLoop().run(recorder, read: { .bytes(all) })) { error in
            XCTAssertEqual("\(error)", "storage failed: disk full; the live session was closed, 3 shots kept as session 1")
        }
        XCTAssertEqual(try failing.inner.session(id: 1)?.shotCount, 3)
    }

    /// A run that died leaves its live session open; the next run on the device closes it first.
    func testAnOpenSessionLeftByACrashIsRecovered() throws {
        let m = try sampleMessages()
        let crashed = LiveRecorder(library: library, device: "lm", defaultClub: nil)
        try crashed.start()
        var stream = OpenConnectStream()
        for message in try stream.feed(Array((m[0] + m[1]).utf8)) { _ = try crashed.receive(message, arrivedAt: LiveRecorder.monotonicNanoseconds()) }
        // No close: the process "died". Another device's open session is left alone.
        let other = LiveRecorder(library: library, device: "other", defaultClub: nil)
        try other.start()
        let (result, _) = run([.ended])
        XCTAssertEqual(result?.recovered, [1])
        XCTAssertEqual(try store.session(id: 1)?.shotCount, 2)
        XCTAssertEqual(try store.openLiveSessions().map(\.device), ["other"])
        XCTAssertTrue(result?.text.hasPrefix("closed 1 live session an earlier run left open: 1") ?? false)
    }
}
