import CClubhouse
import ClubhouseJSON
import XCTest
@testable import ClubhouseHost

final class BallMachineProtocolTests: XCTestCase {
    func testCheckBytesOfTheDomainPage() {
        let frame: ArraySlice<UInt8> = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01]
        XCTAssertEqual(BallMachineProtocol.xor(frame), 0x4F)
        XCTAssertEqual(BallMachineProtocol.modbusLow(frame), 0xB6)
        XCTAssertEqual(BallMachineProtocol.modbusLow([0x5A, 0xA5, 0x82, 0x01]), 0xA3)
    }

    func testValidFramesAreAcceptedThenCompletedAndBadOnesRejected() {
        var machine = BallMachineProtocol(options: BallMachineSimulatorOptions(checksum: .modbus))
        let good: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01, 0xB6]
        let results = machine.receive(good)
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(results[0].1, [[0x5A, 0xA5, 0x82, 0x01, 0xA3], [0x5A, 0xA5, 0x82, 0x02, BallMachineProtocol.modbusLow([0x5A, 0xA5, 0x82, 0x02])]])
        // Wrong check byte, out-of-range pitch, garbage before a frame, and a frame split over two reads.
        var bad = good
        bad[9] = 0x00
        guard case .command(_, false, let reason?) = machine.receive(bad)[0].0 else { return XCTFail() }
        XCTAssertTrue(reason.contains("does not match modbus 0xB6"), reason)
        var pitch = good
        pitch[5] = 95
        pitch[9] = BallMachineProtocol.modbusLow(pitch[0..<9])
        guard case .command(_, false, let r2?) = machine.receive(pitch)[0].0 else { return XCTFail() }
        XCTAssertEqual(r2, "pitch or yaw above 90 degrees")
        let mixed = machine.receive([0x00, 0x11] + Array(good[0..<4]))
        XCTAssertEqual(mixed.first?.0, .garbage(count: 2))
        XCTAssertEqual(machine.receive(Array(good[4...])).first?.1.count, 2)
    }

    func testRejectRateIsDeterministicForASeed() {
        let options = BallMachineSimulatorOptions(checksum: .xor, rejectRate: 0.5, seed: 42)
        var frame: [UInt8] = [0x5A, 0xA5, 0x83, 50, 50, 50, 50, 50, 1]
        frame.append(BallMachineProtocol.xor(frame[0..<9]))
        func run() -> [Bool] {
            var m = BallMachineProtocol(options: options)
            return (0..<40).map { _ in if case .command(_, let ok, _) = m.receive(frame)[0].0 { return ok } else { return false } }
        }
        let a = run()
        XCTAssertEqual(a, run())
        XCTAssertTrue(a.contains(true) && a.contains(false))
    }
}

final class DeviceBrokerTests: XCTestCase {
    private func broker(_ devices: [String: DeviceEntry.Transport]) -> DeviceBroker {
        var map: [String: DeviceEntry] = [:]
        for (name, transport) in devices {
            map[name] = DeviceEntry(name: name, transport: transport, trace: true, connectTimeoutMilliseconds: 500,
                                    options: ["checksum": "xor"])
        }
        let site = Site(name: "s", description: "", plugins: [], devices: map)
        return DeviceBroker(site: site, log: LogBroker(verbosity: 0, color: false))
    }

    private func entry(grants: [Grant]) -> PluginEntry {
        PluginEntry(alias: "tennis", id: nil, enabled: true, path: nil, versionRequirement: nil, config: [:], grants: grants,
                    isolation: .inProcess, timeoutMilliseconds: 1000, location: SourceLocation(line: 1, column: 1, offset: 0))
    }

    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testTheSimulatorAnswersThroughTheBroker() throws {
        let b = broker(["ballmachine": .simulator(kind: "ballmachine")])
        let device = try b.open(name: "ballmachine", for: entry(grants: [.device("ballmachine")]))
        var frame: [UInt8] = [0x5A, 0xA5, 0x83, 60, 50, 40, 75, 50, 1]
        frame.append(BallMachineProtocol.xor(frame[0..<9]))
        XCTAssertEqual(frame.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_OK))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        var length = 0
        while received.count < 10 {
            let status = buffer.withUnsafeMutableBytes { device.read(into: $0, length: &length, timeout: 2000) }
            XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
            received += buffer[0..<length]
        }
        XCTAssertEqual(Array(received[0..<5]), [0x5A, 0xA5, 0x82, 0x01, BallMachineProtocol.xor([0x5A, 0xA5, 0x82, 0x01])])
        XCTAssertEqual(received[8], 0x02)
        // Nothing more is coming: a read times out with a message.
        XCTAssertEqual(buffer.withUnsafeMutableBytes { device.read(into: $0, length: &length, timeout: 50) }, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertEqual(String(cString: device.lastErrorPointer), "ballmachine (simulator:ballmachine): no reply within 50 ms")
        device.close()
        XCTAssertEqual(frame.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_IO))
    }

    func testErrorsSayWhatAndWhatToDo() {
        let b = broker(["refused": .tcp(host: "127.0.0.1", port: 1), "usb": .serial(port: "/dev/ttyClubhouseMissing", baud: 9600, parity: .none, dataBits: 8, stopBits: 1),
                        "sock": .unix(path: "/tmp/clubhouse-no-such.sock"), "bm": .simulator(kind: "ballmachine")])
        let granted = entry(grants: [.device("refused"), .device("usb"), .device("sock"), .device("nothere")])
        XCTAssertTrue(message { _ = try b.open(name: "bm", for: granted) }
            .contains("plugin 'tennis' may not open device 'bm': the site does not grant \"device:bm\""))
        XCTAssertTrue(message { _ = try b.open(name: "nothere", for: granted) }.contains("site 's' defines no device 'nothere'"))
        let refused = message { _ = try b.open(name: "refused", for: granted) }
        XCTAssertTrue(refused.contains("cannot connect to tcp:127.0.0.1:1: Connection refused"), refused)
        let usb = message { _ = try b.open(name: "usb", for: granted) }
        XCTAssertTrue(usb.contains("cannot open serial port /dev/ttyClubhouseMissing: No such file or directory; is the adapter plugged in?"), usb)
        let sock = message { _ = try b.open(name: "sock", for: granted) }
        XCTAssertTrue(sock.contains("cannot connect to unix:/tmp/clubhouse-no-such.sock"), sock)
    }

    func testSerialSettingsAreAppliedToARealTerminal() throws {
        // A pseudo-terminal stands in for a USB serial adapter: termios calls must succeed on it.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
        else { throw XCTSkip("no pseudo-terminals here") }
        defer { close(master) }
        let path = "/dev/pts/\(number)"
        let b = broker(["tty": .serial(port: path, baud: 115200, parity: .even, dataBits: 7, stopBits: 2)])
        let device = try b.open(name: "tty", for: entry(grants: [.device("tty")]))
        let bytes: [UInt8] = [0x5A, 0xA5]
        XCTAssertEqual(bytes.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_OK))
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = read(master, &buffer, 8)
        XCTAssertEqual(Array(buffer[0..<max(0, n)]), bytes)
        device.close()
    }
}
