// The service pages (PluginSDK/docs/services/<service>.md) embed a C and a Swift example; the
// examples are real files: Swift under ServiceExamples/ (compiled with this target) and C under
// Tests/Fixtures/service-examples/ (compiled here with the system C compiler against the header).
// These tests keep page and code identical, so the docs cannot show code that does not build.

import Foundation
import XCTest

final class ServiceDocsTests: XCTestCase {
    static let services = ["storage", "log", "progress", "config", "invoke", "device", "files"]
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw XCTSkip("cannot read \(url.path)") // never in a checkout; keeps a stray copy honest
        }
        return text
    }

    /// The lines between `// BEGIN EXAMPLE` and `// END EXAMPLE` (the whole file without them).
    static func example(_ source: String) -> String {
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// BEGIN EXAMPLE" }),
              let end = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// END EXAMPLE" }), begin < end
        else { return source.trimmingCharacters(in: .newlines) }
        return lines[(begin + 1)..<end].joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    /// The fenced blocks of a Markdown page tagged `language`, in order.
    static func blocks(_ markdown: String, language: String) -> [String] {
        var result: [String] = []
        var current: [String]? // the lines of an open block of `language`
        var inOtherBlock = false
        for line in markdown.components(separatedBy: "\n") {
            if let open = current {
                if line == "```" { result.append(open.joined(separator: "\n")); current = nil } else { current = open + [line] }
            } else if inOtherBlock {
                if line == "```" { inOtherBlock = false }
            } else if line.hasPrefix("```") {
                if line == "```" + language { current = [] } else { inOtherBlock = true }
            }
        }
        return result
    }

    func testTheBlockReaderFindsOnlyBlocksOfTheLanguage() {
        let page = "intro\n```c\nint a;\n```\ntext\n```json\n```c\n```\n```swift\nlet b = 1\n```\n```c\nint c;\n```\n"
        XCTAssertEqual(Self.blocks(page, language: "c"), ["int a;", "int c;"])
        XCTAssertEqual(Self.blocks(page, language: "swift"), ["let b = 1"])
        XCTAssertEqual(Self.example("import X\n// BEGIN EXAMPLE\nlet y = 2\n// END EXAMPLE\nz"), "let y = 2")
    }

    func testEveryServicePageShowsItsCompiledCAndSwiftExamplesVerbatim() throws {
        for service in Self.services {
            let page = try Self.text("PluginSDK/docs/services/\(service).md")
            let c = Self.example(try Self.text("Tests/Fixtures/service-examples/\(service).c"))
            let swiftName = service.prefix(1).uppercased() + service.dropFirst() + "Example.swift"
            let swift = Self.example(try Self.text("Tests/PluginKitTests/ServiceExamples/\(swiftName)"))
            XCTAssertEqual(Self.blocks(page, language: "c"), [c], "\(service).md: its ```c block differs from Tests/Fixtures/service-examples/\(service).c")
            XCTAssertEqual(Self.blocks(page, language: "swift"), [swift], "\(service).md: its ```swift block differs from ServiceExamples/\(swiftName)")
            XCTAssertTrue(page.contains("clubhouse/services/\(service).h"), "\(service).md does not link its header")
        }
    }

    func testTheSDKReadmeLinksEveryServicePage() throws {
        let readme = try Self.text("PluginSDK/README.md")
        for service in Self.services {
            XCTAssertTrue(readme.contains("(docs/services/\(service).md)"), "PluginSDK/README.md does not link docs/services/\(service).md")
        }
    }

    /// A C compiler: $CC, else cc, clang or gcc on the PATH.
    static let compiler: String? = {
        if let cc = ProcessInfo.processInfo.environment["CC"], !cc.isEmpty { return cc }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["cc", "clang", "gcc"] {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }()

    func testEveryCExampleCompilesAgainstTheHeaderWithoutWarnings() throws {
        guard let compiler = Self.compiler else { throw XCTSkip("no C compiler (cc, clang or gcc) to check the C examples") }
        for service in Self.services {
            let source = Self.root.appendingPathComponent("Tests/Fixtures/service-examples/\(service).c").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: compiler)
            process.arguments = ["-std=c99", "-D_DEFAULT_SOURCE", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                                 "-I", Self.root.appendingPathComponent("PluginSDK/Sources/CClubhouse/include").path,
                                 "-I", Self.root.appendingPathComponent("PluginSDK/C").path, source]
            let err = Pipe()
            process.standardError = err
            try process.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "\(service).c does not compile:\n\(message)")
        }
    }
}
