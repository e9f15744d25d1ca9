// Builds the broken and special plugins of Tests/Fixtures/plugins/fixture_plugin.c, one -D per
// variant, into a scratch folder (cached per test process).

import Foundation
import XCTest

enum FixturePlugins {
    static let source = Clubhouse.repositoryRoot.appendingPathComponent("Tests/Fixtures/plugins/fixture_plugin.c")
    static let include = Clubhouse.repositoryRoot.appendingPathComponent("PluginSDK/Sources/CClubhouse/include")
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-fixtures-\(getpid())")

    /// A C compiler: $CC, else cc, clang or gcc on the PATH (the Swift toolchain ships clang).
    static let compiler: String? = {
        if let cc = ProcessInfo.processInfo.environment["CC"], !cc.isEmpty { return cc }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["cc", "clang", "gcc"] {
            for dir in path.split(separator: ":") {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    /// Builds (once) the variant and returns the .so path. `file` names another C source in
    /// Tests/Fixtures/plugins/ (each hostile fixture family keeps its own file); `linking` is added to the
    /// compiler's arguments (libraries the fixture links).
    static func build(_ variant: String, id: String = "org.tests.fixture", version: String = "1.0.0",
                      file: String = "fixture_plugin.c", peer: String? = nil, linking: [String] = []) throws -> String {
        let source = file == "fixture_plugin.c" ? self.source
            : Clubhouse.repositoryRoot.appendingPathComponent("Tests/Fixtures/plugins/\(file)")
        guard let compiler else { throw XCTSkip("no C compiler (cc, clang or gcc) to build fixture plugins") }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stem = (file as NSString).deletingPathExtension
        let output = folder.appendingPathComponent("\(stem)_\(variant)_\(id)_\(version)\(peer.map { "_\($0)" } ?? "").so").path
        if FileManager.default.fileExists(atPath: output) { return output }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-shared", "-fPIC", "-std=c99", "-D_DEFAULT_SOURCE", "-DFIXTURE_\(variant)",
                             "-DFIXTURE_ID=\"\(id)\"", "-DFIXTURE_VERSION=\"\(version)\"", "-DROUTER_\(variant)",
                             "-DFIXTURE_PEER=\"\(peer ?? "b")\"",
                             "-I", include.path, source.path, "-o", output] + linking
        let err = Pipe()
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTFail("building fixture \(variant) failed:\n\(message)")
            throw XCTSkip("fixture \(variant) did not build")
        }
        return output
    }
}
