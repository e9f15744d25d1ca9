// The simulated machine (MachineSimulation, what `clubhouse-ballmachine` serves): it reads frames with
// the plugin's own decoder, so a frame the plugin encodes is one it accepts, and its replies are ones
// the plugin decodes.

import XCTest
@testable import TennisCore

final class MachineSimulationTests: XCTestCase {
    let good: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01, 0xB6]

    func testCheckBytesOfTheDomainPage() {
        let body: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01]
        XCTAssertEqual(Checksum.xor.compute(body), 0x4F)
        XCTAssertEqual(Checksum.modbus.compute(body), 0xB6)
        XCTAssertEqual(MachineSimulation(options: SimulationOptions(checksum: .modbus)).reply(.accepted), [0x5A, 0xA5, 0x82, 0x01, 0xA3])
    }

    func testValidFramesAreAcceptedThenCompletedAndBadOnesRejected() throws {
        var machine = MachineSimulation(options: SimulationOptions(checksum: .modbus))
        let results = machine.receive(good)
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(results[0].event, .command(fields: [0x32, 0x32, 0x32, 0x32, 0x32, 0x01], accepted: true, reason: nil))
        XCTAssertEqual(try results[0].replies.map { try ReplyFrame.decode($0, checksum: .modbus).code }, [.accepted, .completed])
        // Wrong check byte, out-of-range pitch, garbage before a frame, and a frame split over two reads.
        var bad = good
        bad[9] = 0x00
        guard case .command(_, false, let reason?) = machine.receive(bad)[0].event else { return XCTFail() }
        XCTAssertEqual(reason, "check byte 00 is wrong: modbus gives B6; the frame is corrupt or the device uses the other checksum")
        var pitch = good
        pitch[5] = 95
        pitch[9] = Checksum.modbus.compute(pitch[0..<9])
        let rejected = machine.receive(pitch)[0]
        guard case .command(_, false, let r2?) = rejected.event else { return XCTFail() }
        XCTAssertEqual(r2, "pitch 95 is out of range 0–90")
        XCTAssertEqual(try ReplyFrame.decode(rejected.replies[0], checksum: .modbus).code, .rejected)
        let mixed = machine.receive([0x00, 0x11] + Array(good[0..<4]))
        XCTAssertEqual(mixed.first?.event, .garbage(count: 2))
        XCTAssertEqual(machine.receive(Array(good[4...])).first?.replies.count, 2)
    }

    func testAFrameThePluginEncodesIsAccepted() throws {
        for checksum in Checksum.allCases {
            var machine = MachineSimulation(options: SimulationOptions(checksum: checksum))
            let settings = try MachineSettings(upperWheel: 60, lowerWheel: 50, pitch: 40, yaw: 75, feed: 50)
            for frame in [CommandFrame(settings: settings), .stop] {
                let result = machine.receive(frame.encode(checksum: checksum).array)
                guard case .command(_, true, nil) = result.first?.event else { return XCTFail("\(checksum): \(result)") }
            }
        }
    }

    func testRejectRateIsDeterministicForASeed() {
        let options = SimulationOptions(checksum: .xor, rejectRate: 0.5, seed: 42)
        var frame: [UInt8] = [0x5A, 0xA5, 0x83, 50, 50, 50, 50, 50, 1]
        frame.append(Checksum.xor.compute(frame))
        func run() -> [Bool] {
            var m = MachineSimulation(options: options)
            return (0..<40).map { _ in if case .command(_, let ok, _) = m.receive(frame)[0].event { return ok } else { return false } }
        }
        let a = run()
        XCTAssertEqual(a, run())
        XCTAssertTrue(a.contains(true) && a.contains(false))
    }

    func testReportLines() {
        XCTAssertEqual(MachineSimulation.describe(.command(fields: [60, 50, 40, 75, 50, 1], accepted: true, reason: nil)),
                       "received UW=60 LW=50 pitch=40 yaw=75 feed=50 ctrl=1 → accepted, completed")
        XCTAssertEqual(MachineSimulation.describe(.garbage(count: 3)), "skipped 3 byte(s) before a frame header")
    }
}
