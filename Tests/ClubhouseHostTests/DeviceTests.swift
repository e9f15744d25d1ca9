import CClubhouse
import ClubhouseJSON
import XCTest
@testable import ClubhouseHost

/// XOR of the bytes, a protocol v0.3 check byte (the protocol is the tennis plugin's: TennisCore's
/// Checksum, which MachineSimulationTests checks against the domain page).
func xorCheck(_ bytes: some Sequence<UInt8>) -> UInt8 { bytes.reduce(0, ^) }

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
        frame.append(xorCheck(frame[0..<9]))
        XCTAssertEqual(frame.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_OK))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        var length = 0
        while received.count < 10 {
            let status = buffer.withUnsafeMutableBytes { device.read(into: $0, length: &length, timeout: 2000) }
            XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
            received += buffer[0..<length]
        }
        XCTAssertEqual(Array(received[0..<5]), [0x5A, 0xA5, 0x82, 0x01, xorCheck([0x5A, 0xA5, 0x82, 0x01])])
        XCTAssertEqual(received[8], 0x02)
        // Nothing more is coming: a read times out with a message.
        XCTAssertEqual(buffer.withUnsafeMutableBytes { device.read(into: $0, length: &length, timeout: 50) }, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertEqual(String(cString: device.lastErrorPointer), "ballmachine (simulator:ballmachine): no reply within 50 ms")
        device.close()
        XCTAssertEqual(frame.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_IO))
    }

    func testErrorsSayWhatAndWhatToDo() {
        let b = broker(["refused": .tcp(host: "127.0.0.1", port: 1),
                        "usb": .serial(port: "/dev/ttyClubhouseMissing", baud: 9600, parity: .none, dataBits: 8, stopBits: 1),
                        "sock": .unix(path: "/tmp/clubhouse-no-such.sock"), "bm": .simulator(kind: "ballmachine")])
        let granted = entry(grants: [.device("refused"), .device("usb"), .device("sock"), .device("nothere")])
        XCTAssertTrue(message { _ = try b.open(name: "bm", for: granted) }
            .contains("plugin 'tennis' may not open device 'bm': the site does not grant \"device:bm\""))
        XCTAssertTrue(message { _ = try b.open(name: "nothere", for: granted) }.contains("site 's' defines no device 'nothere'"))
        let refused = message { _ = try b.open(name: "refused", for: granted) }
        XCTAssertTrue(refused.contains("cannot connect to tcp:127.0.0.1:1: Connection refused"), refused)
        let usb = message { _ = try b.open(name: "usb", for: granted) }
        XCTAssertTrue(usb.contains("cannot open serial port /dev/ttyClubhouseMissing: No such file or directory; "
                                   + "is the adapter plugged in?"), usb)
        let sock = message { _ = try b.open(name: "sock", for: granted) }
        XCTAssertTrue(sock.contains("cannot connect to unix:/tmp/clubhouse-no-such.sock"), sock)
    }

    /// A simulator is a program beside the executable (`clubhouse-KIND`, Devices/DeviceSimulator.swift):
    /// one that is not there is a clear error naming the device and where it was looked for.
    func testASimulatorProgramThatIsMissingIsNamed() {
        let b = broker(["court": .simulator(kind: "nosuchmachine")])
        let missing = message { _ = try b.open(name: "court", for: entry(grants: [.device("court")])) }
        let program = DeviceSimulator.program("nosuchmachine")
        XCTAssertTrue(missing.hasPrefix("device 'court': the nosuchmachine simulator \(program) is missing ("), missing)
        XCTAssertTrue(missing.hasSuffix("it is installed beside clubhouse (scripts/install.sh), or use a tcp: or unix: device"), missing)
    }

    /// The site's simulator options become the program's, checked first (a wrong one names the device and the option).
    func testSimulatorOptionsBecomeTheProgramsArguments() throws {
        XCTAssertEqual(try DeviceSimulator.arguments(["checksum": "modbus", "reject_rate": 0.25, "latency_ms": 5], name: "m"),
                       ["--checksum", "modbus", "--reject-rate", "0.25", "--latency", "5"])
        XCTAssertEqual(message { _ = try DeviceSimulator.arguments(["checksum": "crc"], name: "m") },
                       "device 'm': simulator option checksum must be \"xor\" or \"modbus\"")
        XCTAssertEqual(message { _ = try DeviceSimulator.arguments(["reject_rate": 2], name: "m") },
                       "device 'm': simulator option reject_rate must be between 0 and 1")
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
