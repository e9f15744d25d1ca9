// ABI 1.2 in PluginKit: CLUBHOUSE_CALL_STYLED_TEXT binds TextStyle.current while the handler runs
// (TextTable headers come out bold), and Progress.begin(_:total:unit:) calls set_unit only when the
// host's progress table has it (a 1.1 host hands out a shorter table).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseToolkit
import XCTest
@testable import PluginKit

final class Tabler: Plugin {
    static let info = PluginInfo(id: "org.tests.tabler", version: "1.0.0", name: "Tabler", summary: "Tables", services: [.progress])

    static let commands: [Command<Tabler>] = [
        Command("table", summary: "A table") { _, _ in
            Reply(data: .null, text: TextTable(["CLUB", "CARRY"], [["7i", "151"]]).render())
        },
        Command("bytes", summary: "A stage in bytes", longRunning: true) { _, call in
            call.progress.begin("reading", total: 4096, unit: .bytes)
            call.progress.update(2048)
            call.progress.begin("writing", total: 10)
            call.progress.end()
            return Reply(data: .null, text: "done\n")
        },
    ]

    init(context: PluginContext) throws {}
}

nonisolated(unsafe) private var progressEvents: [String] = []
nonisolated(unsafe) private var progressTable = clubhouse_progress_service(
    struct_size: UInt32(MemoryLayout<clubhouse_progress_service>.size),
    begin: { _, label, total in progressEvents.append("begin \(label.map { String(cString: $0) } ?? "") \(total)") },
    update: { _, done in progressEvents.append("update \(done)") },
    end: { _ in progressEvents.append("end") },
    set_unit: { _, unit in progressEvents.append("unit \(unit)") })
private func progressOnly(_ host: UnsafePointer<clubhouse_host>?, _ id: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let id, String(cString: id) == CLUBHOUSE_SERVICE_PROGRESS else { return nil }
    return withUnsafePointer(to: &progressTable) { UnsafeRawPointer($0) }
}
private func notCancelled(_ call: UnsafePointer<clubhouse_call>?) -> Int32 { 0 }

final class StyledTextTests: XCTestCase {
    func invoke(_ command: String, flags: UInt32) throws -> String {
        var info = clubhouse_host_info(struct_size: UInt32(MemoryLayout<clubhouse_host_info>.size),
                                       abi_major: UInt16(CLUBHOUSE_ABI_MAJOR), abi_minor: UInt16(CLUBHOUSE_ABI_MINOR), host_version: nil)
        let d = try XCTUnwrap(withUnsafePointer(to: &info) { export(Tabler.self, $0) })
        var host = clubhouse_host()
        host.struct_size = UInt32(MemoryLayout<clubhouse_host>.size)
        host.abi_major = UInt16(CLUBHOUSE_ABI_MAJOR)
        host.abi_minor = UInt16(CLUBHOUSE_ABI_MINOR)
        host.get_service = progressOnly
        var instance: UnsafeMutableRawPointer?
        let created = withUnsafePointer(to: &host) { h in ReplyBuffer().withSink { d.pointee.create?(d, h, &instance, $0) } }
        XCTAssertEqual(created, Int32(CLUBHOUSE_OK))
        defer { d.pointee.destroy?(d, instance) }
        var call = clubhouse_call(struct_size: UInt32(MemoryLayout<clubhouse_call>.size), flags: flags, id: 1, host_data: nil,
                                  is_cancelled: notCancelled)
        let reply = ReplyBuffer()
        let request = Array(#"{"arguments":{},"cwd":"/tmp"}"#.utf8)
        let status = withUnsafePointer(to: &call) { c in
            request.withUnsafeBufferPointer { b in
                command.withCString { name in reply.withSink { r in d.pointee.invoke?(d, instance, c, name, b.baseAddress, b.count, r) } }
            }
        }
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK), reply.text)
        return try JSONParser.parse(bytes: reply.bytes)["text"]?.stringValue ?? ""
    }

    func testTheStyledTextFlagMakesTableHeadersBoldForThatCallOnly() throws {
        let styled = UInt32(CLUBHOUSE_CALL_STYLED_TEXT)
        XCTAssertEqual(try invoke("table", flags: styled), "\u{1B}[1mCLUB  CARRY\u{1B}[0m\n7i    151\n")
        XCTAssertEqual(try invoke("table", flags: 0), "CLUB  CARRY\n7i    151\n")
        // Machine output wins: never styled, whatever else is set.
        XCTAssertEqual(try invoke("table", flags: styled | UInt32(CLUBHOUSE_CALL_MACHINE_OUTPUT)), "CLUB  CARRY\n7i    151\n")
        XCTAssertEqual(TextStyle.current, .plain, "the style does not outlive the call")
    }

    func testBeginWithAUnitCallsSetUnitOnlyWhenTheHostsTableHasIt() throws {
        progressEvents = []
        _ = try invoke("bytes", flags: 0)
        XCTAssertEqual(progressEvents, ["begin reading 4096", "unit 1", "update 2048", "begin writing 10", "end"])
        // A 1.1 host's table ends before set_unit: PluginKit must not read past it.
        let full = progressTable.struct_size
        progressTable.struct_size = UInt32(MemoryLayout<clubhouse_progress_service>.offset(of: \.set_unit) ?? 0)
        defer { progressTable.struct_size = full }
        progressEvents = []
        _ = try invoke("bytes", flags: 0)
        XCTAssertEqual(progressEvents, ["begin reading 4096", "update 2048", "begin writing 10", "end"])
    }
}
