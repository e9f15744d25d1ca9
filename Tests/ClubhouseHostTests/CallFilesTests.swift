// The host side of "clubhouse.files/1" (Runtime/CallFiles.swift): what a call's path arguments
// open to, the output rule for writes, and the messages of each refusal.

import ClubhouseABI
import Foundation
import XCTest
@testable import ClubhouseHost

final class CallFilesTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("callfiles-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func files(_ grants: [String: (String, PathAccess)]) -> CallFiles {
        CallFiles(grants: grants.mapValues { CallFiles.Grant(path: $0.0, access: $0.1) }, callID: 7)
    }

    private func refusal(_ result: Result<Int32, FileRefusal>) -> FileRefusal? {
        switch result {
        case .success(let fd):
            close(fd)
            return nil
        case .failure(let r): return r
        }
    }

    private func write(_ result: Result<Int32, FileRefusal>, _ text: String) throws {
        guard case .success(let fd) = result else { return XCTFail("\(result)") }
        defer { close(fd) }
        XCTAssertEqual(text.withCString { Glibc.write(fd, $0, strlen($0)) }, text.utf8.count)
    }

    func testAWriteLandsOnlyWhenTheCallSucceeds() throws {
        let target = folder + "/out.svg"
        let ok = files(["svg": (target, .write)])
        try write(ok.open(argument: "svg", write: true), "<svg/>")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "nothing appears before the call ends")
        XCTAssertNil(ok.finish(success: true))
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "<svg/>")
        let failed = files(["svg": (folder + "/never.svg", .write)])
        try write(failed.open(argument: "svg", write: true), "half")
        XCTAssertNil(failed.finish(success: false))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["out.svg", "sub"])
    }

    func testALinkIsWrittenThroughAndStaysALink() throws {
        let real = folder + "/sub/real.txt"
        try "old".write(toFile: real, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.txt", withDestinationPath: "sub/real.txt")
        let f = files(["out": (folder + "/link.txt", .write)])
        try write(f.open(argument: "out", write: true), "new")
        XCTAssertNil(f.finish(success: true))
        XCTAssertEqual(try String(contentsOfFile: real, encoding: .utf8), "new")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.txt"), "sub/real.txt")
    }

    func testRefusalsNameWhatAndWhatToDo() {
        let f = files(["dir": (folder, .write), "missing": (folder + "/nope/out.svg", .write), "in": (folder + "/sub", .read),
                       "absent": (folder + "/absent.txt", .read)])
        XCTAssertEqual(refusal(f.open(argument: "dir", write: true))?.message, "\(folder) is a folder; give the name of a file to write")
        let missing = refusal(f.open(argument: "missing", write: true))
        XCTAssertEqual(missing?.status, .notFound)
        XCTAssertEqual(missing?.message, "\(folder)/nope/out.svg: the folder \(folder)/nope does not exist; create it first or choose another path")
        let upgrade = refusal(f.open(argument: "in", write: true))
        XCTAssertEqual(upgrade?.status, .denied)
        XCTAssertEqual(upgrade?.message, "argument 'in' (\(folder)/sub) is declared for reading; the plugin may not write it (declare \"access\": \"write\" in the catalogue)")
        XCTAssertEqual(refusal(f.open(argument: "absent", write: false))?.message, "\(folder)/absent.txt: cannot read (No such file or directory); check the path")
        XCTAssertEqual(refusal(f.open(argument: "other", write: false))?.message, "this call has no path argument 'other' (it was given 'absent', 'dir', 'in', 'missing')")
        XCTAssertEqual(refusal(f.open(beneath: "absent", relative: "x"))?.status, .notFound)
        let notFolder = files(["file": (folder + "/file.txt", .read)])
        FileManager.default.createFile(atPath: folder + "/file.txt", contents: Data("x".utf8))
        XCTAssertEqual(refusal(notFolder.open(beneath: "file", relative: "x"))?.message,
                       "argument 'file' (\(folder)/file.txt) is not a folder; nothing can be opened beneath it")
        let escape = refusal(f.open(beneath: "in", relative: "../file.txt"))
        XCTAssertEqual(escape?.status, .denied)
        XCTAssertEqual(escape?.message, "../file.txt leaves the folder \(folder)/sub (an absolute path, '..' or a link pointing outside); only what is inside it can be opened")
        XCTAssertEqual(refusal(FilesBroker.open(nil, name: "x", relative: nil, access: 1))?.message, "the files service needs the running call")
    }
}

extension CallFilesTests {
    /// A plugin invoking another passes on only the paths its own call holds, with no more access.
    func testANestedCallGetsOnlyPathsTheOuterCallHolds() {
        let outer = files(["in": (folder + "/a.txt", .read), "out": (folder + "/b.svg", .write), "dir": (folder, .read),
                           "stdin": ("-", .read)])
        XCTAssertTrue(outer.covers(CallFiles.Grant(path: folder + "/a.txt", access: .read)))
        XCTAssertFalse(outer.covers(CallFiles.Grant(path: folder + "/a.txt", access: .write)), "no write from a read")
        XCTAssertTrue(outer.covers(CallFiles.Grant(path: folder + "/b.svg", access: .write)))
        XCTAssertTrue(outer.covers(CallFiles.Grant(path: folder + "/b.svg", access: .read)))
        XCTAssertFalse(outer.covers(CallFiles.Grant(path: "/etc/passwd", access: .read)))
        XCTAssertFalse(outer.covers(CallFiles.Grant(path: folder + "/sub/x", access: .read)), "not inside a folder it holds")
        XCTAssertFalse(outer.covers(CallFiles.Grant(path: "-", access: .read)))
    }
}

extension CallFilesTests {
    func testLinkLoopsAndUnwritableFoldersAreRefusedWithTheReason() throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/a", withDestinationPath: folder + "/b")
        try FileManager.default.createSymbolicLink(atPath: folder + "/b", withDestinationPath: folder + "/a")
        let loop = files(["out": (folder + "/a", .write)])
        XCTAssertEqual(refusal(loop.open(argument: "out", write: true))?.message,
                       "\(folder)/a: too many symbolic links; give the file's real path")
        guard getuid() != 0 else { throw XCTSkip("root writes into a read-only folder") }
        let locked = folder + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        let f = files(["out": (locked + "/x.svg", .write)])
        XCTAssertEqual(refusal(f.open(argument: "out", write: true))?.message,
                       "\(locked)/x.svg: cannot write (Permission denied); choose a writable place")
    }
}
