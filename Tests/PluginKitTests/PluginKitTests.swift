// PluginKit on its own: a plugin type exported to the C descriptor and driven through the ABI in
// this process, with a host struct that offers no services (what a plugin sees from a host that
// grants nothing), plus the argument accessors and the Codable bridge.

import CClubhouse
import ClubhouseJSON
import Dispatch
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import PluginKit

final class Echo: Plugin {
    static let info = PluginInfo(id: "org.tests.echo", version: "1.2.3", name: "Echo", summary: "Echoes", services: [.log, .config])

    struct Order: Codable, Equatable {
        var club: String
        var count: Int
        var loft: Double?
    }

    static let commands: [Command<Echo>] = [
        Command("say", summary: "Say it back", arguments: [.string("text", help: "What", required: true, positional: true)],
                reply: "{text}") { _, call in
            let text = try call.arguments.string("text")
            return Reply(data: ["text": .string(text)], text: text + "\n")
        },
        Command("order", summary: "Decode the arguments as a Codable type",
                arguments: [.string("club"), .integer("count"), .number("loft")]) { _, call in
            try Reply(encoding: try call.arguments.decode(Order.self))
        },
        Command("fail", summary: "Fail with a not-found error") { _, _ in
            throw PluginError.notFound("nothing here; try again")
        },
        Command("storage", summary: "Ask for a service the host did not offer") { plugin, _ in
            _ = try plugin.context.storage()
            return Reply()
        },
    ]

    let context: PluginContext
    init(context: PluginContext) throws { self.context = context }
}

/// A host that offers no service at all.
private func noServices(_ host: UnsafePointer<clubhouse_host>?, _ id: UnsafePointer<CChar>?) -> UnsafeRawPointer? { nil }
private func neverCancelled(_ call: UnsafePointer<clubhouse_call>?) -> Int32 { 0 }

/// create → invoke → destroy of one command through `d`'s C function pointers, as the host does, with no
/// services (PluginKitTests, TypedArgumentsTests).
func invokeThroughDescriptor(_ d: UnsafePointer<clubhouse_plugin_descriptor>, _ command: String,
                             _ request: String) -> (status: Int32, reply: String) {
    var host = clubhouse_host()
    host.struct_size = UInt32(MemoryLayout<clubhouse_host>.size)
    host.abi_major = UInt16(CLUBHOUSE_ABI_MAJOR)
    host.abi_minor = UInt16(CLUBHOUSE_ABI_MINOR)
    host.get_service = noServices
    var instance: UnsafeMutableRawPointer?
    let created = withUnsafePointer(to: &host) { h in ReplyBuffer().withSink { d.pointee.create?(d, h, &instance, $0) } }
    XCTAssertEqual(created, Int32(CLUBHOUSE_OK))
    defer { d.pointee.destroy?(d, instance) }
    var call = clubhouse_call(struct_size: UInt32(MemoryLayout<clubhouse_call>.size), flags: 0, id: 1, host_data: nil,
                              is_cancelled: neverCancelled)
    let reply = ReplyBuffer()
    let bytes = Array(request.utf8)
    let status = withUnsafePointer(to: &call) { c in
        bytes.withUnsafeBufferPointer { b in
            command.withCString { name in
                reply.withSink { r in d.pointee.invoke?(d, instance, c, name, b.baseAddress, b.count, r) }
            }
        }
    }
    return (status ?? -999, reply.text)
}

final class PluginKitTests: XCTestCase {
    func descriptor() throws -> UnsafePointer<clubhouse_plugin_descriptor> {
        var info = clubhouse_host_info(struct_size: UInt32(MemoryLayout<clubhouse_host_info>.size),
                                       abi_major: UInt16(CLUBHOUSE_ABI_MAJOR), abi_minor: UInt16(CLUBHOUSE_ABI_MINOR), host_version: nil)
        return try XCTUnwrap(withUnsafePointer(to: &info) { export(Echo.self, $0) })
    }

    func testTheDescriptorCarriesTheDeclaredIdentityAndABI() throws {
        let d = try descriptor().pointee
        XCTAssertEqual(d.magic, CLUBHOUSE_MAGIC)
        XCTAssertEqual(Int(d.abi_major), Int(CLUBHOUSE_ABI_MAJOR))
        XCTAssertEqual(Int(d.struct_size), MemoryLayout<clubhouse_plugin_descriptor>.size)
        XCTAssertEqual(d.id.map { String(cString: $0) }, "org.tests.echo")
        XCTAssertEqual(d.version.map { String(cString: $0) }, "1.2.3")
        XCTAssertEqual(d.build.map { String(cString: $0) }, BuildFingerprint.swift)
        var services: [String] = []
        var p = d.services
        while let name = p?.pointee {
            services.append(String(cString: name))
            p = p.map { $0 + 1 }
        }
        XCTAssertEqual(services, [CLUBHOUSE_SERVICE_LOG, CLUBHOUSE_SERVICE_CONFIG])
    }

    func testAHostOfAnotherABIMajorIsDeclined() {
        var info = clubhouse_host_info(struct_size: UInt32(MemoryLayout<clubhouse_host_info>.size),
                                       abi_major: UInt16(CLUBHOUSE_ABI_MAJOR) + 1, abi_minor: 0, host_version: nil)
        XCTAssertNil(withUnsafePointer(to: &info) { export(Echo.self, $0) })
    }

    func testTheCatalogueListsCommandsWithTheirArguments() throws {
        let d = try descriptor()
        let reply = ReplyBuffer()
        let status = reply.withSink { d.pointee.describe?(d, $0) }
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
        let catalogue = try JSONParser.parse(bytes: reply.bytes)
        let commands = catalogue["commands"]?.arrayValue ?? []
        XCTAssertEqual(commands.compactMap { $0["name"]?.stringValue }, ["say", "order", "fail", "storage"])
        XCTAssertEqual(commands.first?["reply"]?.stringValue, "{text}")
        XCTAssertEqual(JSONWriter.compact(commands.first?["arguments"] ?? .null),
                       #"[{"name":"text","type":"string","help":"What","required":true,"positional":true}]"#)
    }

    /// create → invoke → destroy through the C function pointers, as the host does.
    func invoke(_ command: String, _ request: String) throws -> (status: Int32, reply: String) {
        invokeThroughDescriptor(try descriptor(), command, request)
    }

    /// One model of a command (issue 33): PluginKit's `Command` is ClubhouseABI's declaration — the type
    /// the host reads catalogues into — plus a handler; its fields read and write the declaration's.
    func testACommandIsTheSharedDeclarationWithAHandler() {
        var say = Echo.commands[0]
        XCTAssertEqual(say.name, "say")
        XCTAssertEqual(say.words, ["say"])
        XCTAssertEqual(say.positionals.map(\.name), ["text"])
        XCTAssertEqual(say.replyDescription, "{text}")
        say.help = "Says the text back."
        say.name = "say back"
        XCTAssertEqual(say.declaration.help, "Says the text back.")
        XCTAssertEqual(say.declaration.words, ["say", "back"])
        XCTAssertEqual(JSONWriter.compact(say.catalogueEntry),
                       #"{"name":"say back","summary":"Say it back","help":"Says the text back.","arguments":[{"name":"text","type":"string","help":"What","required":true,"positional":true}],"reply":"{text}"}"#)
    }

    func testInvokeRunsTheHandlerAndEncodesTheReply() throws {
        let r = try invoke("say", #"{"arguments":{"text":"fore"},"cwd":"/tmp"}"#)
        XCTAssertEqual(r.status, Int32(CLUBHOUSE_OK))
        XCTAssertEqual(r.reply, #"{"data":{"text":"fore"},"text":"fore\n"}"#)
    }

    func testCodableArgumentsAndReplies() throws {
        let r = try invoke("order", #"{"arguments":{"club":"7i","count":3,"loft":34.0},"cwd":""}"#)
        XCTAssertEqual(r.status, Int32(CLUBHOUSE_OK))
        XCTAssertEqual(r.reply, #"{"data":{"club":"7i","count":3,"loft":34}}"#)
        let bad = try invoke("order", #"{"arguments":{"club":"7i","count":"three"},"cwd":""}"#)
        XCTAssertEqual(bad.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(bad.reply, "arguments do not fit Order: count: expected an integer, found a string")
    }

    func testErrorsBecomeStatusesWithOneLineMessages() throws {
        XCTAssertEqual(try invoke("fail", "{}").status, Int32(CLUBHOUSE_NOT_FOUND))
        XCTAssertEqual(try invoke("fail", "{}").reply, "nothing here; try again")
        let unknown = try invoke("nope", "{}")
        XCTAssertEqual(unknown.status, Int32(CLUBHOUSE_NOT_FOUND))
        XCTAssertEqual(unknown.reply, "unknown command 'nope'")
        let malformed = try invoke("say", #"{"arguments":"#)
        XCTAssertEqual(malformed.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertTrue(malformed.reply.hasPrefix("malformed request: "), malformed.reply)
        let denied = try invoke("storage", "{}")
        XCTAssertEqual(denied.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(denied.reply, #"storage is not available: the site must grant "storage" to plugin ''"#)
    }

    func testArgumentAccessorsCheckTypes() throws {
        let args = Arguments(["name": "Ann", "n": 3, "x": 2.5, "flag": true, "clubs": ["7i", "pw"], "gone": nil])
        XCTAssertEqual(try args.string("name"), "Ann")
        XCTAssertEqual(try args.int("n"), 3)
        XCTAssertEqual(try args.double("x"), 2.5)
        XCTAssertEqual(try args.double("n"), 3)
        XCTAssertTrue(args.flag("flag"))
        XCTAssertFalse(args.flag("absent"))
        XCTAssertEqual(try args.list("clubs"), ["7i", "pw"])
        XCTAssertFalse(args.has("gone"))
        XCTAssertNil(try args.optionalString("gone"))
        XCTAssertThrowsError(try args.int("name")) { error in
            XCTAssertEqual((error as? PluginError)?.status, .invalidArgument)
            XCTAssertTrue("\(error)".contains("name"), "\(error)")
        }
        XCTAssertThrowsError(try args.string("absent"))
    }
}

/// The one rule for output paths (Files.swift): what each kind of existing path becomes after a write.
final class OutputPathTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func testARegularFileIsReplacedAndANewOneCreated() throws {
        let path = folder + "/a.svg"
        try Files.write(path, text: "one")
        try Files.write(path, text: "two")
        XCTAssertEqual(try Files.readText(path), "two")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["a.svg"], "no temporary file left")
    }

    func testASymlinkIsWrittenThroughAndStaysALink() throws {
        let target = folder + "/real.svg", link = folder + "/link.svg"
        try Files.write(target, text: "old")
        XCTAssertEqual(symlink("real.svg", link), 0)
        try Files.write(link, text: "new")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real.svg", "the link is still a link")
        XCTAssertEqual(try Files.readText(target), "new", "its target got the bytes")
    }

    func testAFIFOIsWrittenAsAStreamNotReplaced() throws {
        let fifo = folder + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let reader = DispatchQueue(label: "fifo reader")
        nonisolated(unsafe) var got = ""
        let done = DispatchSemaphore(value: 0)
        reader.async {
            got = (try? Files.readText(fifo)) ?? "read failed"
            done.signal()
        }
        try Files.write(fifo, text: "through the pipe")
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(got, "through the pipe")
        var st = stat()
        XCTAssertEqual(lstat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "still a FIFO")
    }

    func testADeviceIsWrittenAsAStreamAndItsErrorsReported() throws {
        try Files.write("/dev/null", text: "discarded")
        var st = stat()
        XCTAssertEqual(stat("/dev/null", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
        XCTAssertThrowsError(try Files.write("/dev/full", text: "no room")) { error in
            XCTAssertTrue("\(error)".contains("/dev/full: write failed"), "\(error)")
        }
        XCTAssertEqual(stat("/dev/full", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "/dev/full is still a device")
    }

    func testAMissingFolderAFolderAndASocketAreRefused() throws {
        XCTAssertThrowsError(try Files.write(folder + "/no/such/dir/g.svg", text: "x")) { error in
            XCTAssertTrue("\(error)".contains("the folder \(folder)/no/such/dir does not exist"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/no"), "nothing was created")
        XCTAssertThrowsError(try Files.write(folder, text: "x")) { error in
            XCTAssertTrue("\(error)".contains("is a folder"), "\(error)")
        }
        XCTAssertThrowsError(try Files.readText(folder)) { error in
            XCTAssertTrue("\(error)".contains("is a folder, not a file"), "\(error)")
        }
    }
}
