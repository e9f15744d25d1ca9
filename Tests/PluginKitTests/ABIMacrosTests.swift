// The header's own macros (entry.h: CLUBHOUSE_DESCRIPTOR_INIT, CLUBHOUSE_BUILD_C, CLUBHOUSE_EXPORT,
// CLUBHOUSE_DEFINE_ENTRY; host.h: CLUBHOUSE_TABLE_HAS and the deprecated per-table aliases), built
// from Tests/Fixtures/abi/abi_macros_check.c with the system C compiler, every warning an error.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ABIMacrosTests: XCTestCase {
    static let source = ServiceDocsTests.root.appendingPathComponent("Tests/Fixtures/abi/abi_macros_check.c").path
    static let include = ServiceDocsTests.root.appendingPathComponent("PluginSDK/Sources/CClubhouse/include").path

    /// Runs `tool` with `arguments`; returns the exit status and standard error.
    func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    func testTheMacrosCompileWithoutWarningsAndSayWhatTheHeaderPromises() throws {
        guard let compiler = ServiceDocsTests.compiler else { throw XCTSkip("no C compiler to check the header's macros") }
        let program = NSTemporaryDirectory() + "abi-macros-\(getpid())"
        defer { unlink(program) }
        let (built, message) = try run(compiler, ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-DCHECK_MAIN",
                                                  "-I", Self.include, Self.source, "-o", program])
        XCTAssertEqual(built, 0, "abi_macros_check.c does not compile:\n\(message)")
        let (status, failures) = try run(program, [])
        XCTAssertEqual(status, 0, failures)
    }

    func testAPluginWrittenWithTheMacrosExportsTheEntryAndNothingElse() throws {
        guard let compiler = ServiceDocsTests.compiler else { throw XCTSkip("no C compiler to check the header's macros") }
        let library = NSTemporaryDirectory() + "abi-macros-\(getpid()).so"
        defer { unlink(library) }
        let (built, message) = try run(compiler, ["-std=c99", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
                                                  "-I", Self.include, Self.source, "-o", library])
        XCTAssertEqual(built, 0, message)
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else { return XCTFail("dlopen: \(String(cString: dlerror()))") }
        XCTAssertNotNil(dlsym(handle, "clubhouse_plugin_entry"), "CLUBHOUSE_DEFINE_ENTRY exports the entry")
        XCTAssertNil(dlsym(handle, "abi_macros_check"), "nothing but the entry leaves a library built with -fvisibility=hidden")
    }

    func testTheHeaderAndItsMacrosAreValidCPlusPlus() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let compiler = ["c++", "clang++", "g++"].lazy.compactMap({ name in
            path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }).first else { throw XCTSkip("no C++ compiler") }
        // C++20 designated initializers; -Wextra's missing-field-initializers is C++'s view of the
        // optional fields a C designated initializer leaves out.
        let (status, message) = try run(compiler, ["-std=c++20", "-x", "c++", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                                   "-Werror", "-fsyntax-only", "-I", Self.include, Self.source])
        XCTAssertEqual(status, 0, message)
    }
}
