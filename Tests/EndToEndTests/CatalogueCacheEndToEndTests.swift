// The catalogue cache (Host/Sources/ClubhouseHost/Loader/CatalogueCache.swift) as a user meets it:
// once a plugin file was described, `--help`, `plugins list` and argument checks answer without
// loading it (its constructor never runs); a replaced or rewritten file is described again; an
// entry another user could have written is never read; the lock is still checked; and a plugin
// that changed between its description and its first call is refused, not run.

import ClubhouseJSON
import Foundation
import XCTest

final class CatalogueCacheEndToEndTests: XCTestCase {
    /// A site whose plugin `fx` is the file at `library`, run `isolation`.
    func site(_ c: Clubhouse, library: String, isolation: String = "in-process") throws -> String {
        try c.write("site.json", """
            {"sites": {"default": {"plugins": {"fx": {"path": "\(library)", "isolation": "\(isolation)", "grants": ["storage"]}}}}}
            """)
    }

    /// The processes that ran the fixture's constructor (loaded its library) since the last call.
    func loads(_ c: Clubhouse) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: c.dataDirectory.path)) ?? []
        let found = names.filter { $0.hasPrefix("constructor-ran-") }
        for name in found { try FileManager.default.removeItem(atPath: c.dataDirectory.appendingPathComponent(name).path) }
        return found
    }

    /// How many times the fixture's describe ran since the last call, in all processes.
    func describes(_ c: Clubhouse) throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: c.dataDirectory.path)) ?? []
        var count = 0
        for name in names where name.hasPrefix("described-") {
            let path = c.dataDirectory.appendingPathComponent(name).path
            count += try Data(contentsOf: URL(fileURLWithPath: path)).count
            try FileManager.default.removeItem(atPath: path)
        }
        return count
    }

    /// The one entry file of the cache.
    func entry(_ c: Clubhouse) throws -> String {
        let folder = c.dataDirectory.appendingPathComponent("catalogues").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.contains(".tmp") }
        XCTAssertEqual(files.count, 1, "\(files)")
        return folder + "/" + (files.first ?? "")
    }

    func constructorPlugin(_ c: Clubhouse) throws -> String {
        let built = try FixturePlugins.build("CONSTRUCTOR", id: "org.tests.constructor", file: "hostile_sandbox.c")
        let library = c.path("plugins/libfx.so")
        try FileManager.default.createDirectory(atPath: c.path("plugins"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: built, toPath: library)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        return library
    }

    func testHelpListAndArgumentChecksDoNotLoadADescribedPlugin() throws {
        for isolation in ["in-process", "process"] {
            let c = try Clubhouse()
            let config = try site(c, library: try constructorPlugin(c), isolation: isolation)
            // The first run describes the plugin: it is loaded (or its runner started) once.
            XCTAssertTrue(try c.succeed(["--config", config, "plugins", "list"]).stdout.contains("fx"))
            XCTAssertFalse(try loads(c).isEmpty, "\(isolation): the first description loads the plugin")
            // From then on: help at every level, the list, and a refused argument load nothing.
            XCTAssertTrue(try c.succeed(["--config", config, "plugins", "list", "--json"]).stdout.contains("\"loaded\""))
            XCTAssertTrue(try c.succeed(["--config", config, "--help"]).stdout.contains("A plugin that tries to escape its sandbox"))
            XCTAssertTrue(try c.succeed(["--config", config, "fx", "--help"]).stdout.contains("Read a file"))
            XCTAssertTrue(try c.succeed(["--config", config, "fx", "open", "--help"]).stdout.contains("--target"))
            try c.fail(["--config", config, "fx", "open", "--nope", "1"], exitCode: 2, contains: ["--nope"])
            try c.fail(["--config", config, "fx", "nothing"], exitCode: 2, contains: ["nothing"])
            XCTAssertEqual(try loads(c), [], "\(isolation): help, list and argument checks loaded the plugin")
            // A command loads its plugin, then. In process, the file loaded is the file described
            // (its identity, read on the descriptor it is loaded from): it is not asked to describe
            // itself again; a runner describes itself to the host as it starts.
            _ = try describes(c)
            try c.succeed(["--config", config, "fx", "pid"])
            XCTAssertEqual(try loads(c).count, 1, "\(isolation): the command loads its plugin once")
            XCTAssertEqual(try describes(c), isolation == "in-process" ? 0 : 1, isolation)
        }
    }

    func testAReplacedOrRewrittenPluginIsDescribedAgain() throws {
        let c = try Clubhouse()
        let library = try constructorPlugin(c)
        let sandbox = try Data(contentsOf: URL(fileURLWithPath: library))
        let unitsLibrary = try FixturePlugins.build("UNITS", id: "org.tests.units", file: "progress_units.c")
        var units = try Data(contentsOf: URL(fileURLWithPath: unitsLibrary))
        let config = try site(c, library: library)
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "--help"]).stdout.contains("Read a file"))

        // Replaced by rename (a new inode), as an install or a build does.
        try units.write(to: URL(fileURLWithPath: library + ".new"))
        XCTAssertEqual(rename(library + ".new", library), 0)
        var help = try c.succeed(["--config", config, "fx", "--help"]).stdout
        XCTAssertTrue(help.contains("Two stages: an unknown unit, then bytes"), help)
        XCTAssertFalse(help.contains("Read a file"), help)

        // Rewritten in place with the same size and its old modification time put back: only its
        // status-change time tells, and that is enough. (Zeros after an ELF file change nothing.)
        var padded = sandbox
        let size = max(padded.count, units.count)
        padded.append(Data(count: size - padded.count))
        units.append(Data(count: size - units.count))
        try units.write(to: URL(fileURLWithPath: library + ".new"))
        XCTAssertEqual(rename(library + ".new", library), 0)
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "--help"]).stdout.contains("Two stages"))
        var before = stat()
        XCTAssertEqual(stat(library, &before), 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library))
        try handle.write(contentsOf: padded)
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, library, &times, 0), 0)
        var after = stat()
        XCTAssertEqual(stat(library, &after), 0)
        XCTAssertEqual(after.st_size, before.st_size)
        XCTAssertEqual(after.st_ino, before.st_ino)
        XCTAssertEqual(after.st_mtim.tv_sec, before.st_mtim.tv_sec)
        XCTAssertEqual(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec)
        help = try c.succeed(["--config", config, "fx", "--help"]).stdout
        XCTAssertTrue(help.contains("Read a file"), help)
        XCTAssertFalse(help.contains("Two stages"), help)
    }

    func testAnEntryAnotherUserCouldWriteIsNeverRead() throws {
        let c = try Clubhouse()
        let config = try site(c, library: try constructorPlugin(c))
        try c.succeed(["--config", config, "fx", "--help"])
        _ = try loads(c)
        // The entry is this user's alone, and it is what help reads: a change to it shows.
        let file = try entry(c)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let original = try String(contentsOfFile: file, encoding: .utf8)
        try original.replacingOccurrences(of: "Read a file", with: "Read a fyle").write(toFile: file, atomically: false, encoding: .utf8)
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "--help"]).stdout.contains("Read a fyle"))
        // Writable by the group or by anyone: ignored, the plugin is described again and the entry replaced.
        for mode in [0o660, 0o606] {
            try original.replacingOccurrences(of: "Read a file", with: "Read a fyle")
                .write(toFile: file, atomically: false, encoding: .utf8)
            XCTAssertEqual(chmod(file, mode_t(mode)), 0)
            let help = try c.succeed(["--config", config, "fx", "--help"]).stdout
            XCTAssertTrue(help.contains("Read a file"), "mode \(String(mode, radix: 8)): \(help)")
            XCTAssertEqual(try loads(c).count, 1, "mode \(String(mode, radix: 8)): described again")
            XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        }
        // A link in its place is not followed.
        try FileManager.default.removeItem(atPath: file)
        let elsewhere = try c.write("elsewhere", original.replacingOccurrences(of: "Read a file", with: "Read a fyle"))
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "--help"]).stdout.contains("Read a file"))
    }

    func testTheLockIsCheckedBeforeTheCacheIsRead() throws {
        let c = try Clubhouse()
        let config = try site(c, library: try constructorPlugin(c))
        try c.succeed(["--config", config, "lock"])
        try c.succeed(["--config", config, "fx", "--help"])
        let lockPath = c.path("site.lock")
        let lock = try String(contentsOfFile: lockPath, encoding: .utf8)
        let pinned = try JSONParser.parse(lock)["sites"]?["default"]?["fx"]?["sha256"]?.stringValue ?? ""
        XCTAssertEqual(pinned.count, 64)
        try lock.replacingOccurrences(of: pinned, with: String(repeating: "0", count: 64))
            .write(toFile: lockPath, atomically: true, encoding: .utf8)
        try c.fail(["--config", config, "fx", "--help"], contains: ["has SHA-256 \(pinned)", "pins org.tests.constructor"])
        try c.fail(["--config", config, "fx", "pid"], contains: ["has SHA-256 \(pinned)"])
    }

    /// `serve` described the plugin (clubhouse.commands) from the cache; the file is replaced before
    /// its first call: the call is refused, nothing of the new file runs under the old catalogue,
    /// and the next call describes and runs the new one.
    func testAPluginChangedBeforeItsFirstCallIsRefusedNotRun() throws {
        let c = try Clubhouse()
        let library = try constructorPlugin(c)
        let config = try site(c, library: library)
        try c.succeed(["--config", config, "fx", "--help"])
        let units = try FixturePlugins.build("UNITS", id: "org.tests.units", file: "progress_units.c")
        // A serve session, fed one request at a time: the file is replaced between two of them.
        let process = Process()
        process.executableURL = Clubhouse.executable
        process.arguments = ["--config", config, "serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(["CLUBHOUSE_DATA_DIR": c.dataDirectory.path]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        let input = Pipe()
        process.standardInput = input
        try process.run()
        let reader = out.fileHandleForReading
        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        func receive() throws -> JSONValue {
            var line = Data()
            while true {
                let byte = reader.readData(ofLength: 1)
                if byte.isEmpty || byte == Data([10]) { break }
                line.append(byte)
            }
            return try JSONParser.parse(String(decoding: line, as: UTF8.self))
        }
        send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.commands","params":{"plugin":"fx"}}"#)
        XCTAssertTrue(JSONWriter.compact(try receive()).contains("Read a file"))
        try FileManager.default.copyItem(atPath: units, toPath: library + ".new")
        XCTAssertEqual(rename(library + ".new", library), 0)
        send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"fx","command":"pid"}}"#)
        let refused = try receive()
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("changed since its commands were read") ?? false,
                      JSONWriter.compact(refused))
        send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.commands","params":{"plugin":"fx"}}"#)
        XCTAssertTrue(JSONWriter.compact(try receive()).contains("Two stages"))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(try loads(c).count, 1, "only the first description loaded the constructor plugin")
    }
}

extension CatalogueCacheEndToEndTests {
    /// A damaged entry — empty, junk, a header cut short, a catalogue cut short, a header of the
    /// wrong shape — is never an error and never a crash: the plugin is described again and the
    /// entry rewritten whole.
    func testADamagedEntryIsIgnoredAndRebuilt() throws {
        let c = try Clubhouse()
        let config = try site(c, library: try constructorPlugin(c))
        try c.succeed(["--config", config, "fx", "--help"])
        _ = try loads(c)
        let file = try entry(c)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let newline = original.firstIndex(of: 10) else { return XCTFail("no header line") }
        let header = original[..<newline]
        let catalogue = original[(newline + 1)...]
        let damaged: [(String, Data)] = [
            ("empty", Data()),
            ("junk", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })),
            ("a header cut short", Data(header.prefix(header.count / 2))),
            ("a header without its catalogue", Data(header)),
            ("a catalogue cut short", Data(header) + Data([10]) + Data(catalogue.prefix(catalogue.count / 2))),
            ("a header of the wrong shape", Data(String(decoding: header, as: UTF8.self)
                .replacingOccurrences(of: "\"thread_safe\":", with: "\"thread_safe\":\"yes\",\"was\":").utf8) + Data([10]) + catalogue),
            ("another format", Data(String(decoding: header, as: UTF8.self)
                .replacingOccurrences(of: "\"format\":1", with: "\"format\":99").utf8) + Data([10]) + catalogue),
        ]
        for (what, bytes) in damaged {
            try bytes.write(to: URL(fileURLWithPath: file))
            XCTAssertEqual(chmod(file, 0o600), 0)
            let help = try c.succeed(["--config", config, "fx", "--help"]).stdout
            XCTAssertTrue(help.contains("Read a file"), "\(what): \(help)")
            XCTAssertEqual(try loads(c).count, 1, "\(what): described again")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), original, "\(what): the entry is rewritten whole")
            // And the next run reads the rebuilt entry without loading the plugin.
            XCTAssertTrue(try c.succeed(["--config", config, "plugins", "list"]).stdout.contains("fx"), what)
            XCTAssertEqual(try loads(c), [], "\(what): the rebuilt entry is used")
        }
    }
}
