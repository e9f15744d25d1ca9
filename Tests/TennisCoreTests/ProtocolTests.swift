import Foundation
import XCTest
@testable import TennisCore

final class ProtocolTests: XCTestCase {
    func testDomainPageCheckBytes() throws {
        let body: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01]
        XCTAssertEqual(Checksum.xor.compute(body), 0x4F)
        XCTAssertEqual(Checksum.modbus.compute(body), 0xB6)
        XCTAssertEqual(Checksum.modbus.compute([0x5A, 0xA5, 0x82, 0x01]), 0xA3)
        // The catalogue check value of CRC-16/MODBUS ("123456789" → 0x4B37): low byte 0x37.
        XCTAssertEqual(Checksum.modbus.compute(Array("123456789".utf8)), 0x37)
        // The fast path's precomputed register after the command header matches the byte-wise CRC.
        var crc: UInt16 = 0xFFFF
        for b: UInt8 in [0x5A, 0xA5, 0x83] {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        XCTAssertEqual(crc, Checksum.modbusStateAfterCommandHeader)
        // The table-sliced fast path agrees with the byte-wise CRC on every body byte at every position.
        var generator = SplitMix64(seed: 9)
        for _ in 0..<3000 {
            var body: [UInt8] = [0x5A, 0xA5, 0x83]
            for _ in 0..<6 { body.append(UInt8(truncatingIfNeeded: generator.next())) }
            guard let frame = FrameBytes(body + [0]) else { return XCTFail() }
            XCTAssertEqual(frame.expectedCheckByte(.modbus), Checksum.modbus.compute(body))
            XCTAssertEqual(frame.expectedCheckByte(.xor), Checksum.xor.compute(body))
        }
        let settings = try MachineSettings(upperWheel: 50, lowerWheel: 50, pitch: 50, yaw: 50, feed: 50)
        XCTAssertEqual(CommandFrame(settings: settings).encode(checksum: .xor).hex, "5A A5 83 32 32 32 32 32 01 4F")
        XCTAssertEqual(CommandFrame(settings: settings).encode(checksum: .modbus).hex, "5A A5 83 32 32 32 32 32 01 B6")
        XCTAssertEqual(ReplyFrame(code: .accepted).encode(checksum: .modbus).hex, "5A A5 82 01 A3")
        XCTAssertEqual(ReplyFrame(code: .accepted).encode(checksum: .xor).hex, "5A A5 82 01 7C")
        XCTAssertEqual(CommandFrame.stop.encode(checksum: .xor).hex, "5A A5 83 00 00 00 00 00 00 7C")
        XCTAssertEqual(CommandFrame.stop.encode(checksum: .modbus).hex, "5A A5 83 00 00 00 00 00 00 F0")
    }

    func testFrameCommandUsesTheTable() throws {
        // Zone 5, 50 mph (level 3), topspin (1): 60 60 45 60 50 → 3C 3C 2D 3C 32.
        let report = try TennisCommands.frame(.zone(5), speed: BallSpeed(mph: 50), spin: .topspin)
        XCTAssertEqual(report.text, "5A A5 83 3C 3C 2D 3C 32 01 5E")
        XCTAssertEqual(try TennisCommands.frame(.zone(5), speed: BallSpeed(mph: 50), spin: .topspin, checksum: .modbus).hex,
                       "5A A5 83 3C 3C 2D 3C 32 01 B8")
        XCTAssertEqual(try TennisCommands.frame(.point(Point2D(8.22, 11.88)), speed: BallSpeed(mph: 80), spin: .extremeTopspin).hex,
                       "5A A5 83 50 50 3C 4B 32 01 38")
        XCTAssertEqual(try TennisCommands.frame(.zone(0), speed: BallSpeed(mph: 20), spin: .flat, stop: true).hex,
                       "5A A5 83 32 32 1E 2D 32 00 7D")
        assertThrows(try TennisCommands.frame(.point(Point2D(8.23, 1)), speed: BallSpeed(mph: 50), spin: .flat),
                     "point (8.23, 1) is outside the half court")
        assertThrows(try TennisCommands.frame(.zone(16), speed: BallSpeed(mph: 50), spin: .flat), "zone \"16\" is not a zone number 0–15")
    }

    func testEncodeDecodeRoundTrip() throws {
        for checksum in Checksum.allCases {
            for entry in CommandTable.formula().entries {
                for start in [true, false] {
                    let frame = CommandFrame(settings: entry.settings, start: start)
                    let bytes = frame.encode(checksum: checksum)
                    XCTAssertEqual(try CommandFrame.decode(bytes, checksum: checksum), frame)
                    XCTAssertEqual(try CommandFrame.decode(bytes.array, checksum: checksum), frame)
                }
            }
            for code in [ReplyCode.rejected, .accepted, .completed] {
                XCTAssertEqual(try ReplyFrame.decode(ReplyFrame(code: code).encode(checksum: checksum), checksum: checksum).code, code)
            }
        }
    }

    func testBadFramesAreRefused() {
        assertThrows(try ReplyFrame.decode([0x5A, 0xA5, 0x82, 0x01, 0x7D], checksum: .xor), "check byte 7D is wrong: xor gives 7C")
        assertThrows(try ReplyFrame.decode([0x5A, 0xA5, 0x82, 0x01, 0x7C], checksum: .modbus), "check byte 7C is wrong: modbus gives A3", "other checksum")
        assertThrows(try ReplyFrame.decode([0x5B, 0xA5, 0x82, 0x01, 0x7D], checksum: .xor), "frame header is 5B A5, expected 5A A5")
        assertThrows(try ReplyFrame.decode([0x5A, 0xA5, 0x83, 0x01, 0x7D], checksum: .xor), "frame type byte is 83, expected 82")
        assertThrows(try ReplyFrame.decode([0x5A, 0xA5, 0x82, 0x03, 0x7E], checksum: .xor), "reply code 03 is not 00 (rejected), 01 (accepted) or 02 (completed)")
        assertThrows(try ReplyFrame.decode([0x5A, 0xA5, 0x82], checksum: .xor), "frame has 3 bytes; a reply is 5 bytes")
        var body: [UInt8] = [0x5A, 0xA5, 0x83, 0x65, 0x32, 0x32, 0x32, 0x32, 0x01]
        assertThrows(try CommandFrame.decode(body + [Checksum.xor.compute(body)], checksum: .xor), "upper wheel 101 is out of range 0–100")
        body = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x5B, 0x32, 0x01]
        assertThrows(try CommandFrame.decode(body + [Checksum.xor.compute(body)], checksum: .xor), "yaw 91 is out of range 0–90")
        body = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x02]
        assertThrows(try CommandFrame.decode(body + [Checksum.xor.compute(body)], checksum: .xor), "control byte 02 is neither 00 (stop) nor 01 (start)")
        assertThrows(try CommandFrame.decode(Array(repeating: 0, count: 11), checksum: .xor), "frame has 11 bytes; a command is 10 bytes")
        assertThrows(try Checksum(parsing: "crc32"), "checksum \"crc32\" is not xor or modbus")
    }

    func testDecodeCommandOfHexText() throws {
        let command = try TennisCommands.decode(hex: "5A A5 83 32 32 32 32 32 01 4F")
        XCTAssertEqual(command.kind, "command")
        XCTAssertEqual(command.checksum, .xor)
        XCTAssertEqual(command.text, "command (xor check byte): start, upper 50% lower 50% pitch 50° yaw 50° feed 50%")
        XCTAssertEqual(try TennisCommands.decode(hex: "5aa5833232323232 01b6").checksum, .modbus)
        let reply = try TennisCommands.decode(hex: "0x5A:0xA5:0x82:0x01:0xA3")
        XCTAssertEqual(reply.reply, .accepted)
        XCTAssertEqual(reply.text, "reply (modbus check byte): accepted")
        XCTAssertEqual(try TennisCommands.decode(hex: "5A-A5-82-02-7F", checksum: .xor).reply, .completed)
        assertThrows(try TennisCommands.decode(hex: "5A A5 82 02 7F", checksum: .modbus), "check byte 7F is wrong: modbus gives E3")
        assertThrows(try TennisCommands.decode(hex: "5A A5 82 01 00"), "check byte 00 matches neither checksum (xor gives 7C, modbus gives A3)")
        assertThrows(try TennisCommands.decode(hex: "5A A5 8G"), "'G' at column 8 is not a hex digit")
        assertThrows(try TennisCommands.decode(hex: "5A A 582"), "a lone hex digit at column 4")
        assertThrows(try TennisCommands.decode(hex: "5A A5 82 01"), "frame has 4 bytes; a command is 10 bytes and a reply 5")
        assertThrows(try TennisCommands.decode(hex: "  "), "no bytes given")
    }
}
