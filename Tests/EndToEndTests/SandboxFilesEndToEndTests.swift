// Path arguments as capabilities ("clubhouse.files/1", services/files.h): a hostile plugin
// (Tests/Fixtures/plugins/hostile_files.c) asks the host's files service for what its caller did
// not give it — a ".." escape from a folder argument, a symbolic link inside the folder pointing
// outside, an argument name the call was not given, write access to a read argument, an absolute
// path — and opens a path that is no argument itself. Each is refused (the plugin sees the status
// and the host's message), and the same runner keeps doing its legitimate work: reading the file
// and the folder it was given, writing the output it was given. The service refuses the same way
// under every isolation; only the direct open differs (refused by the kernel in the sandbox, it
// works with "process", so the test can fail). Every wait is bounded (serve ends at EOF).

import ClubhouseJSON
import Foundation
import XCTest

final class SandboxFilesEndToEndTests: XCTestCase {
    private let notFound = 3, denied = 4, eacces = 13

    private func site(_ c: Clubhouse, isolation: String) throws -> String {
        let fixture = try FixturePlugins.build("FILES", id: "org.tests.files", file: "hostile_files.c")
        return try c.write("files-\(isolation).json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": [], "isolation": "\(isolation)"}
            }}}}
            """)
    }

    /// A folder argument with a file, a sub-folder, a link that stays inside and one that leaves;
    /// a secret beside it; a document to read.
    private func layout(_ c: Clubhouse) throws -> (folder: String, secret: String, document: String) {
        let folder = c.path("course")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try Data("inside the folder".utf8).write(to: URL(fileURLWithPath: folder + "/inside.txt"))
        try Data("deep inside".utf8).write(to: URL(fileURLWithPath: folder + "/sub/deep.txt"))
        let secret = try c.write("secret.txt", "secret outside")
        try FileManager.default.createSymbolicLink(atPath: folder + "/out-link", withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(atPath: folder + "/sub/up-link", withDestinationPath: "../../secret.txt")
        try FileManager.default.createSymbolicLink(atPath: folder + "/in-link", withDestinationPath: "inside.txt")
        let document = try c.write("document.txt", "the document")
        return (folder, secret, document)
    }

    /// Runs (command, arguments) in one serve session; the replies by position.
    private func session(_ c: Clubhouse, _ config: String, _ calls: [(String, [String: String])]) throws -> [JSONValue] {
        let lines = calls.enumerated().map { index, call -> String in
            var object = JSONObject()
            for (key, value) in call.1 { object[key] = .string(value) }
            let arguments = JSONValue.object(object)
            return #"{"jsonrpc":"2.0","id":\#(index + 1),"method":"clubhouse.call","params":{"plugin":"fx","command":"\#(call.0)","arguments":\#(JSONWriter.compact(arguments))}}"#
        }
        let result = try c.run(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n", timeout: 120)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        let byID = Dictionary(replies.compactMap { r in r["id"]?.intValue.map { ($0, r) } }, uniquingKeysWith: { a, _ in a })
        return (1...calls.count).map { byID[$0] ?? .null }
    }

    private func status(_ r: JSONValue) -> Int? { r["result"]?["status"]?.intValue }
    private func head(_ r: JSONValue) -> String { r["result"]?["head"]?.stringValue ?? "" }
    private func message(_ r: JSONValue) -> String { r["result"]?["message"]?.stringValue ?? "" }

    /// The attacks and the legitimate work, at one isolation. Returns the replies of `direct`.
    private func attack(isolation: String) throws -> (direct: JSONValue, c: Clubhouse, secret: String) {
        let c = try Clubhouse()
        let config = try site(c, isolation: isolation)
        let (folder, secret, document) = try layout(c)
        let output = c.path("out.txt")
        let never = c.path("never.txt")
        let r = try session(c, config, [
            ("pid", [:]),
            ("read", ["file": document]),
            ("beneath", ["dir": folder, "rel": "inside.txt"]),
            ("beneath", ["dir": folder, "rel": "../secret.txt"]),
            ("beneath", ["dir": folder, "rel": "sub/../../secret.txt"]),
            ("beneath", ["dir": folder, "rel": "out-link"]),
            ("beneath", ["dir": folder, "rel": "sub/up-link"]),
            ("beneath", ["dir": folder, "rel": secret]),
            ("beneath", ["dir": folder, "rel": "in-link"]),
            ("ghost", ["file": document]),
            ("upgrade", ["file": document]),
            ("direct", ["file": document, "other": secret]),
            ("write", ["out": output]),
            ("failwrite", ["out": never]),
            ("list", ["dir": folder]),
            ("beneath", ["dir": folder, "rel": "sub/deep.txt"]),
            ("pid", [:]),
        ])
        let what = "(isolation \(isolation))"
        XCTAssertEqual(status(r[1]), 0, "its own argument \(what): \(r[1])")
        XCTAssertEqual(head(r[1]), "the document")
        XCTAssertEqual(status(r[2]), 0, "a file inside its folder argument \(what): \(r[2])")
        XCTAssertEqual(head(r[2]), "inside the fold")
        for (i, escape) in [(3, "'..' out of the folder"), (4, "'..' through a sub-folder"), (5, "a link inside pointing outside"),
                            (6, "a relative link leaving the folder"), (7, "an absolute path")] {
            XCTAssertEqual(status(r[i]), denied, "\(escape) \(what): \(r[i])")
            XCTAssertFalse(head(r[i]).contains("secret"), "\(escape) \(what): \(r[i])")
            XCTAssertTrue(message(r[i]).contains("leaves the folder \(folder)"), "\(escape) \(what): \(r[i])")
        }
        XCTAssertEqual(status(r[8]), 0, "a link that stays inside \(what): \(r[8])")
        XCTAssertEqual(head(r[8]), "inside the fold")
        XCTAssertEqual(status(r[9]), notFound, "an argument the call was not given \(what): \(r[9])")
        XCTAssertEqual(message(r[9]), "this call has no path argument 'nosuch' (it was given 'file')")
        XCTAssertEqual(status(r[10]), denied, "write access to a read argument \(what): \(r[10])")
        XCTAssertTrue(message(r[10]).contains("is declared for reading; the plugin may not write it"), "\(r[10])")
        XCTAssertEqual(try String(contentsOfFile: document, encoding: .utf8), "the document")
        XCTAssertEqual(status(r[12]), 0, "its own output \(what): \(r[12])")
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "written\n")
        XCTAssertEqual(r[13]["error"]?["message"]?.stringValue, "failed on purpose after writing", "\(r[13])")
        XCTAssertFalse(FileManager.default.fileExists(atPath: never), "a failed call leaves no output \(what)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: c.path("")).filter { $0.contains(".partial-") }
        XCTAssertEqual(leftovers, [], "no temporary file is left behind \(what)")
        XCTAssertEqual(status(r[14]), 0, "listing its folder argument \(what): \(r[14])")
        XCTAssertEqual(head(r[14]), "4", "inside.txt, sub, out-link, in-link \(what): \(r[14])")
        XCTAssertEqual(head(r[15]), "deep inside", "\(r[15])")
        XCTAssertEqual(head(r[0]), head(r[16]), "one runner served every call, refusals included \(what)")
        XCTAssertFalse(head(r[0]).isEmpty)
        return (r[11], c, secret)
    }

    func testSandboxedPluginReachesOnlyItsPathArguments() throws {
        guard Landlock.available else { throw XCTSkip("this kernel has no Landlock") }
        let (direct, _, _) = try attack(isolation: "sandbox")
        XCTAssertEqual(direct["result"]?["errno"]?.intValue, eacces, "a path that is no argument, opened directly: \(direct)")
        XCTAssertFalse(head(direct).contains("secret"))
    }

    /// The service is the same under "process" (so the refusals above are the service's, not the
    /// kernel's); there the plugin can still open any path itself, which is what the sandbox adds.
    func testTheFilesServiceRefusesTheSameWithProcessIsolation() throws {
        let (direct, _, _) = try attack(isolation: "process")
        XCTAssertEqual(direct["result"]?["errno"]?.intValue, 0, "\(direct)")
        XCTAssertEqual(head(direct), "secret outside")
    }

    /// A plugin cannot make another plugin open a path it does not hold itself: through
    /// `invoke`, only the paths of the caller's own call pass (the same path, no more access).
    func testAPluginCannotHandAnotherAPathItDoesNotHold() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("FILES", id: "org.tests.files", file: "hostile_files.c")
        let other = try FixturePlugins.build("FILES", id: "org.tests.files.other", file: "hostile_files.c")
        let config = try c.write("relay.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": ["invoke:fy"], "isolation": "process"},
              "fy": {"path": "\(other)", "grants": [], "isolation": "process"}
            }}}}
            """)
        let (_, secret, document) = try layout(c)
        let r = try session(c, config, [
            ("relay", ["file": document, "other": secret]),
            ("relay", ["file": document, "other": document]),
            ("read", ["file": secret]),
        ])
        XCTAssertEqual(status(r[0]), notFound, "a path the caller does not hold: \(r[0])")
        XCTAssertEqual(message(r[0]), "this call has no path argument 'file' (it was given none)")
        XCTAssertFalse(head(r[0]).contains("secret"))
        XCTAssertEqual(status(r[1]), 0, "the caller's own file passes on: \(r[1])")
        XCTAssertEqual(head(r[1]), "the document")
        XCTAssertEqual(head(r[2]), "secret outside", "the same file, named by the caller itself, is readable: \(r[2])")
    }

    /// In process the host returns the descriptor number as is: the same refusals.
    func testTheFilesServiceWorksInProcess() throws {
        _ = try attack(isolation: "in-process")
    }
}

/// Whether this kernel has Landlock (the sandbox's own tests skip without it).
private enum Landlock {
    static var available: Bool {
        // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) answers the ABI version.
        let version = withUnsafePointer(to: 0) { _ in syscallVersion() }
        return version >= 1
    }

    private static func syscallVersion() -> Int {
        typealias Call = @convention(c) (Int, Int, Int, Int) -> Int
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syscall") else { return -1 }
        return unsafeBitCast(symbol, to: Call.self)(444, 0, 0, 1)
    }
}
